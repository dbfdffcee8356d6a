# Base, base with its top commit reverted, base with a patch file applied,
# and a commit that does not compile: one job, one command. The revert is
# the parent commit's tree, built beforehand, so it must come from the cache
# without make; each variant boots on a 2-node guest and runs the kernel
# asked for; c5's change is visible in compact_daemon_wake; the broken
# variant is a failed variant with its build log while the others run.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

# the parent (e2e-c4) first: the cold build every e2e test shares
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name parent --json >"$T/parent.json"
assert_jq "$T/parent.json" '.ok and (.cache_key | length == 24)'
parent=$(jq -r .cache_key "$T/parent.json")
runs_before=$(make_runs_for "$parent")

git -C "$REPO" format-patch -q --stdout e2e-c5..e2e-c6 >"$T/c6.mbox"
# a measured phase of 3 s of the guest's clock, whatever the host's speed
cat >"$T/idle.c" <<'C'
#include <time.h>
int main(void)
{
	struct timespec t = { 3, 0 };

	while (nanosleep(&t, &t))
		;
	return 0;
}
C
cat >"$T/variants.yaml" <<JOB
name: e2e-variants
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: base,    ref: e2e-c5 }
  - { name: revert,  ref: e2e-c5, revert: [ e2e-c5 ] }
  - { name: patched, ref: e2e-c4, apply: [ c6.mbox ] }
  - { name: broken,  ref: e2e-c3 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: idle, command: [idle], build: { c: idle.c } }
iterations: 1
timeouts: { boot: 300s, iteration: 600s }
JOB
rc=0
"$MMLAB" run --order sequential "$T/variants.yaml" || rc=$?
[ "$rc" = 1 ] || fail "mmlab run exited $rc; expected 1 (the broken variant failed)"
"$MMLAB" results show --json >"$T/run.json"
no_leftover_domains

v() { echo ".variants[] | select(.name == \"$1\")"; }
# the revert is the parent's build, from the cache, without make
assert_jq "$T/run.json" "($(v revert)).kernel.cache_key == \"$parent\""
assert_jq "$T/run.json" "($(v revert)).kernel.cache_hit == true"
[ "$(make_runs_for "$parent")" = "$runs_before" ] || fail "make ran again for $parent"
assert_jq "$T/run.json" "($(v revert)).kernel.operations[0].op == \"revert\""
assert_jq "$T/run.json" "($(v base)).kernel.base_commit == \"$(git -C "$REPO" rev-parse e2e-c5)\""
assert_jq "$T/run.json" "[.variants[].kernel.cache_key] | unique | length == 4"

# every built variant booted its own kernel on 2 nodes, measured, and the
# counters tinyconfig would drop are there
for name in base revert patched; do
	assert_jq "$T/run.json" "($(v $name)).iterations[0].status == \"ok\""
	assert_jq "$T/run.json" "($(v $name)) as \$v | \$v.iterations[0].guest.kernel_release ==
		\$v.kernel.release and (\$v.kernel.release | contains(\"mmlab-\" + \$v.kernel.cache_key[0:12]))"
	assert_jq "$T/run.json" "($(v $name)).iterations[0].guest.nodes | length == 2"
	assert_jq "$T/run.json" "($(v $name)).iterations[0].metrics | has(\"vmstat.compact_stall\")
		and has(\"vmstat.thp_fault_alloc\") and has(\"vmstat.pgmigrate_success\")"
done
# the patched variant was built from c4 with c6's change and nothing else
key=$(jq -r "($(v patched)).kernel.cache_key" "$T/run.json")
tree=$("$MMLAB" kernel show "$key" --json | jq -r .tree_id)
want=$(git -C "$REPO" diff e2e-c5 e2e-c6 | git patch-id --stable | cut -d' ' -f1)
got=$(git -C "$REPO" diff e2e-c4 "$tree" | git patch-id --stable | cut -d' ' -f1)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "the patched variant's tree $tree is not c4 + c6's change"
# c5 counts kcompactd's periodic wakeups (every 500 ms on each node); the
# revert does not. The window must be long in the guest's time, not the
# host's: usemem with 40 loops took 0.28 s on one CI host and with 400
# loops 0.97 s on another (both failed). 3 s of sleep give each node 5
# wakeups or more (12 seen; at least half of them asserted)
assert_jq "$T/run.json" "($(v base)).iterations[0].metrics[\"time.elapsed_s\"] >= 2.9"
echo "compact_daemon_wake in $(jq -r "($(v base)).iterations[0].metrics[\"time.elapsed_s\"]" "$T/run.json") s:" \
	"base $(jq -r "($(v base)).iterations[0].metrics[\"vmstat.compact_daemon_wake\"]" "$T/run.json")," \
	"revert $(jq -r "($(v revert)).iterations[0].metrics[\"vmstat.compact_daemon_wake\"]" "$T/run.json")"
assert_jq "$T/run.json" "($(v base)).iterations[0].metrics[\"vmstat.compact_daemon_wake\"] >= 6"
assert_jq "$T/run.json" "($(v revert)).iterations[0].metrics[\"vmstat.compact_daemon_wake\"] <= 1"

# the broken commit: a failed variant with its build log
assert_jq "$T/run.json" "($(v broken)).kernel.build_failed == true"
assert_jq "$T/run.json" "($(v broken)).iterations[0].status == \"failed\""
log=$(jq -r "($(v broken)).kernel.build_log" "$T/run.json")
grep -q 'mm/vmstat.c' "$log" || fail "the build log $log does not name mm/vmstat.c"

# an identical request: no git, no make, under a second
s=$(date +%s.%N)
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" --json >"$T/again.json"
e=$(date +%s.%N)
assert_jq "$T/again.json" ".cache_key == \"$parent\" and .cache_hit"
echo "cache hit took $(echo "$e - $s" | bc -l) s"

# gc keeps what stored runs use
"$MMLAB" kernel gc --dry-run --json >"$T/gc.json"
assert_jq "$T/gc.json" ".removed | index(\"$parent\") == null"
echo "ok"
