# mmlab repro: a recipe whose expectation holds (the crash workload, crash:
# true) is REPRODUCED (exit 0); one that cannot hold is NOT REPRODUCED
# (exit 1); a flaky one (a seeded crash in 1 of 3 runs, k = 2) is
# INCONCLUSIVE (exit 3); the verdicts are stored with the run.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"

recipe() {	# recipe NAME BODY [VARIANTS]: the bug, the variants, 2x256M
	local v=${3:-}

	[ -n "$v" ] || v='[ { name: bad, kernel: distro } ]'
	cat >"$T/$1.yaml" <<R
bug: { id: "test#$1", title: "integration test $1" }
variants: $v
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
timeouts: { boot: 300s, iteration: 600s }	# room for a loaded host
$2
R
	echo "$T/$1.yaml"
}

# --- REPRODUCED: the guest panics, the console shows the sysrq crash
r=$(recipe crashes 'workload: { name: crash }
runs: 1
expect:
  - { crash: true }
  - { dmesg: "sysrq: Trigger a crash|Kernel panic" }')
set +e
"$MMLAB" repro "$r" --json >"$T/crashes.json"; rc=$?
set -e
[ $rc = 0 ] || fail "crash recipe: exit $rc, expected 0 (REPRODUCED)"
assert_jq "$T/crashes.json" '.repro.verdict == "REPRODUCED"'
assert_jq "$T/crashes.json" '.repro.variants[0].expect[0].met == 1'
assert_jq "$T/crashes.json" '.repro.variants[0].runs_table[0].status == "crashed"'
assert_jq "$T/crashes.json" '.repro.variants[0].runs_table[0].results[1].lines | length >= 1'
# stored like a run, with the recipe and the verdict in run.json
run=$(jq -r .run "$T/crashes.json")
"$MMLAB" results show --json "$run" >"$T/stored.json"
assert_jq "$T/stored.json" '.recipe.bug.id == "test#crashes" and .repro.verdict == "REPRODUCED"'
"$MMLAB" repro --show "$run" >"$T/show.txt" || fail "repro --show exit $?"
grep -q "verdict: REPRODUCED" "$T/show.txt" || fail "repro --show: $(cat "$T/show.txt")"

# --- NOT REPRODUCED: usemem finishes; elapsed time is never negative and
# the console never says so; a known-good variant gets compared
r=$(recipe never 'good: good
workload: { name: usemem, params: { size: 16M } }
runs: 1
expect:
  - { metric: "time.elapsed_s", op: "<", value: 0 }
  - { dmesg: "this line is never printed by any kernel" }' \
	'[ { name: bad, kernel: distro }, { name: good, kernel: distro } ]')
set +e
"$MMLAB" repro "$r" >"$T/never.txt"; rc=$?
set -e
cat "$T/never.txt"
[ $rc = 1 ] || fail "impossible recipe: exit $rc, expected 1 (NOT REPRODUCED)"
grep -q "^verdict: NOT REPRODUCED" "$T/never.txt" || fail "no NOT REPRODUCED verdict"
grep -q "against the known-good variant" "$T/never.txt" || fail "no comparison with good"

# --- INCONCLUSIVE: crash with probability 50 and seed 2 draws 57, 27, 73
# for iterations 0, 1, 2 (workloads/crash.c): crashes in run 1 only; k = 2
r=$(recipe flaky 'workload: { name: crash, params: { probability: 50, seed: 2 } }
runs: 3
expect:
  - { crash: true, k: 2 }')
set +e
"$MMLAB" repro "$r" --json >"$T/flaky.json"; rc=$?
set -e
[ $rc = 3 ] || fail "flaky recipe: exit $rc, expected 3 (INCONCLUSIVE)"
assert_jq "$T/flaky.json" '.repro.verdict == "INCONCLUSIVE"'
assert_jq "$T/flaky.json" '[.repro.variants[0].runs_table[] | .status] == ["ok", "crashed", "ok"]'
assert_jq "$T/flaky.json" '.repro.variants[0].expect[0].met == 1 and .repro.variants[0].expect[0].not_met == 2'

# --- a bad recipe exits 2 with its location, before anything boots
printf 'bug: { id: x, title: y }\nvariants: [ { name: a } ]\ntopology: { nodes: 1, memory_per_node: 256M }\nworkload: { name: noop }\nexpect:\n  - { crash: true, k: 9 }\n' >"$T/bad.yaml"
set +e
"$MMLAB" repro "$T/bad.yaml" 2>"$T/bad.err"; rc=$?
set -e
[ $rc = 2 ] || fail "bad recipe: exit $rc, expected 2"
grep -q "bad.yaml:6:23: error: expect\[0\].k: 9 is more than runs (5)" "$T/bad.err" || fail "bad recipe: $(cat "$T/bad.err")"
no_leftover_domains
echo ok
