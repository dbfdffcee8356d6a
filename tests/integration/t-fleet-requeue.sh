# A node dies mid-task (issue 31), through the real Slurm of this host:
# once the array task's guest runs, `scontrol requeue` kills the task's
# step as a dead node's would be, and Slurm runs the task again (attempt
# 2, SLURM_RESTART_COUNT=1). The killed attempt's domain is gone, the
# second attempt boots again and stores the iteration; the run completes
# with the iteration in the store once (files, index and queue), and its
# task record says done by attempt 2. Every Slurm job runs under the
# guard (tests/slurm.sh): no SQLite file of the store opened.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm
V="virsh -c qemu:///system"
j=$(job requeue '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
assert_jq "$T/sub.json" 'length == 1 and .[0].boots == 1'
run=$(jq -r '.[0].run' "$T/sub.json")
fin=$(jq -r '.[0].finish_job' "$T/sub.json")
arr=$(jq -r '.[0].slurm.array // empty' "$T/sub.json")
[ -n "$arr" ] || arr=$(squeue -h -o '%F' | grep -v "^$fin\$" | head -1)
# the first attempt's guest runs
wait_task_guest "$run"
assert_jq "$rec" '.state == "running" and .attempt == 1'
echo "requeueing ${arr}_0 while $dom runs"
scontrol requeue "${arr}_0"
# Slurm holds a requeued job back for 120 s (BeginTime); let it start now
for _ in $(seq 1 50); do
	squeue -h -j "${arr}_0" -o %T | grep -q PENDING && break
	sleep 0.2
done
scontrol update JobId="${arr}_0" StartTime=now
# the killed attempt's guest goes (its step and QEMU are killed)
for _ in $(seq 1 150); do
	$V list --name | grep -qx "$dom" || break
	sleep 0.2
done
! $V list --name | grep -qx "$dom" || fail "the killed attempt's domain $dom stayed"
wait_slurm_job "$fin" 600
cat "$MMLAB_RESULTS/$run"/slurm/*.out || true
cat "$rec"
assert_jq "$rec" '.state == "done" and .attempt == 2'
"$MMLAB" queue status --json >"$T/st.json"
assert_jq "$T/st.json" '.[0].counts.done == 1 and (.[0].items | map(select(.kind == "boot")) | length) == 1'
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" '[.variants[].iterations[]] | length == 1'
assert_jq "$T/r.json" '.variants[0].iterations[0].status == "ok"'
# stored once: one iteration directory, one index row
[ "$(ls "$MMLAB_RESULTS/$run/base" | grep -c '^[0-9]')" = 1 ] ||
	fail "iteration directories: $(ls "$MMLAB_RESULTS/$run/base")"
[ "$(sqlite3 "$MMLAB_RESULTS/mmlab.db" "SELECT count(*) FROM iterations WHERE run = '$run'")" = 1 ] ||
	fail "the index holds the iteration more than once"
[ -z "$($V list --all --name | grep "^mmlab-$run-")" ] || fail "domains left"
echo ok
