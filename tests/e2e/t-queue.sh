# Kernel builds in the queue: two jobs whose variants need one kernel get
# one build item (here a cache hit: e2e-c4, the shared parent build, so
# make does not run again), and both boot that kernel; a third job whose
# kernel cannot be configured gets a failed build item, and its boot fails
# naming the build log; with --build-jobs 1 the two builds never overlap.
# The runner is killed -9 during that build: the next run builds it again
# and finishes the rest, every iteration stored once.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name parent --json >"$T/parent.json"
parent=$(jq -r .cache_key "$T/parent.json")
runs_before=$(make_runs_for "$parent")

printf 'CONFIG_NFS_FS=y\n' >"$T/nfs.config"
qjob() {	# qjob NAME VARIANT-NAME [EXTRA FRAGMENT]
	cat >"$T/$1.yaml" <<JOB
name: $1
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ${3:+, $3} ] }
variants:
  - { name: $2, ref: e2e-c4 }
topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
}
qjob qa parent
qjob qb same	# another variant name, the same kernel
qjob qc badcfg "$T/nfs.config"
"$MMLAB" queue add --json "$T/qa.yaml" "$T/qb.yaml" "$T/qc.yaml" >"$T/add.json"
# queue add builds nothing: the kernels are build requests
"$MMLAB" queue status --json >"$T/s0.json"
assert_jq "$T/s0.json" '[.[] | .builds.queued // 0] == [1, 0, 1]'
assert_jq "$T/s0.json" '[.[].items[] | select(.kind == "build") | .needed_by] == [2, 1]'
for r in $(jq -r '.[].run' "$T/add.json"); do
	"$MMLAB" results show --json "$r" >"$T/r0.json"
	assert_jq "$T/r0.json" '.variants[0].kernel.build_pending == true'
done

# kill -9 the runner while qc's kernel is being configured; the next
# queue run builds it again and finishes the rest, nothing stored twice
"$MMLAB" queue run --jobs 2 --build-jobs 1 >"$T/run1.out" 2>&1 &
pid=$!
building() {
	"$MMLAB" queue status --json |
		jq -e '.[2].items[] | select(.kind == "build" and .state == "running")' >/dev/null
}
for i in $(seq 600); do building && break; kill -0 $pid 2>/dev/null || break; sleep 0.2; done
building || { cat "$T/run1.out"; fail "never saw qc's build running"; }
kill -9 $pid
wait $pid || true
cat "$T/run1.out"
sleep 1
rc=0
"$MMLAB" queue run --jobs 2 --build-jobs 1 >"$T/run.out" 2>&1 || rc=$?
cat "$T/run.out"
[ "$rc" = 1 ] || fail "queue run exited $rc; expected 1 (qc's build fails)"
grep -q "requeued or completed" "$T/run.out" || fail "the second run recovered nothing"
"$MMLAB" queue status --json >"$T/s1.json"
assert_jq "$T/s1.json" '.[2].items[] | select(.kind == "build") | .attempts == 2'
for r in $(jq -r '.[].run' "$T/s1.json"); do
	[ -z "$(virsh -c qemu:///system list --all --name | grep "^mmlab-$r-")" ] ||
		fail "domains of $r left behind"
done
assert_worktree_clean
"$MMLAB" queue status --items
# one build for qa and qb, done without make; qc's failed
assert_jq "$T/s1.json" '[.[] | .builds.done // 0] == [1, 0, 0] and .[2].builds.failed == 1'
[ "$(make_runs_for "$parent")" = "$runs_before" ] || fail "make ran again for $parent"
# at most one build at a time: the two build items did not overlap
assert_jq "$T/s1.json" '[.[].items[] | select(.kind == "build")] | sort_by(.started) |
	.[0].finished <= .[1].started'
for j in qa qb; do
	r=$(jq -r ".[] | select(.job == \"$j\") | .run" "$T/s1.json")
	"$MMLAB" results show --json "$r" >"$T/$j.json"
	assert_jq "$T/$j.json" '.status == "complete"'
	assert_jq "$T/$j.json" ".variants[0].kernel.cache_key == \"$parent\""
	assert_jq "$T/$j.json" '.variants[0].iterations | length == 1 and .[0].status == "ok"'
	assert_jq "$T/$j.json" '.variants[0].kernel as $k | .variants[0].iterations[0].guest.kernel_release
		== $k.release and ($k.release | contains("mmlab-" + $k.cache_key[0:12]))'
done
# qc: its boot failed, naming the build log, which says why
assert_jq "$T/s1.json" '.[2].counts.failed == 1'
err=$(jq -r '.[2].items[] | select(.kind == "boot") | .error' "$T/s1.json")
echo "qc's boot: $err"
[[ "$err" == *"kernel build of variant 'badcfg' failed; build log "* ]] || fail "unclear error: $err"
log=${err#*build log }
log=${log%% *}
[ -s "$log" ] || fail "no build log $log"
wlog=${err#*worker log }
wlog=${wlog%)}
grep -q "Kconfig dropped 1 option.*CONFIG_NFS_FS=y" "$wlog" || fail "$wlog does not say why"
r=$(jq -r '.[2].run' "$T/s1.json")
"$MMLAB" results show --json "$r" >"$T/qc.json"
assert_jq "$T/qc.json" '.variants[0].kernel.build_failed == true'
echo ok
