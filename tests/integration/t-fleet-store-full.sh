# The shared results directory fills up during a Slurm task (issue 31),
# through the real Slurm of this host: the store is a small tmpfs (the
# test is root), filled with a ballast file while the task's guest runs,
# as when another writer takes the file server's last blocks; the ballast
# is removed once Slurm has ended the run's jobs (an administrator's fix).
# What must hold:
#  - the task fails (its iteration cannot be stored), no guest is left;
#  - nothing half-written is taken as a result: no iteration.json, no
#    temporary file in the run, and the store's files are valid JSON;
#  - the task's record could not be written after the fault: it is still
#    `running` (its last heartbeat), and the submitting host's
#    `queue status` then says what happened: the boot failed (Slurm's
#    FAILED), and `results show` does not call the run complete;
#  - the run can be measured again: `mmlab run --resume` on this host
#    completes it, its iteration stored once.
# Every Slurm job runs under the guard (tests/slurm.sh).
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
store="$T/small"
mkdir -p "$store"
mount -t tmpfs -o size=32m mmlab-itest-full "$store"
export MMLAB_RESULTS="$store/results"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm
trap 'rc=$?; set +e; while umount -l "$store" 2>/dev/null; do :; done; (exit $rc); stop_slurm' EXIT
V="virsh -c qemu:///system"
j=$(job full '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
run=$(jq -r '.[0].run' "$T/sub.json")
fin=$(jq -r '.[0].finish_job' "$T/sub.json")
wait_task_guest "$run"
echo "the store fills up while $dom runs"
dd if=/dev/zero of="$store/ballast" bs=64k 2>/dev/null || true
df -k "$store"
[ "$(df --output=avail -k "$store" | tail -n 1 | tr -d ' ')" = 0 ] || fail "the store is not full"
cp "$rec" "$T/rec-at-fault.json"
wait_slurm_job "$fin" 600
# while full: nothing of the boot was taken as a result
[ ! -e "$MMLAB_RESULTS/$run/base/0/iteration.json" ] || fail "an iteration was stored on a full store"
ls -la "$MMLAB_RESULTS/$run" "$MMLAB_RESULTS/$run/tasks"
find "$MMLAB_RESULTS/$run/base" -ls || true
# the submitting host's index cannot grow on a full store: a clear error,
# naming the full filesystem, not a damaged file
if "$MMLAB" queue status --json >"$T/st-full.json" 2>"$T/st-full.err"; then
	jq -c '.[0].counts' "$T/st-full.json"
else
	cat "$T/st-full.err"
	grep -q "filesystem is full" "$T/st-full.err" || fail "queue status on a full store does not say so"
	! grep -q integrity_check "$T/st-full.err" || fail "a full store is called damaged"
fi
rm "$store/ballast"
# the task's guest is gone
[ -z "$($V list --all --name | grep "^mmlab-$run-")" ] || fail "domains left"
[ ! -e "$MMLAB_RESULTS/$run/base/0/iteration.json" ] || fail "an iteration was stored on a full store"
left=$(find "$MMLAB_RESULTS/$run" -name '*.tmp.*' -o -name '*.tmp' -o -name '.import-*')
[ -z "$left" ] || fail "temporary files in the run: $left"
for f in "$MMLAB_RESULTS/$run/run.json" "$MMLAB_RESULTS/$run"/tasks/*.json; do
	jq -e . "$f" >/dev/null || fail "$f is not JSON"
done
cmp -s "$rec" "$T/rec-at-fault.json" || jq -e '.state == "running"' "$rec" >/dev/null ||
	fail "a record was written on a full store: $(cat "$rec")"
# what the submitting host says of it, the index whole
"$MMLAB" queue status --json >"$T/st.json"
jq '.[0].items' "$T/st.json"
assert_jq "$T/st.json" '.[0].counts.failed == 1 and (.[0].counts.done // 0) == 0'
assert_jq "$T/st.json" '[.[0].items[] | select(.kind == "boot")][0] | .slurm_state == "FAILED" and .task.state == "running"'
"$MMLAB" queue status >"$T/st.txt"
cat "$T/st.txt"
[ "$(sqlite3 "$MMLAB_RESULTS/mmlab.db" 'PRAGMA integrity_check')" = ok ] || fail "mmlab.db is damaged"
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status != "complete"'
assert_jq "$T/r.json" '[.variants[].iterations[]] | length == 0'
# the files left in base/0 (a cut-short console.log) are no iteration,
# for the index rebuilt from the files too
"$MMLAB" results reindex >/dev/null
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status != "complete" and ([.variants[].iterations[]] | length) == 0'
# measured again on this host, the run completes, its iteration stored once
"$MMLAB" run --resume "$run" >"$T/resume.out" 2>&1 || { cat "$T/resume.out"; fail "run --resume failed"; }
"$MMLAB" results show --json "$run" >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete" and ([.variants[].iterations[]] | length) == 1'
assert_jq "$T/r2.json" '.variants[0].iterations[0].status == "ok"'
no_leftover_domains
echo ok
