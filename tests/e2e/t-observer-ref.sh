# mmlab run --observer-check on variants built from source: each twin
# "<name>.nocollect" builds the same kernel as its variant (a twin once
# lost ref, revert, cherry_pick and apply, and a twin of a "ref:" variant
# crashed the run: exit 139). The revert of e2e-c5 is e2e-c4's tree, so
# every variant and twin boots the one cached build of e2e-c4, without make.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name parent --json >"$T/parent.json"
parent=$(jq -r .cache_key "$T/parent.json")
runs_before=$(make_runs_for "$parent")

cat >"$T/observer.yaml" <<JOB
name: e2e-observer
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: base, ref: e2e-c4 }
  - { name: rev,  ref: e2e-c5, revert: [ e2e-c5 ] }
collectors: { tracepoints: [ "compaction:*" ] }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
rc=0
"$MMLAB" run --order sequential --observer-check "$T/observer.yaml" >"$T/run.out" 2>&1 || rc=$?
cat "$T/run.out"
[ "$rc" = 0 ] || fail "mmlab run --observer-check exited $rc; expected 0"
grep -q '^observer check' "$T/run.out" || fail "no observer check in the summary"
"$MMLAB" results show --json >"$T/run.json"
no_leftover_domains

v() { echo ".variants[] | select(.name == \"$1\")"; }
assert_jq "$T/run.json" '.observer_check == true'
assert_jq "$T/run.json" '[.variants[].name] == ["base", "rev", "base.nocollect", "rev.nocollect"]'
for name in base rev base.nocollect rev.nocollect; do
	assert_jq "$T/run.json" "($(v $name)).kernel.cache_key == \"$parent\""
	assert_jq "$T/run.json" "($(v $name)).iterations[0].status == \"ok\""
done
# the twin of rev reverted as rev did
assert_jq "$T/run.json" "($(v rev.nocollect)).kernel.operations[0].op == \"revert\""
# each variant's own base commit, though both boot one cache entry (whose
# meta.json names the base of whichever request built it first)
c4=$(git -C "$REPO" rev-parse e2e-c4)
c5=$(git -C "$REPO" rev-parse e2e-c5)
for name in base base.nocollect; do
	assert_jq "$T/run.json" "($(v $name)).kernel.base_commit == \"$c4\""
done
for name in rev rev.nocollect; do
	assert_jq "$T/run.json" "($(v $name)).kernel.base_commit == \"$c5\""
done
[ "$(make_runs_for "$parent")" = "$runs_before" ] || fail "make ran again for $parent"
echo "ok"
