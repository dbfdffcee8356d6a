# mmlab repro on the shipped recipe whose workload is the reporter's own C
# reproducer (jobs/repro/thp-madvise-fragmented.yaml): the expectation is
# on what the program prints (repro.huge_pct); REPRODUCED on the variant
# with THP defrag "never", NOT REPRODUCED on its control (defrag
# "madvise", whose faults compact), the control's values differing
# significantly. Runs share a boot here (iterations_per_boot), for time.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
mkdir -p "$T/jobs/repro" "$T/jobs/files"
cp "$MMLAB_SRCDIR/jobs/files/thp-compact-repro.c" "$T/jobs/files/"
sed 's/^runs: 3$/runs: 3\niterations_per_boot: 3/' \
	"$MMLAB_SRCDIR/jobs/repro/thp-madvise-fragmented.yaml" >"$T/jobs/repro/r.yaml"
set +e; "$MMLAB" repro "$T/jobs/repro/r.yaml" --json >"$T/r.json" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 0 ] || fail "exit $rc, expected 0 (REPRODUCED): $(tail -20 "$T/err")"
v() { echo ".repro.variants[] | select(.name == \"$1\")"; }
# the values, for the log
jq -r '.repro.variants[] | "\(.name): \(.verdict), repro.huge_pct \([.runs_table[].results[0].value])"' "$T/r.json"
assert_jq "$T/r.json" '.repro.verdict == "REPRODUCED"'
assert_jq "$T/r.json" "$(v bad) | .verdict == \"REPRODUCED\" and .expect[0].met >= 2"
assert_jq "$T/r.json" "$(v control) | .verdict == \"NOT REPRODUCED\" and .expect[0].not_met == 3"
assert_jq "$T/r.json" "$(v bad) | .runs_table[0].results[0].value < 20"
assert_jq "$T/r.json" "$(v control) | .runs_table[0].results[0].value >= 20"
no_leftover_domains
echo ok
