# `mmlab compare` and `mmlab report` over the fixture store: the text,
# markdown and CSV outputs are the unit tests' golden files byte for byte,
# the JSON agrees with them, --baseline, --metrics, -o and "latest" do what
# they say; the HTML report is one self-contained page with its sections.
. "$MMLAB_SRCDIR/tests/cli/lib.sh"
fixture_store

# golden RUN FORMAT GOLDEN: compare's output is the golden file
golden() {
	expect 0 compare "$1" --format "$2"
	cmp -s "$T/out" "$3" || fail "compare $1 --format $2 differs from $3: $(diff "$3" "$T/out" | head)"
}
golden "$RUN1" text "$FIX/run1.text.golden"
golden "$RUN1" markdown "$FIX/run1.markdown.golden"
golden "$RUN1" csv "$FIX/run1.csv.golden"
golden "$DEMO_RUN" text "$FIX/demo.text.golden"
[ ! -s "$T/err" ] || fail "compare of the demo run warned: $(cat "$T/err")"
# the warning of a variant that differs in more than its kernel: in the
# text (the golden file has it), on stderr beside the JSON
has "$FIX/run1.text.golden" '^Warning: variant revert differs from baseline base in more than the kernel'
expect 0 compare "$RUN1" --format json
has "$T/err" '^mmlab: warning: variant revert differs from baseline base in more than the kernel: thp.defrag \(always vs madvise\)$'
# "latest" is the newest run; -o writes the file and nothing on stdout
expect 0 compare latest -o "$T/latest.txt"
[ ! -s "$T/out" ] || fail "compare -o wrote to stdout"
cmp -s "$T/latest.txt" "$FIX/demo.text.golden" || fail "compare latest is not the demo run"

# JSON: the same comparison as the text
expect 0 compare "$RUN1" --format json
cp "$T/out" "$T/c.json"
assert_jq "$T/c.json" '.schema == 1 and .baseline == "base" and .alpha == 0.05'
assert_jq "$T/c.json" '.runs == ["'"$RUN1"'"]'
assert_jq "$T/c.json" '[.variants[].name] == ["base", "compactfix", "revert"]'
assert_jq "$T/c.json" '(.metrics | length) == 13'
assert_jq "$T/c.json" '.summary.significant == 7'
assert_jq "$T/c.json" '[.metrics[].variants[] | select(.significant)] | length == 7'
assert_jq "$T/c.json" '[.metrics[].variants[] | select(.significant) | .variant] | unique == ["compactfix"]'
assert_jq "$T/c.json" '.summary.changes[0] | .metric == "vmstat.compact_free_scanned" and
	.variant == "compactfix" and .verdict == "better" and (.change_pct | floor) == -24'
assert_jq "$T/c.json" '.metrics[] | select(.name == "usemem.elapsed_s.T1") | .variants[1] |
	.n == 5 and .mean == 7.1084 and .significant'
assert_jq "$T/c.json" '.metrics[] | select(.name == "usemem.elapsed_s.T1") | .variants[2].n == 4'
assert_jq "$T/c.json" '.warnings | length == 1'
# every change of the text summary is in the JSON summary, in that order
grep -E '^  compactfix ' "$FIX/run1.text.golden" | awk '{ print $2 }' >"$T/want"
jq -r '.summary.changes[] | .metric' "$T/c.json" >"$T/got"
cmp -s "$T/want" "$T/got" || fail "JSON summary is not the text's: $(diff "$T/want" "$T/got")"

# --baseline and --metrics
expect 0 compare "$RUN1" --baseline revert
has "$T/out" '^Summary: 6 significant changes against revert '
expect 0 compare "$RUN1" --metrics 'time.*' --format json
assert_jq "$T/out" '[.metrics[].name] == ["time.user_s", "time.system_s", "time.elapsed_s"]'
expect 0 compare "$RUN1" --power
has "$T/out" '^Iterations per variant to detect a 2.00% change \(alpha 0.05, power 0.80'
has "$T/out" '^usemem.throughput_mbs.T1 +2.17 +4 +20 +5.15%$'

# report: one self-contained HTML file
expect 0 report "$RUN1" -o "$T/r.html"
has "$T/err" "^mmlab: wrote $T/r.html$"
has "$T/r.html" '^<!DOCTYPE html>'
has "$T/r.html" '<h1>mmlab report: demo'
for id in summary evidence distributions; do
	has "$T/r.html" "<h2 id=\"$id\">"
done
has "$T/r.html" '<svg'
has "$T/r.html" 'vmstat.compact_free_scanned'
hasnt "$T/r.html" '<script|src="https?:|href="https?:'
has "$T/r.html" '</html>'
# "-" is stdout, and the same page
expect 0 report "$RUN1" -o -
cmp -s "$T/out" "$T/r.html" || fail "report -o - differs from the file"
# the demo run has 1 Hz series: the time-series section
expect 0 report "$DEMO_RUN" -o "$T/demo.html"
has "$T/demo.html" '<h2 id="timeseries">'
echo ok
