# An A/A run: two variants that differ only in their name (same distro
# kernel, same settings), 3 iterations each, each on its own boot, booted
# interleaved: iterations that shared a boot would share its luck (the
# host's load while it ran, where its memory landed), and a difference
# between two boots would pass for one between the variants. The summary
# of `mmlab compare` (text and json) and of `mmlab report` says there is no
# significant change, in one sentence with the smallest change the run could
# have detected. The check is on the workload and Duration metrics at alpha
# 0.001: with continuous metrics a false alarm then has probability <= 0.1 %
# (Benjamini-Hochberg under the complete null), so the test is not flaky;
# quantised collector counters (kthread cpu_s in 10 ms ticks) can be constant
# on both sides at n = 3, which Welch's test cannot tell from a real shift.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
cat >"$T/aa.yaml" <<'JOB'
name: aa
variants:
  - { name: a, kernel: distro }
  - { name: b, kernel: distro }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: usemem, params: { threads: 1, size: 48M } }
iterations: 3
timeouts: { boot: 120s, iteration: 300s }
JOB
"$MMLAB" run "$T/aa.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out"; fail "mmlab run"; }
opts=(--metrics 'time.*,usemem.*' --alpha 0.001)
"$MMLAB" compare latest "${opts[@]}" >"$T/cmp.txt"
"$MMLAB" compare latest "${opts[@]}" --format json >"$T/cmp.json"
head -20 "$T/cmp.txt"
assert_jq "$T/cmp.json" '[.variants[].n] == [3, 3]'
assert_jq "$T/cmp.json" '[.metrics[].variants[] | select(.significant)] | length == 0'
assert_jq "$T/cmp.json" '.summary.significant == 0 and (.summary.changes | length) == 0'
assert_jq "$T/cmp.json" '.summary.no_change | length == 1'
assert_jq "$T/cmp.json" '.summary.no_change[0] | .variant == "b" and .n_baseline == 3 and .n == 3'
assert_jq "$T/cmp.json" '.summary.no_change[0].detectable_pct > 0'
assert_jq "$T/cmp.json" '.summary.no_change[0].metric | test("^(time|usemem)\\.")'
# the first lines of the text: the one sentence, with that figure
pct=$(jq -r '.summary.no_change[0].detectable_pct' "$T/cmp.json")
sed '/^$/q' "$T/cmp.txt" | tr -s ' \n' ' ' >"$T/summary"
grep -q '^Summary: no significant change in b against a ([0-9]* metrics tested, q < 0.001); with n=3 vs n=3 this run could detect changes of [0-9.]*% or more' \
	"$T/summary" || fail "the text summary is not the no-change sentence: $(cat "$T/summary")"
shown=$(grep -o 'detect changes of [0-9.]*%' "$T/summary" | grep -o '[0-9.]*')
awk -v a="$shown" -v b="$pct" 'BEGIN { exit !(a / b > 0.99 && a / b < 1.01) }' ||
	fail "the text says $shown%, json $pct%"
"$MMLAB" report latest "${opts[@]}" -o "$T/report.html"
grep -q 'class="verdict">No significant change in b against a' "$T/report.html" ||
	fail "the report's summary does not say 'No significant change'"
! grep -q '<table class="sum">' "$T/report.html" || fail "the report lists significant changes"
grep -q '<svg[^>]*class="forest"' "$T/report.html" || fail "no forest plot of the intervals"
no_leftover_domains
echo ok
