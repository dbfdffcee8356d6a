# Clocks that differ between hosts (issue 31): a Slurm task's record
# (RESULTS/<run>/tasks/boot-0.json) written as a host whose wall clock is
# hours off writes it: its own host name and boot id, and an mtime hours
# in the past, later hours in the future (the record holds no wall-clock
# time; the file's mtime is the only one, and a client with a skewed
# clock can set it). `queue status` on the submitting host must not
# declare the task dead because the mtime is old, nor alive because it is
# in the future: only a change of beat or mtime is a heartbeat, and the
# age of the last change is measured by this host's monotonic clock.
#
# The 120 s of that clock are not waited for: queue status keeps what it
# saw in queue.db (table notes, "seen RUN TASK": beat, mtime, the
# monotonic time it last changed, this host's boot id); moving that time
# back by 200 s is what 200 s of waiting would leave there.
#
# The run's Slurm jobs never run (its partition is down), so the guard
# has nothing to check: MMLAB_NO_GUARD.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
. "$MMLAB_SRCDIR/tests/slurm.sh"
export MMLAB_NO_GUARD=1
start_slurm
scontrol update PartitionName=lab State=DOWN
j=$(job clock '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
run=$(jq -r '.[0].run' "$T/sub.json")
rec="$MMLAB_RESULTS/$run/tasks/boot-0.json"
mkdir -p "$(dirname "$rec")"
# write_rec BEAT MTIME: the record as the skewed host writes it (renamed into place)
write_rec() {
	jq -n --argjson beat "$1" '{task: "boot-0", state: "running", reason: "",
		host: "node-skewed", boot_id: "0b0b0b0b-1111-2222-3333-444455556666",
		pid: 4242, attempt: 1, slurm_job: "77", request: "", beat: $beat}' >"$rec.tmp"
	touch -d "$2" "$rec.tmp"
	mv "$rec.tmp" "$rec"
}
# lost: what queue status says of the record now
lost() {
	"$MMLAB" queue status --json >"$T/st.json"
	jq -r ".[] | select(.run == \"$run\") | .items[] | select(.kind == \"boot\") | .task.lost" \
		"$T/st.json"
}
# 200 s of this host's monotonic clock pass without a change of the record
age_200s() {
	local key="seen $run boot-0" v
	v=$(sqlite3 "$MMLAB_RESULTS/queue.db" "SELECT value FROM notes WHERE key = '$key'")
	[ -n "$v" ] || fail "queue status kept no note of what it saw of the record"
	v=$(echo "$v" | awk '{ $4 = sprintf("%.3f", $4 - 200); print }')
	sqlite3 "$MMLAB_RESULTS/queue.db" "UPDATE notes SET value = '$v' WHERE key = '$key'"
}

# an mtime 5 hours old, first seen: alive (not dead for its old wall clock)
write_rec 1 "5 hours ago"
[ "$(lost)" = false ] || fail "a record first seen with a 5 h old mtime is declared lost"
assert_jq "$T/st.json" ".[] | select(.run == \"$run\") | .items[] | select(.kind == \"boot\") | .task.host == \"node-skewed\""
[ "$(lost)" = false ] || fail "declared lost seconds after it was first seen"
# unchanged for 200 s of this host's clock: lost
age_200s
[ "$(lost)" = true ] || fail "a record unchanged for 200 s of this host's clock is not lost"
# it beats again, with an mtime 3 hours in the future: alive again
write_rec 2 "3 hours"
[ "$(lost)" = false ] || fail "a record that beat again (mtime 3 h ahead) is declared lost"
# a future mtime does not keep it alive: unchanged for 200 s, lost
age_200s
[ "$(lost)" = true ] || fail "a record with a future mtime that stopped changing is not lost"
# the mtime alone changing (the beat as before) is a heartbeat too, even backwards
touch -d "6 hours ago" "$rec"
[ "$(lost)" = false ] || fail "a record whose mtime changed is declared lost"
echo ok
