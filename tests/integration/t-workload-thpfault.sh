# thpfault on a fragmented 2-node guest with defrag "always": compaction
# shows in vmstat and in the hist-trigger count of mm_compaction_begin;
# every thpfault metric, the collectors' metrics and a 1 Hz time series
# are stored. Then an unknown tracepoint stops a run before any iteration.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job thp '{ name: thpfault, params: { threads: [1, 2], size: 70% } }' "" \
	'collectors: { tracepoints: ["compaction:*", "migrate:mm_migrate_pages"] }')
sed -i 's/kernel: distro }/kernel: distro, thp: { enabled: always, defrag: always } }/' "$j"
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
m="$it.metrics"
assert_jq "$T/r.json" "($m[\"vmstat.compact_stall\"] // 0) > 0 or ($m[\"vmstat.compact_migrate_scanned\"] // 0) > 0"
assert_jq "$T/r.json" "$m[\"trace.compaction:mm_compaction_begin\"] > 0"
assert_jq "$T/r.json" "$m | has(\"trace.migrate:mm_migrate_pages\")"
for t in 1 2; do
	for k in fault_huge_us fault_huge_us_p50 fault_huge_us_p90 fault_huge_us_p99 \
		huge_pct local_pct faults; do
		assert_jq "$T/r.json" "$m | has(\"thpfault.$k.T$t\")"
	done
done
assert_jq "$T/r.json" "$m[\"thpfault.huge_pct.T1\"] > 0"
assert_jq "$T/r.json" "$m | has(\"thpfault.region_mb\")"
assert_jq "$T/r.json" "$m | has(\"kthread.kcompactd0.cpu_s\") and has(\"kthread.khugepaged.cpu_s\")"
assert_jq "$T/r.json" "$m[\"dmesg.warnings\"] >= 0 and $m[\"dmesg.oopses\"] == 0"
# one sample per second of the measured phase (+-1)
assert_jq "$T/r.json" "$it.timeseries.interval_s == 1"
assert_jq "$T/r.json" "($it.timeseries.series[\"vmstat.nr_free_pages\"] | length) as \$n |
	($m[\"time.elapsed_s\"]) as \$e | (\$n - \$e) >= -1 and (\$n - \$e) <= 2"
assert_jq "$T/r.json" "$it.timeseries.series | has(\"node1.vmstat.nr_free_pages\")"

# an unknown tracepoint: a clear error, exit 2, no iteration stored
j=$(job badtp '{ name: noop }' "" 'collectors: { tracepoints: ["compaction:no_such_event"] }')
set +e
"$MMLAB" run "$j" 2>"$T/err"
rc=$?
set -e
cat "$T/err"
[ "$rc" = 2 ] || fail "unknown tracepoint: exit $rc, expected 2"
grep -q "tracepoint 'compaction:no_such_event' matches no event" "$T/err" || fail "no clear message"
no_leftover_domains
echo ok
