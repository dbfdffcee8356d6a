# The shared results directory becomes read-only during a Slurm task
# (issue 31), through the real Slurm of this host: the store is a small
# tmpfs (the test is root), made read-only while the task's guest runs,
# and writable again once Slurm has ended the run's jobs (an
# administrator's fix). A remount of the tmpfs read-only is refused while
# files are open for writing (the guest's console, Slurm's output), so a
# read-only bind mount of the store is put over it: every file opened from
# then on, every rename and mkdir, fails with EROFS, as on a file server
# that went read-only; what was open keeps writing. What must hold:
#  - the task fails (its iteration cannot be stored), no guest is left;
#  - nothing half-written is taken as a result: no iteration.json, no
#    temporary file in the run, and the store's files are valid JSON;
#  - the task's last record is its heartbeat from before the fault (it
#    could write nothing after it), and the submitting host's
#    `queue status` then says what happened: the boot failed (Slurm's
#    FAILED), the record stopped beating, and `results show` does not
#    call the run complete;
#  - the run can be measured again: `mmlab run --resume` on this host
#    completes it.
# Every Slurm job runs under the guard (tests/slurm.sh).
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
store="$T/small"
mkdir -p "$store"
mount -t tmpfs -o size=32m mmlab-itest-ro "$store"
export MMLAB_RESULTS="$store/results"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm
trap 'rc=$?; set +e; while umount -l "$store" 2>/dev/null; do :; done; (exit $rc); stop_slurm' EXIT
V="virsh -c qemu:///system"
j=$(job ro '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
run=$(jq -r '.[0].run' "$T/sub.json")
fin=$(jq -r '.[0].finish_job' "$T/sub.json")
wait_task_guest "$run"
echo "the store goes read-only while $dom runs"
mount --bind "$store" "$store"
mount -o remount,bind,ro "$store"
cp "$rec" "$T/rec-at-fault.json"
wait_slurm_job "$fin" 600
umount "$store"
touch "$MMLAB_RESULTS/.rw" && rm "$MMLAB_RESULTS/.rw" || fail "the store is not writable again"
# the task's guest is gone, and nothing of the boot was taken as a result
[ -z "$($V list --all --name | grep "^mmlab-$run-")" ] || fail "domains left"
[ ! -e "$MMLAB_RESULTS/$run/base/0/iteration.json" ] || fail "an iteration was stored on a read-only store"
left=$(find "$MMLAB_RESULTS/$run" -name '*.tmp.*' -o -name '*.tmp' -o -name '.import-*')
[ -z "$left" ] || fail "temporary files in the run: $left"
jq -e . "$MMLAB_RESULTS/$run/run.json" >/dev/null || fail "run.json is not JSON"
cmp -s "$rec" "$T/rec-at-fault.json" || jq -e '.state == "running"' "$rec" >/dev/null ||
	fail "a record was written on a read-only store: $(cat "$rec")"
# what the submitting host says of it
"$MMLAB" queue status --json >"$T/st.json"
jq '.[0].items' "$T/st.json"
assert_jq "$T/st.json" '.[0].counts.failed == 1 and (.[0].counts.done // 0) == 0'
assert_jq "$T/st.json" '[.[0].items[] | select(.kind == "boot")][0] | .slurm_state == "FAILED" and .task.state == "running"'
"$MMLAB" queue status >"$T/st.txt"
cat "$T/st.txt"
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status != "complete"'
assert_jq "$T/r.json" '[.variants[].iterations[] | select(.status == "ok")] | length == 0'
# measured again on this host, the run completes, its iteration stored once
"$MMLAB" run --resume "$run" >"$T/resume.out" 2>&1 || { cat "$T/resume.out"; fail "run --resume failed"; }
"$MMLAB" results show --json "$run" >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete" and ([.variants[].iterations[]] | length) == 1'
assert_jq "$T/r2.json" '.variants[0].iterations[0].status == "ok"'
no_leftover_domains
echo ok
