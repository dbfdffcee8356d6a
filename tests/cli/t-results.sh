# `mmlab results` over the fixture store: list (text and JSON), show (the
# latest and by a unique part of the id; text and JSON, which must give
# back every iteration of the fixture), path, and reindex after the index
# was thrown away.
. "$MMLAB_SRCDIR/tests/cli/lib.sh"

expect 0 --results "$T/empty" results list
has "$T/out" 'no runs'
fixture_store

expect 0 results list
has "$T/out" '^RUN +JOB +STATUS +ITERATIONS OK/ALL$'
# newest first: demo (created 2026-12-03) before run1 (no creation time)
[ "$(awk 'NR > 1 { print $1 }' "$T/out" | tr '\n' ' ')" = "$DEMO_RUN $RUN1 " ] ||
	fail "results list order: $(cat "$T/out")"
has "$T/out" "^$DEMO_RUN +demo +complete +6/6$"
has "$T/out" "^$RUN1 +demo +complete +14/15$"
expect 0 results list --json
cp "$T/out" "$T/list.json"
assert_jq "$T/list.json" 'length == 2'
assert_jq "$T/list.json" '.[0] == {run: "'"$DEMO_RUN"'", job: "demo", status: "complete",
	created: "2026-12-03T12:30:05Z", variants: 2, iterations: 6, iterations_ok: 6}'
assert_jq "$T/list.json" '.[1] | .run == "'"$RUN1"'" and .variants == 3 and
	.iterations == 15 and .iterations_ok == 14'

# show: the latest run without RUN; a unique part of an id selects one
expect 0 results show
has "$T/out" "^run $DEMO_RUN$"
has "$T/out" '^job demo \(jobs/demo.yaml\)$'
has "$T/out" '^status complete$'
has "$T/out" '^host: accel tcg '
has "$T/out" '^variant madvise: kernel 6.1.0-57-amd64 '
[ "$(grep -c '^  iteration [0-9]: ok' "$T/out")" = 6 ] || fail "demo shows not 6 ok iterations"
expect 0 results show ab12
has "$T/out" "^run $RUN1$"
has "$T/out" '^variant compactfix: kernel 6.1.0-57-amd64-fix \(/boot/vmlinuz-6.1.0-57-amd64-fix\)$'
has "$T/out" '^  iteration 0: crashed, guest kernel 6.1.0-57-amd64-rev'
[ "$(grep -c '^  iteration [0-9]: ok' "$T/out")" = 14 ] || fail "run1 shows not 14 ok iterations"
# the first iteration of base, as the fixture has it
has "$T/out" '^    usemem.throughput_mbs.T1 +294.4$'
has "$T/out" '^    vmstat.compact_stall +36$'

# show --json gives back the run as stored: each variant's iterations,
# their status and their metrics
expect 0 results show "$RUN1" --json
cp "$T/out" "$T/show.json"
jq -S '[.variants[] | {name, it: [.iterations[] | {status, metrics}]}]' "$FIX/run1.json" \
	>"$T/want"
jq -S '[.variants[] | {name, it: [.iterations[] | {status, metrics}]}]' "$T/show.json" >"$T/got"
cmp -s "$T/want" "$T/got" || fail "results show --json differs from the fixture: $(diff "$T/want" "$T/got" | head)"
assert_jq "$T/show.json" '.run == "'"$RUN1"'" and .status == "complete"'

# path
expect 0 results path ab12
[ "$(cat "$T/out")" = "$MMLAB_RESULTS/$RUN1" ] || fail "results path: $(cat "$T/out")"
expect 0 results path
[ "$(cat "$T/out")" = "$MMLAB_RESULTS/$DEMO_RUN" ] || fail "results path (latest): $(cat "$T/out")"

# the index can be thrown away: reindex makes it again from the files
[ -f "$MMLAB_RESULTS/mmlab.db" ] || fail "no index after results list"
rm -f "$MMLAB_RESULTS"/mmlab.db*
expect 0 results reindex
has "$T/out" "^reindexed 2 runs in $MMLAB_RESULTS from their files$"
expect 0 results list --json
jq -S . "$T/out" >"$T/got"
jq -S . "$T/list.json" >"$T/want"
cmp -s "$T/want" "$T/got" || fail "the list after reindex differs: $(diff "$T/want" "$T/got")"
echo ok
