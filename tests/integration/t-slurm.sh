# Slurm: a real single-host Slurm (slurmctld, slurmd, munged) configured
# here on loopback; "mmlab submit --slurm" runs a 2-variant job as array
# tasks whose results "mmlab compare" reads like a local run's.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm

j=$(job slurmjob '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }' \
	'iterations_per_boot: 1')
sed -i 's/^iterations: 1/iterations: 2/' "$j"
sed -i 's/^  - { name: base, kernel: distro }/  - { name: base, kernel: distro }\n  - { name: other, kernel: distro }/' "$j"
# bad input is refused before anything is submitted
set +e
"$MMLAB" submit --slurm --partition 'x;y' "$j" 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "bad partition gave exit $rc"
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
cat "$T/sub.json"
assert_jq "$T/sub.json" 'length == 1 and .[0].boots == 4'
run=$(jq -r '.[0].run' "$T/sub.json")
fin=$(jq -r '.[0].finish_job' "$T/sub.json")
# queue run leaves Slurm's work alone
"$MMLAB" queue run
"$MMLAB" queue status --json >"$T/st0.json"
assert_jq "$T/st0.json" '.[0].slurm.array != null and (.[0].slurm.states | length) >= 1'
"$MMLAB" queue status
# wait for the finishing job to leave the queue
wait_slurm_job "$fin" 600
cat "$MMLAB_RESULTS/$run"/slurm/*.out || true
"$MMLAB" queue status --json >"$T/st1.json"
"$MMLAB" queue status --items
assert_jq "$T/st1.json" '.[0].counts.done == 4'
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" 'all(.variants[].iterations[]; .status == "ok" and .boot.placement.slurm_job != null)'
assert_jq "$T/r.json" '[.variants[].iterations[]] | length == 4'
"$MMLAB" compare --format json "$run" >"$T/cmp.json"
jq -e 'tostring | test("other")' "$T/cmp.json" >/dev/null || fail "compare does not show variant other"
"$MMLAB" compare "$run"
[ -z "$(virsh -c qemu:///system list --all --name | grep "^mmlab-$run-")" ] || fail "domains left"
echo ok
