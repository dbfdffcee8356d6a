# Metric mode: between good e2e-c1 and bad e2e-c5, the commit that makes
# kcompactd's periodic wakeups count in compact_daemon_wake is c5. git's
# first pick is c3, which does not build: skipped, with the build log;
# then c4 (and c2 when git picks it) is good and c5 is the first bad
# commit. The run is killed -9
# while c4's VM runs and started again: the same answer, c4's run resumed
# (not a second one), no finished step measured or built again. Then the
# log replays to the same answer with no build and no run.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/job.yaml" <<JOB
name: bisect-wake
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: k, ref: e2e-c4 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: compact, params: { mode: proactive, window_s: 10, size: 32M } }
iterations: 3
iterations_per_boot: 3
timeouts: { boot: 300s, iteration: 600s }
JOB
sha() { git -C "$REPO" rev-parse "$1"; }
c1=$(sha e2e-c1) c3=$(sha e2e-c3) c4=$(sha e2e-c4) c5=$(sha e2e-c5)

# bad input first: clear errors, nothing started
rc=0
"$MMLAB" bisect start --job "$T/job.yaml" --good e2e-c1 --bad e2e-c5 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--metric" "$T/err" || fail "start without a mode: exit $rc"
rc=0
"$MMLAB" bisect start --job "$T/job.yaml" --good e2e-nope --bad e2e-c5 --metric x 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q "e2e-nope" "$T/err" || fail "an unknown ref: exit $rc"
rc=0
"$MMLAB" bisect run 2>"$T/err" || rc=$?
[ "$rc" = 2 ] && grep -q "no bisection" "$T/err" || fail "run with nothing started: exit $rc"

"$MMLAB" bisect start --job "$T/job.yaml" --good e2e-c1 --bad e2e-c5 \
	--metric vmstat.compact_daemon_wake --direction lower --min-change 50% | tee "$T/start.out"
grep -q "Bisecting:" "$T/start.out" || fail "start did not say what git will test"
id=$("$MMLAB" bisect status --json | jq -r .params.id)

# run until c4's VM is up, then kill -9
"$MMLAB" bisect run >"$T/run1.out" 2>&1 &
pid=$!
killed=0
for _ in $(seq 1 2400); do
	seq=$("$MMLAB" bisect status --json 2>/dev/null |
	      jq -r ".steps[] | select(.role == \"step\" and .commit == \"$c4\") | .seq" || true)
	if [ -n "$seq" ] && ls -d "$MMLAB_RESULTS"/*-bisect-$id-$seq-0-*/ >/dev/null 2>&1; then
		sleep 8
		kill -9 $pid
		killed=1
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
wait $pid || true
cat "$T/run1.out"
[ "$killed" = 1 ] || fail "the run ended before c4's step started"
no_leftover_domains
"$MMLAB" bisect status | tee "$T/status.out"
grep -q "in progress: step ${c4:0:12}" "$T/status.out" || fail "status does not show c4 in progress"
runs() { ls "$MMLAB_RESULTS"/*/run.json | wc -l; }
makes() { ls "$MMLAB_CACHE"/kernels/logs | wc -l; }
runs_before=$(runs) makes_before=$(makes)

# again: resumes c4's run and finishes
"$MMLAB" bisect run --json >"$T/result.json" 2>"$T/run2.err" || {
	cat "$T/run2.err"; fail "the second bisect run failed"; }
cat "$T/run2.err"
grep -q "resuming run" "$T/run2.err" || fail "c4's run was not resumed"
assert_jq "$T/result.json" ".first.commit == \"$c5\""
assert_jq "$T/result.json" ".first.subject | startswith(\"c5:\")"
# endpoints c1 and c5 first, then c3 (git's first pick) skipped because
# its build fails, then good steps (c4, and c2 when git picks it after the
# skip); every commit measured once
assert_jq "$T/result.json" ".steps[0].commit == \"$c1\" and .steps[1].commit == \"$c5\""
assert_jq "$T/result.json" ".steps[2].commit == \"$c3\" and .steps[2].verdict == \"skip\""
assert_jq "$T/result.json" ".steps[2].why | test(\"build failed\")"
assert_jq "$T/result.json" "[.steps[3:][] | .verdict] | unique == [\"good\"]"
assert_jq "$T/result.json" "[.steps[] | .commit] | index(\"$c4\") != null"
assert_jq "$T/result.json" "[.steps[] | .commit] | length == (unique | length)"
assert_jq "$T/result.json" ".steps[] | select(.commit == \"$c4\") | .runs | length == 1"
assert_jq "$T/result.json" ".steps[] | select(.commit == \"$c4\") | .n == 3"
assert_jq "$T/result.json" ".steps[0].mean < 1 and .steps[1].mean >= 2"
assert_jq "$T/result.json" ".confidence_value > 0.9"
assert_jq "$T/result.json" ".vm_runs == 3 * ([.steps[] | select(.verdict != \"skip\")] | length)"
# no new run but c4's (resumed in place), no make for the finished steps
[ "$(runs)" = "$runs_before" ] || fail "the second run made new runs instead of resuming"
[ "$(makes)" = "$makes_before" ] || fail "make ran again"
# the measured runs are whole (the skipped c3's run is a failed build)
for r in $(jq -r '.steps[] | select(.verdict != "skip") | .runs[]' "$T/result.json"); do
	"$MMLAB" results show --json "$r" >"$T/r.json"
	assert_jq "$T/r.json" '.status == "complete"'
done
assert_jq "$T/result.json" '[.steps[] | .runs | length] | all(. == 1)'

# the printed result: the first bad commit and the table
"$MMLAB" bisect run >"$T/again.out"
grep -q "first bad commit: $c5" "$T/again.out" || fail "bisect run does not print the answer"
grep -q "confidence:" "$T/again.out" || fail "no confidence statement"

# the log replays to the same answer without building or running
"$MMLAB" bisect log >"$T/bisect.log"
grep -q "^git bisect skip $c3" "$T/bisect.log" || fail "the log lacks the skip of c3"
"$MMLAB" bisect reset
"$MMLAB" bisect replay "$T/bisect.log" --json >"$T/replay.json"
assert_jq "$T/replay.json" ".first.commit == \"$c5\""
assert_jq "$T/replay.json" "[.steps[].commit] == $(jq -c '[.steps[].commit]' "$T/result.json")"
[ "$(runs)" = "$runs_before" ] || fail "replay ran something"
[ "$(makes)" = "$makes_before" ] || fail "replay built something"
"$MMLAB" bisect reset
echo ok
