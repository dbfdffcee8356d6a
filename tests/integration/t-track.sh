# mmlab track over an explicit list of 12 points of the distro kernel where
# one boot setting changes at a known point (THP enabled always -> never
# from the 7th kernel on): the change point is found there, confirmed by
# measuring k06 and k07 again together, and is the only change reported.
# A kill -9 in the middle of the measuring, then 'track run' again: every
# point has exactly one run, every run its iterations once.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
cat >"$T/job.yaml" <<'JOB'
name: thp-usemem
variants:
  - name: base
    kernel: distro
    thp: { enabled: always, defrag: madvise }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: usemem, params: { threads: 1, size: 64M, loops: 1 } }
iterations: 2
timeouts: { boot: 120s, iteration: 300s }
JOB
{
	echo "name: thp-list"
	echo "kernels:"
	echo "  list:"
	for i in $(seq -w 1 12); do
		if [ "$i" -ge 07 ]; then
			echo "    - { name: k$i, kernel: distro, thp: { enabled: never } }"
		else
			echo "    - { name: k$i, kernel: distro }"
		fi
	done
	echo "jobs: [job.yaml]"
	echo "iterations: 2"
	# counters the setting moves for certain (pgfault: 4 KiB faults instead
	# of 2 MiB ones), and the other thp_* counters, constant or mostly zero;
	# times are left out: on a loaded 2-core host they drift
	echo "watch: ['vmstat.thp_*', 'vmstat.pgfault']"
	echo "confirm: { max_iterations: 4 }"
} >"$T/track.yaml"

# a bad track file: refused with FILE:LINE:COLUMN, nothing added
printf 'name: bad\nkernels: { list: [distro] }\njobs: [nope.yaml]\nwatch: 3\n' >"$T/bad.yaml"
set +e
"$MMLAB" track add "$T/bad.yaml" 2>"$T/bad.err"
rc=$?
set -e
cat "$T/bad.err"
[ $rc = 2 ] || fail "a bad track file gave exit $rc"
grep -q "bad.yaml:2:[0-9]*: error: kernels.list: 1 points" "$T/bad.err" ||
	fail "no located error for a one-point list"
grep -q "bad.yaml:4:[0-9]*: error: watch" "$T/bad.err" || fail "no located error for watch: 3"
[ ! -e "$MMLAB_RESULTS/tracks/bad" ] || fail "a bad track was added"

"$MMLAB" track add "$T/track.yaml"
state=$MMLAB_RESULTS/tracks/thp-list/state.json

# kill -9 once four kernels are measured
"$MMLAB" track run thp-list --no-bisect >"$T/run1.out" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
	n=$(find "$MMLAB_RESULTS" -path '*/k*/*/iteration.json' 2>/dev/null | wc -l)
	[ "$n" -ge 8 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
kill -9 $pid || fail "track run ended before it could be killed"
wait $pid || true
cat "$T/run1.out"
before=$(find "$MMLAB_RESULTS" -path '*/k*/*/iteration.json' | wc -l)
echo "iterations stored before the kill: $before"
[ "$before" -ge 8 ] && [ "$before" -lt 24 ] || fail "killed at $before iterations, not between 8 and 23"
sleep 2

"$MMLAB" track run thp-list --no-bisect 2>&1 | tee "$T/run2.out"
no_leftover_domains
"$MMLAB" track status thp-list
"$MMLAB" track status thp-list --json >"$T/status.json"

# nothing measured twice: one run per kernel, two iterations each
assert_jq "$T/status.json" '.counts.measured == 12 and .counts.failed == 0'
assert_jq "$T/status.json" '[.runs[][] .run] | unique | length == 12'
made=0
for r in "$MMLAB_RESULTS"/*/run.json; do
	case $(jq -r .job_file "$r") in */tracks/thp-list/jobs/thp-usemem--k*) made=$((made + 1)) ;; esac
done
[ "$made" = 12 ] || fail "$made runs were made for 12 kernels"
n=0
for r in $(jq -r '.runs[][] .run' "$state"); do
	n=$((n + $(find "$MMLAB_RESULTS/$r" -name iteration.json | wc -l)))
done
[ "$n" = 24 ] || fail "$n iterations stored for 12 kernels x 2"

# the change point: at k07 only, confirmed, the only change reported
assert_jq "$state" '[.analysis.candidates[] | select(.significant)] | length >= 1'
assert_jq "$state" '[.analysis.candidates[] | select(.significant) | .after] | unique == ["k07"]'
assert_jq "$state" '[.analysis.candidates[] | select(.metric == "vmstat.pgfault" and .significant) | .after] == ["k07"]'
assert_jq "$state" '.analysis.series_tested >= 4'
assert_jq "$state" '.confirm["thp-usemem/k06..k07"].status == "confirmed"'
assert_jq "$state" '[.confirm["thp-usemem/k06..k07"].tests[] | select(.metric == "vmstat.thp_fault_alloc") | .confirmed] == [true]'
"$MMLAB" track report thp-list --format json >"$T/report.json"
assert_jq "$T/report.json" '.changes | length == 1'
assert_jq "$T/report.json" '.changes[0].key == "thp-usemem/k06..k07"'
assert_jq "$T/report.json" '.changes[0].subject | startswith("[mmlab] thp-list k07: ")'
"$MMLAB" track report thp-list | tee "$T/report.txt"
grep -q '^\[mmlab\] thp-list k07: ' "$T/report.txt" || fail "no subject line in the text report"
grep -q 'mmlab compare ' "$T/report.txt" || fail "no commands in the text report"
grep -q 'vmstat.thp_fault_alloc' "$T/report.txt" || fail "the comparison lacks thp_fault_alloc"
"$MMLAB" track report thp-list --format html -o "$T/report.html"
grep -q '<svg' "$T/report.html" || fail "no chart in the HTML report"
grep -q 'constant series' "$T/report.html" || true
"$MMLAB" track report thp-list --format mbox >"$T/report.mbox"
# the change is a fall of thp_fault_alloc, a regression if it is the primary metric
if [ -s "$T/report.mbox" ]; then
	head -1 "$T/report.mbox" | grep -q '^From ' || fail "mbox does not start with a From line"
	grep -q '^Subject: \[mmlab\] thp-list k07: ' "$T/report.mbox" || fail "no Subject in mbox"
fi
# the runs are ordinary runs: compare works on the confirmation run
"$MMLAB" compare "$(jq -r '.confirm["thp-usemem/k06..k07"].run' "$state")" >"$T/cmp.txt"
grep -q thp_fault_alloc "$T/cmp.txt" || fail "compare of the confirmation run"
# a second run measures nothing new
"$MMLAB" track run thp-list --no-bisect >"$T/run3.out" 2>&1
grep -q 'to measure through the queue' "$T/run3.out" && fail "the third run measured again"
echo ok
