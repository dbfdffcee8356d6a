# Endpoints that do not differ are refused with the measured numbers:
# e2e-c5 and e2e-c6 (a comment in mm/page_alloc.c) count kcompactd's
# wakeups alike. Nothing is bisected; run again says the same. The
# measured phase is a fixed 3 s at proactiveness 1 (kcompactd wakes every
# 500 ms, and almost never finds a node fragmented enough to compact; at 0
# it would not wake at all), so each iteration counts about 12 periodic
# wakeups (2 nodes x 2/s x 3 s), whatever the host's speed. A workload's
# own duration would not do: usemem's 40 loops counted 0 or 1 (a 50% rule
# can read that as a doubling), and its time, and with it the count,
# moves with the load.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/job.yaml" <<JOB
name: bisect-same
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: k, ref: e2e-c5 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: compact, params: { mode: proactive, proactiveness: 1, window_s: 3, size: 8M } }
iterations: 3
iterations_per_boot: 3
timeouts: { boot: 300s, iteration: 600s }
JOB
"$MMLAB" bisect start --job "$T/job.yaml" --good e2e-c5 --bad e2e-c6 \
	--metric vmstat.compact_daemon_wake --min-change 50%
rc=0
"$MMLAB" bisect run 2>"$T/err" || rc=$?
cat "$T/err"
[ "$rc" = 1 ] || fail "bisect run exited $rc; expected 1 (refused)"
grep -q "refusing to bisect" "$T/err" || fail "no refusal message"
# the numbers: both means with n, the change and the p-value
grep -Eq "good [0-9.e+]+ ± [0-9.e+]+ \(n=3\), bad [0-9.e+]+ ± [0-9.e+]+ \(n=3\)" "$T/err" ||
	fail "the refusal does not give the measured numbers"
grep -Eq "Welch p = " "$T/err" || fail "the refusal does not give the p-value"
"$MMLAB" bisect status --json >"$T/st.json"
assert_jq "$T/st.json" '.status == "refused" and (.result.refused | test("n=3"))'
assert_jq "$T/st.json" '[.steps[] | .role] == ["good", "bad"]'
# run again: the same refusal, nothing measured again
n=$(ls "$MMLAB_RESULTS"/*/run.json | wc -l)
rc=0
"$MMLAB" bisect run 2>"$T/err2" || rc=$?
[ "$rc" = 1 ] && grep -q "refused" "$T/err2" || fail "the second run: exit $rc"
[ "$(ls "$MMLAB_RESULTS"/*/run.json | wc -l)" = "$n" ] || fail "a refused bisection measured again"
"$MMLAB" bisect reset
echo ok
