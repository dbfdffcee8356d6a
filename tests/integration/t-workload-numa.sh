# numamigrate on 2 nodes: AutoNUMA migrates pages and move_pages(2) moves
# every page it was asked to; compact (node mode) stores its metrics.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job numa '{ name: numamigrate, params: { size: 8M, wait_s: 25 } }')
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
m="$it.metrics"
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" "$m[\"vmstat.numa_pages_migrated\"] > 0"
assert_jq "$T/r.json" "$m[\"numamigrate.move_pages_moved\"] == $m[\"numamigrate.move_pages_requested\"]"
assert_jq "$T/r.json" "$m[\"numamigrate.move_pages_requested\"] == 2048"
for k in converged converge_s local_pct_end autonuma_hint_faults autonuma_pages_migrated \
	move_pages_per_s; do
	assert_jq "$T/r.json" "$m | has(\"numamigrate.$k\")"
done

j=$(job compact '{ name: compact, params: { mode: node, node: 1, size: 60% } }')
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/c.json"
assert_jq "$T/c.json" "$it.status == \"ok\""
for k in time_s unusable_before unusable_after free_blocks_before free_blocks_after \
	thp_tries thp_success_pct; do
	assert_jq "$T/c.json" "$m | has(\"compact.$k\")"
done
assert_jq "$T/c.json" "$m[\"vmstat.compact_migrate_scanned\"] > 0"
no_leftover_domains
echo ok
