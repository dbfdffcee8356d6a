#!/bin/bash
# A bisection over a list of kernels (bisect start --kernels; docs/bisect.md,
# "A list of kernels"): five entries of the same Debian kernel package, the
# third on booted with one more command-line word. Pass/fail mode on that
# word in the console names the third entry, k3, with no git at all; the
# status, the log and a second 'run' say the same; 'start' refuses a list
# with a wrong entry before anything boots.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
command -v apt-cache >/dev/null || { echo "needs apt-cache"; exit 77; }
P=linux-image-6.1.0-47-amd64
V=$(apt-cache policy "$P" | sed -n 's/^ *Candidate: \([0-9].*\)$/\1/p')
[ -n "$V" ] || { echo "apt knows no $P (apt-get update?)"; exit 77; }

cat >"$T/job.yaml" <<JOB
name: bisect-kernels
variants:
  - { name: k, kernel: distro }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 1
iterations_per_boot: 1
timeouts: { boot: 300s, iteration: 120s }
JOB
# oldest first; every form of entry a list takes
cat >"$T/kernels.yaml" <<LIST
- $P
- { package: $P, version: "$V" }
- { kernel: { package: $P }, cmdline: mmlab_bisect_marker=1 }
- { kernel: "$P=$V", cmdline: mmlab_bisect_marker=1 }
- { kernel: $P, cmdline: mmlab_bisect_marker=1 }
LIST

# a wrong entry is refused at start, naming it, and leaves no bisection
printf -- '- %s\n- { kernel: %s, colour: red }\n' "$P" "$P" >"$T/bad.yaml"
if "$MMLAB" bisect start --job "$T/job.yaml" --kernels "$T/bad.yaml" \
	--signature dmesg:mmlab_bisect_marker --n 1 2>"$T/bad.err"; then
	fail "a list with an unknown key was accepted"
fi
grep -q "entry 2: unknown key 'colour'" "$T/bad.err" || fail "the refusal does not name the entry: $(cat "$T/bad.err")"
[ -e "$MMLAB_RESULTS/bisect/bisect.db" ] && fail "a refused start left a bisection"
if "$MMLAB" bisect start --job "$T/job.yaml" --kernels "$T/kernels.yaml" --good x \
	--signature dmesg:mmlab_bisect_marker --n 1 2>"$T/both.err"; then
	fail "--kernels with --good was accepted"
fi

"$MMLAB" bisect start --job "$T/job.yaml" --kernels "$T/kernels.yaml" \
	--signature dmesg:mmlab_bisect_marker --n 1 --k 1 | tee "$T/start.out"
grep -q "over the 5 kernels of" "$T/start.out" || fail "start does not say it bisects the list"
grep -q "Bisecting: 2 revisions left" "$T/start.out" || fail "start does not say what is left"
"$MMLAB" bisect run --json >"$T/result.json"
assert_jq "$T/result.json" '.mode == "signature" and .first.commit == "k3"'
assert_jq "$T/result.json" ".first.kernel.kernel.package == \"$P\""
assert_jq "$T/result.json" '.first.kernel.cmdline == "mmlab_bisect_marker=1"'
assert_jq "$T/result.json" '.range_commits == 4 and .log2_range == 2'
assert_jq "$T/result.json" '[.steps[] | .commit] == ["k1", "k5", "k3", "k2"]'
assert_jq "$T/result.json" '[.steps[] | .verdict] == ["good", "bad", "bad", "good"]'
assert_jq "$T/result.json" '.vm_runs == 4'
# each step ran that package's kernel
for id in $(jq -r '.steps[].runs[]' "$T/result.json"); do
	"$MMLAB" results show --json "$id" >"$T/step.json"
	assert_jq "$T/step.json" ".variants[0].kernel.package.name == \"$P\""
	assert_jq "$T/step.json" '.variants[0].iterations[0].guest.kernel_release == "6.1.0-47-amd64"'
done
"$MMLAB" bisect status >"$T/status.out"
grep -q "status: done" "$T/status.out" || fail "status does not say done: $(cat "$T/status.out")"
"$MMLAB" bisect log >"$T/bisect.log"
grep -q "k3 is the first bad commit" "$MMLAB_RESULTS/bisect/bisect.db" 2>/dev/null ||
	grep -q '"commit":"k3"' "$T/bisect.log" || fail "the log lacks the steps"
# run again: the same answer, nothing booted
"$MMLAB" bisect run --json >"$T/again.json"
assert_jq "$T/again.json" '.first.commit == "k3" and .vm_runs == 4'
"$MMLAB" bisect reset
echo ok
