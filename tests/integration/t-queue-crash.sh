# kill -9 of "queue run" while VMs run, then "queue run" again: every
# iteration completes, none is stored twice, no mmlab-* domain is left,
# and the killed workers' staging directories are swept.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
topo='{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }'
j=$(job qcrash '{ name: noop }' "$topo")
sed -i 's/^iterations: 1/iterations: 3/' "$j"
"$MMLAB" -q queue add "$j"
run=$(ls "$MMLAB_RESULTS" | grep qcrash)
"$MMLAB" queue run --jobs 2 >"$T/run1.out" 2>&1 &
pid=$!
# wait until two VMs of this run are up, then kill the runner outright
for _ in $(seq 1 600); do
	n=$(virsh -c qemu:///system list --name | grep -c "^mmlab-$run-" || true)
	[ "$n" -ge 2 ] && break
	sleep 0.5
done
[ "$n" -ge 2 ] || { cat "$T/run1.out"; fail "two VMs never ran"; }
sleep 3
kill -9 $pid
wait $pid 2>/dev/null || true
cat "$T/run1.out"
"$MMLAB" queue status --json >"$T/s0.json"
assert_jq "$T/s0.json" '.[0].counts.running == 2'
# the workers died with the runner (PR_SET_PDEATHSIG); their domains go
# with their libvirt connections (AUTODESTROY), or are destroyed by name
# when their boots run again
mine() { virsh -c qemu:///system list --all --name | grep "^mmlab-$run-" || true; }
for _ in $(seq 1 20); do [ -z "$(mine)" ] && break; sleep 0.5; done
echo "domains of the run after kill -9: $(mine | wc -l)"
"$MMLAB" results show --json "$run" >"$T/r0.json"
assert_jq "$T/r0.json" '.status == "incomplete"'
# the killed workers' staging directories (kernel, initrd, console) are
# left in /tmp; the next mmlab that stages sweeps them. A killed worker
# may stay a zombie until PID 1 reaps the orphan: that is dead too.
dead() {
	local st
	kill -0 "$1" 2>/dev/null || return 0
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ "$st" = Z ] || [ "$st" = X ]
}
dead_stages() {
	local o p b
	for o in /tmp/mmlab-stage-*/owner; do
		[ -e "$o" ] || continue
		read -r p b <"$o"
		if dead "$p"; then echo "${o%/owner}"; fi
	done
}
stale=$(dead_stages)
echo "stages of dead processes: $stale"
# on a shared host another mmlab's sweep may have taken them already
[ -n "${MMLAB_SHARED_HOST:-}" ] || [ "$(echo "$stale" | grep -c .)" -ge 2 ] ||
	fail "expected the 2 killed workers' stages"
"$MMLAB" queue run --jobs 2 >"$T/run2.out" 2>&1 || { cat "$T/run2.out"; fail "second queue run failed"; }
cat "$T/run2.out"
for d in $stale; do [ ! -e "$d" ] || fail "stage $d of a killed worker is still there"; done
grep -q "requeued or completed 2 boots" "$T/run2.out" || fail "the dead runner's boots were not recovered"
"$MMLAB" queue status --json >"$T/s1.json"
assert_jq "$T/s1.json" '.[0].counts.done == 3'
# the 2 killed boots ran again (unless stored just before the kill), the
# queued one once: 4 or 5 attempts, never more
assert_jq "$T/s1.json" '[.[0].items[].attempts] | add | . >= 4 and . <= 5'
"$MMLAB" results show --json "$run" >"$T/r1.json"
assert_jq "$T/r1.json" '.status == "complete"'
assert_jq "$T/r1.json" '[.variants[0].iterations[].index] | sort == [0, 1, 2]'
assert_jq "$T/r1.json" 'all(.variants[0].iterations[]; .status == "ok")'
# each iteration was stored once: one iteration.json and one index row each
[ "$(find "$MMLAB_RESULTS/$run" -name iteration.json | wc -l)" = 3 ] || fail "iteration files"
[ "$(sqlite3 "$MMLAB_RESULTS/mmlab.db" "select count(*) from iterations where run='$run'")" = 3 ] ||
	fail "index rows"
[ -z "$(mine)" ] || fail "domains left behind: $(mine)"
# CI runs alone: nothing of anyone's may be left there
[ -n "${MMLAB_SHARED_HOST:-}" ] || no_leftover_domains
echo ok
