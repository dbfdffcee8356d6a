# usemem with anonymous and file-backed parts and a thread list, run with
# --observer-check: each variant has a ".nocollect" twin and the summary
# reports the overhead of tracepoint counting.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job um '{ name: usemem, params: { threads: [1, 2], size: 24M, file: 16M, step: 4096 } }' "" \
	'collectors: { tracepoints: ["kmem:mm_page_alloc"] }')
"$MMLAB" run --observer-check "$j" >"$T/out"
cat "$T/out"
grep -q "observer check" "$T/out" || fail "no observer check in the summary"
grep -Eq "base +[0-9.]+ s vs [0-9.]+ s: overhead [-+][0-9.]+%" "$T/out" || fail "no overhead line"
"$MMLAB" results show --json >"$T/r.json"
assert_jq "$T/r.json" '[.variants[].name] | sort == ["base", "base.nocollect"]'
for v in 0 1; do
	it=".variants[$v].iterations[0]"
	assert_jq "$T/r.json" "$it.status == \"ok\""
	for t in 1 2; do
		for k in elapsed_s system_s user_s throughput_mbs; do
			assert_jq "$T/r.json" "$it.metrics | has(\"usemem.$k.T$t\")"
		done
	done
done
assert_jq "$T/r.json" '(.variants[] | select(.name == "base") | .iterations[0].metrics["trace.kmem:mm_page_alloc"]) > 0'
assert_jq "$T/r.json" '.variants[] | select(.name == "base.nocollect") | .iterations[0].metrics | has("trace.kmem:mm_page_alloc") | not'
no_leftover_domains
echo ok
