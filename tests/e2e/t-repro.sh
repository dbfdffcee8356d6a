# mmlab repro on kernels built from source: e2e-c8 makes kcompactd
# busy-wait 100 ms at every periodic wakeup (every 500 ms while
# vm.compaction_proactiveness > 0), its parent e2e-c7 only warns there. A
# recipe expecting kcompactd's CPU share above 5 % of the measured phase
# in both runs is REPRODUCED on c8 and NOT REPRODUCED on c7 (the recipe's
# known-good variant); c7's console has its WARNING all the same.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/kcompactd.yaml" <<R
bug: { id: "e2e#c8", title: "kcompactd burns CPU at every periodic wakeup" }
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: c8, ref: e2e-c8 }
  - { name: c7, ref: e2e-c7 }
good: c7
topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }
# 4 s of proactive compaction at the lowest proactiveness: kcompactd wakes
# every 500 ms but finds nothing worth compacting in 8M of holes
workload: { name: compact, params: { mode: proactive, proactiveness: 1, size: 8M, window_s: 4 } }
runs: 2
iterations_per_boot: 2
timeouts: { boot: 300s, iteration: 300s }
expect:
  - { metric: "kthread.kcompactd0.cpu_s / time.elapsed_s", op: ">", value: 0.05, k: 2 }
R
"$MMLAB" repro --check "$T/kcompactd.yaml"
rc=0
"$MMLAB" repro "$T/kcompactd.yaml" --order sequential --json >"$T/repro.json" || rc=$?
jq -r '.repro.variants[] | "\(.name): \(.verdict) \([.runs_table[].results[0].value])"' "$T/repro.json"
[ "$rc" = 0 ] || fail "repro exited $rc; expected 0 (REPRODUCED on c8)"
v() { echo ".repro.variants[] | select(.name == \"$1\")"; }
assert_jq "$T/repro.json" '.repro.verdict == "REPRODUCED"'
assert_jq "$T/repro.json" "($(v c8)).verdict == \"REPRODUCED\" and ($(v c8)).role == \"test\""
assert_jq "$T/repro.json" "($(v c7)).verdict == \"NOT REPRODUCED\" and ($(v c7)).role == \"good\""
assert_jq "$T/repro.json" "[($(v c8)).runs_table[].results[0].value] | length == 2 and min > 0.05"
assert_jq "$T/repro.json" "[($(v c7)).runs_table[].results[0].value] | length == 2 and max < 0.05"
assert_jq "$T/repro.json" '.repro.comparisons | length >= 1'

# each variant booted its own kernel: the commits asked for, distinct keys
run=$(jq -r .run "$T/repro.json")
"$MMLAB" results show --json "$run" >"$T/run.json"
for c in c7 c8; do
	assert_jq "$T/run.json" ".variants[] | select(.name == \"$c\") | .kernel as \$k |
		\$k.base_commit == \"$(git -C "$REPO" rev-parse e2e-$c)\" and
		(.iterations[0].guest.kernel_release | contains(\"mmlab-\" + \$k.cache_key[0:12]))"
done
assert_jq "$T/run.json" '[.variants[].kernel.cache_key] | unique | length == 2'
# c7 warns in the same branch: the WARNING is there, the CPU is not
grep -q 'WARNING: .* at mm/compaction.c' "$MMLAB_RESULTS/$run"/c7/*/console.log ||
	fail "no WARNING in c7's console"
echo ok
