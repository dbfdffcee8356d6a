# A bug report's C reproducer as the workload (jobs/own-reproducer.yaml,
# with fewer iterations): built statically on the host, run on a 2-node
# guest from the initramfs on two variants, its regex metrics stored and
# compared with their directions next to the Ops and Duration rows.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
mkdir -p "$T/jobs/files"
cp "$MMLAB_SRCDIR/jobs/files/thp-compact-repro.c" "$T/jobs/files/"
sed 's/^iterations: 3$/iterations: 2\niterations_per_boot: 2/' \
	"$MMLAB_SRCDIR/jobs/own-reproducer.yaml" >"$T/jobs/own-reproducer.yaml"
"$MMLAB" run "$T/jobs/own-reproducer.yaml" 2>"$T/err" || fail "run failed: $(tail -20 "$T/err")"
grep -q "workload.build: compiled thp-compact-repro, static" "$T/err" || fail "no build: $(cat "$T/err")"
"$MMLAB" results show --json >"$T/r.json"
run=$(jq -r .run "$T/r.json")
for v in 0 1; do
	for i in 0 1; do
		it=".variants[$v].iterations[$i]"
		assert_jq "$T/r.json" "$it.status == \"ok\" and $it.exit == 0"
		assert_jq "$T/r.json" "$it.metrics[\"repro.huge_pct\"] >= 0 and $it.metrics[\"repro.huge_pct\"] <= 100"
		assert_jq "$T/r.json" "$it.metrics[\"repro.fault_avg_us\"] > 0"
		assert_jq "$T/r.json" "$it.metrics[\"time.elapsed_s\"] > 0 and ($it.metrics | has(\"vmstat.pgfault\"))"
		assert_jq "$T/r.json" "$it.output.stdout.bytes > 0 and $it.output.stdout.dropped == 0"
	done
done
name0=$(jq -r '.variants[0].name' "$T/r.json")
grep -q "^faults: [0-9]* ranges of 2 MB, huge:" "$MMLAB_RESULTS/$run/$name0/0/stdout" || fail "stdout not stored"
# a 2-node guest
assert_jq "$T/r.json" '.variants[0].iterations[0].guest.nodes | length == 2'
# the extractors' directions reach compare; Ops and Duration rows are there
"$MMLAB" compare "$run" --format json --metrics '*' >"$T/c.json"
m() { echo ".metrics[] | select(.name == \"$1\")"; }
assert_jq "$T/c.json" "$(m repro.huge_pct) | .direction == \"higher\" and .kind == \"main\" and .group == \"workload\""
assert_jq "$T/c.json" "$(m repro.fault_avg_us) | .direction == \"lower\""
assert_jq "$T/c.json" "$(m repro.huge_pct) | .variants | length == 2 and all(.n == 2)"
assert_jq "$T/c.json" "$(m time.elapsed_s) | .kind == \"duration\""
assert_jq "$T/c.json" "$(m vmstat.pgfault) | .kind == \"ops\""
"$MMLAB" compare "$run" >"$T/c.txt"
grep -q "repro.huge_pct" "$T/c.txt" || fail "no repro.huge_pct row: $(cat "$T/c.txt")"
no_leftover_domains
echo ok
