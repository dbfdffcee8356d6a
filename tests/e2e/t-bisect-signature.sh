# Pass/fail mode: between good e2e-c6 and bad e2e-c8, the first commit
# whose console shows "WARNING: ... at mm/compaction.c" is c7 (a
# WARN_ON_ONCE in kcompactd's periodic wakeup). 2 runs per commit, bad
# when the warning is in at least 1.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/job.yaml" <<JOB
name: bisect-warn
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: k, ref: e2e-c6 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: usemem, params: { size: 32M, loops: 10 } }
iterations: 2
timeouts: { boot: 300s, iteration: 600s }
JOB
c7=$(git -C "$REPO" rev-parse e2e-c7)
"$MMLAB" bisect start --job "$T/job.yaml" --good e2e-c6 --bad e2e-c8 \
	--signature 'dmesg:WARNING: .* at mm/compaction.c' --n 2 --k 1
"$MMLAB" bisect run --json >"$T/result.json"
assert_jq "$T/result.json" ".mode == \"signature\" and .first.commit == \"$c7\""
assert_jq "$T/result.json" '[.steps[] | .verdict] == ["good", "bad", "bad"]'
assert_jq "$T/result.json" '[.steps[] | .met] == [0, 2, 2]'
assert_jq "$T/result.json" '.steps[] | select(.role == "step") | .iterations == 2'
# the warning was seen at the bad endpoint in every run: certain
assert_jq "$T/result.json" '.confidence | test("100 %")'
"$MMLAB" bisect status >"$T/status.out"
grep -q "status: done" "$T/status.out" || fail "status does not say done"
"$MMLAB" bisect reset
echo ok
