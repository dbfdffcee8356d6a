# A command workload that misbehaves, on the initramfs (docs/workloads.md,
# "Outputs, failures and bounds"): tests/integration/own/hostile.c exits
# 3, dies of SIGSEGV, writes 1 GB of binary garbage, forks away into a
# session of its own and never ends. Each iteration is stored with its
# status, exit/signal, a reason naming it and the end of stderr; 1 GB is
# kept as its first and last 64 KiB; the timeout fires and nothing the
# program started survives into the next iteration; no domain is left.
# Before any boot: a compile error, a dynamically linked program and a
# shell on the initramfs are refused with exit 2.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
src="$MMLAB_SRCDIR/tests/integration/own/hostile.c"

# --- refused before boot (no domain is created for these)
printf 'int main(void) { return nope; }\n' >"$T/bad.c"
j=$(job badc "{ command: [bad], build: { c: $T/bad.c } }")
set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 2 ] || fail "compile error: exit $rc, expected 2"
grep -q "^$j:5:.*: error: workload.build: gcc exited with status 1 (compiling); its output:" "$T/err" ||
	fail "no located compile error: $(cat "$T/err")"
grep -q "nope" "$T/err" || fail "the compiler's output is not shown: $(cat "$T/err")"
cp /bin/true "$T/dyn"
j=$(job dyn "{ command: [dyn], files: [$T/dyn] }")
set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 2 ] && grep -q "is dynamically linked: it needs /lib.*ld-linux.* which the initramfs does not have; link it with -static" "$T/err" ||
	fail "a dynamic program was not refused: rc $rc, $(cat "$T/err")"
j=$(job sh "{ command: [/bin/sh, -c, 'echo x 1'] }")
set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 2 ] && grep -q "/bin/sh is not in the initramfs" "$T/err" ||
	fail "/bin/sh on the initramfs was not refused: rc $rc, $(cat "$T/err")"
# the results store's index may exist; no run directory may
left=$(find "$MMLAB_RESULTS" -mindepth 1 -maxdepth 1 -type d 2>/dev/null)
[ -z "$left" ] || fail "a refused job left a run: $left"

# --- exit 3, SIGSEGV, 1 GB of garbage: one boot
j=$(job bad3 "{ command: [hostile, \"0\"], build: { c: $src }, metrics: { from: stdout }, timeout: 10m }" \
	"{ nodes: 2, cpus_per_node: 1, memory_per_node: 256M }" \
	"iterations_per_boot: 3")
sed -i 's/^iterations: 1$/iterations: 3/; s/iteration: 300s/iteration: 15m/' "$j"
set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 1 ] || fail "exit $rc, expected 1 (iterations failed): $(tail -5 "$T/err")"
grep -q "base iteration 0: the program exited with status 3; the end of its stderr:" "$T/err" ||
	fail "the failure is not on the terminal: $(cat "$T/err")"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations'
assert_jq "$T/r.json" "$it[0].status == \"failed\" and $it[0].exit == 3"
assert_jq "$T/r.json" "$it[0].reason | test(\"exited with status 3; the end of its stderr:\\nhostile: giving up with status 3\")"
assert_jq "$T/r.json" "$it[0].metrics[\"hostile.value\"] == 3 and ($it[0].metrics | has(\"time.elapsed_s\"))"
assert_jq "$T/r.json" "$it[1].status == \"failed\" and $it[1].signal == 11"
assert_jq "$T/r.json" "$it[1].reason | test(\"killed by signal 11 \\\\(Segmentation fault\\\\); the end of its stderr:\\nhostile: about to crash\")"
assert_jq "$T/r.json" "$it[2].status == \"ok\" and $it[2].metrics[\"hostile.value\"] == 42"
assert_jq "$T/r.json" "$it[2].output.stdout.bytes > 1073741824 and $it[2].output.stdout.stored <= 131072"
assert_jq "$T/r.json" "$it[2].output.stdout.dropped == $it[2].output.stdout.bytes - $it[2].output.stdout.stored"
run=$(jq -r .run "$T/r.json")
size=$(stat -c %s "$MMLAB_RESULTS/$run/base/2/stdout")
[ "$size" -lt 140000 ] || fail "1 GB of stdout stored as $size bytes"
grep -aq "mmlab: [0-9]* bytes dropped here" "$MMLAB_RESULTS/$run/base/2/stdout" || fail "no dropped marker"
grep -q "hostile: giving up" "$MMLAB_RESULTS/$run/base/0/stderr" || fail "stderr not stored"

# --- never ends, forks away: the timeout fires, nothing survives it
j=$(job hang "{ command: [hostile, \"3\"], build: { c: $src }, metrics: { from: stdout }, timeout: 20s }" \
	"{ nodes: 2, cpus_per_node: 1, memory_per_node: 256M }" "iterations_per_boot: 2")
sed -i 's/^iterations: 1$/iterations: 2/' "$j"
set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 1 ] || fail "exit $rc, expected 1: $(tail -5 "$T/err")"
# the same source and flags as the last job's: the program comes from the cache
grep -q "workload.build: hostile from the cache" "$T/err" || fail "not cached: $(head -3 "$T/err")"
"$MMLAB" results show --json >"$T/h.json"
assert_jq "$T/h.json" "$it[0].status == \"failed\" and $it[0].timed_out == true and $it[0].signal == 9"
assert_jq "$T/h.json" "$it[0].reason | test(\"ran past its timeout of 20 s and was killed; the end of its stderr:\\nhostile: hanging\")"
assert_jq "$T/h.json" "$it[0].metrics[\"time.elapsed_s\"] >= 20"
assert_jq "$T/h.json" "[$it[0].log[].message | select(test(\"killed [0-9]+ process\\\\(es\\\\) the workload left behind\"))] | length == 1"
# the next iteration of the same boot: nothing of the last one writes alive.txt
assert_jq "$T/h.json" "$it[1].status == \"ok\" and $it[1].metrics[\"hostile.survivor\"] == 0"
no_leftover_domains
echo ok
