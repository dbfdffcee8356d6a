# Kernel builds as Slurm build steps: "mmlab submit --slurm" of a job whose
# two variants need one kernel built from source submits one build job
# ("mmlab queue build"), and the array of boots depends on it (afterok);
# the boots run the kernel it built. A second job whose kernel cannot be
# configured gets a failed build job: its boots are cancelled by Slurm
# (--kill-on-invalid-dep) instead of pending forever, the queue names the
# build log, and the run ends incomplete. Nothing is built by submit.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm

printf 'CONFIG_NFS_FS=y\n' >"$T/nfs.config"
sjob() {	# sjob NAME [EXTRA FRAGMENT]
	cat >"$T/$1.yaml" <<JOB
name: $1
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ${2:+, $2} ] }
variants:
  - { name: one, ref: e2e-c4 }
  - { name: two, ref: e2e-c4 }
topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
}
sjob sgood
sjob sbad "$T/nfs.config"
logs_before=$(ls "$MMLAB_CACHE"/kernels/logs 2>/dev/null | wc -l)
# The partition is down while we look at what submit recorded: a build job
# of a kernel already in the cache would otherwise finish (and record the
# kernel) before "results show" reads the run.
scontrol update PartitionName=lab State=DOWN
"$MMLAB" submit --slurm --partition lab --json "$T/sgood.yaml" "$T/sbad.yaml" >"$T/sub.json"
cat "$T/sub.json"
# submit built nothing: no new build log, and each run waits for a build job
[ "$(ls "$MMLAB_CACHE"/kernels/logs 2>/dev/null | wc -l)" = "$logs_before" ] ||
	fail "submit ran a kernel build on the submitting host"
assert_jq "$T/sub.json" 'length == 2 and all(.[]; .boots == 2 and (.build_jobs | length) == 1)'
good=$(jq -r '.[0].run' "$T/sub.json")
bad=$(jq -r '.[1].run' "$T/sub.json")
# the build step is named for the variant of the run's first boot that needs it
bv=$(jq -r '.[0].build_jobs | keys[0]' "$T/sub.json")
for r in "$good" "$bad"; do
	"$MMLAB" results show --json "$r" >"$T/r0.json"
	assert_jq "$T/r0.json" 'all(.variants[]; .kernel.build_pending == true)'
	v=$(jq -r ".[] | select(.run == \"$r\") | .build_jobs | keys[0]" "$T/sub.json")
	grep -q "queue 'build' '$r' '--variant' '$v'" "$MMLAB_RESULTS/$r/slurm/build-$v.sh" ||
		{ cat "$MMLAB_RESULTS/$r/slurm/build-$v.sh"; fail "no build step script for $r"; }
done
# the array waits for the build job
arr=$(jq -r '.[0].array_job' "$T/sub.json")
bjob=$(jq -r ".[0].build_jobs.$bv" "$T/sub.json")
dep=$(scontrol show job "$arr" | grep -o 'Dependency=[^ ]*' | head -1)
echo "array $arr: $dep"
[[ "$dep" == *"afterok:$bjob"* || "$dep" == "Dependency=(null)" ]] ||
	fail "array $arr does not depend on build job $bjob: $dep"
"$MMLAB" queue status
scontrol update PartitionName=lab State=UP
for f in $(jq -r '.[].finish_job' "$T/sub.json"); do wait_slurm_job "$f" 1500; done
for f in "$MMLAB_RESULTS"/*/slurm/*.out; do echo "== $f"; cat "$f"; done
"$MMLAB" queue status --items
"$MMLAB" queue status --json >"$T/st.json"

# the good job: its kernel built by the build step, booted by both variants
grep -q "building the kernel of variant '$bv'" "$MMLAB_RESULTS/$good/slurm/build-$bv.out" ||
	fail "the build step did not build"
"$MMLAB" results show --json "$good" >"$T/good.json"
assert_jq "$T/good.json" '.status == "complete"'
assert_jq "$T/good.json" '[.variants[].iterations[]] | length == 2 and
	all(.[]; .status == "ok" and .boot.placement.slurm_job != null)'
assert_jq "$T/good.json" '.variants[0].kernel.cache_key != null and
	.variants[0].kernel.cache_key == .variants[1].kernel.cache_key'
assert_jq "$T/good.json" '.variants[0].kernel as $k | .variants[0].iterations[0].guest.kernel_release
	== $k.release and ($k.release | contains("mmlab-" + $k.cache_key[0:12]))'
assert_jq "$T/st.json" ".[] | select(.run == \"$good\") | .counts.done == 2 and
	([.items[] | select(.kind == \"build\") | .state] == [\"done\"])"
"$MMLAB" compare "$good" >/dev/null

# the bad job: build failed with its log, boots cancelled, run incomplete
assert_jq "$T/st.json" ".[] | select(.run == \"$bad\") | [.items[] | select(.kind == \"build\")] |
	length == 1 and .[0].state == \"failed\" and (.[0].error | test(\"build log \"))"
assert_jq "$T/st.json" ".[] | select(.run == \"$bad\") | (.counts.done // 0) == 0 and
	.counts.failed == 2 and
	all(.items[] | select(.kind == \"boot\"); .state == \"failed\")"
"$MMLAB" results show --json "$bad" >"$T/bad.json"
assert_jq "$T/bad.json" '.status == "incomplete"'
[ -z "$(virsh -c qemu:///system list --all --name | grep -E "^mmlab-($good|$bad)-")" ] ||
	fail "domains left"
echo ok
