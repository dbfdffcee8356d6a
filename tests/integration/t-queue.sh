# The queue: 3 small jobs with 2 concurrent VMs finish with every
# iteration stored exactly once, and concurrent VMs have disjoint pins.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
topo='{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }'
for n in 1 2 3; do
	job "q$n" '{ name: noop }' "$topo" >/dev/null
done
sed -i 's/^iterations: 1/iterations: 2/' "$T/q1.yaml"
"$MMLAB" queue add --json "$T/q1.yaml" "$T/q2.yaml" >"$T/add.json"
"$MMLAB" queue add --priority 5 "$T/q3.yaml" >"$T/add3.out"
cat "$T/add3.out"
# a prebuilt kernel is no build: the line names no kernel to build
grep -q '^queued job 3: run .*, 1 boot (' "$T/add3.out" || fail "queue add's line for q3"
assert_jq "$T/add.json" 'length == 2 and .[0].boots == 2 and .[1].boots == 1'
"$MMLAB" queue status --json >"$T/s0.json"
assert_jq "$T/s0.json" '[.[].counts.queued] == [2, 1, 1]'
# a second runner on the same store refuses while the first runs
"$MMLAB" queue run --jobs 2 >"$T/run.out" 2>&1 &
pid=$!
sleep 3
set +e
"$MMLAB" queue run >"$T/second.out" 2>&1; rc=$?
set -e
cat "$T/second.out"
[ $rc = 1 ] || fail "second queue run gave exit $rc"
grep -q "already running" "$T/second.out" || fail "second queue run did not say why"
# watch the domains: at some moment two must run at once
max=0
while kill -0 $pid 2>/dev/null; do
	n=$(virsh -c qemu:///system list --name | grep -c '^mmlab-.*-q[123]-' || true)
	[ "$n" -gt "$max" ] && max=$n
	sleep 0.5
done
wait $pid || { cat "$T/run.out"; fail "queue run failed"; }
cat "$T/run.out"
echo "max concurrent domains seen: $max"
[ "$max" -ge 2 ] || fail "never saw 2 concurrent VMs"
"$MMLAB" queue status --json >"$T/s1.json"
assert_jq "$T/s1.json" 'all(.[]; .counts.done == (.items | length) and .eta_s == 0)'
# the priority-5 job was claimed first
assert_jq "$T/s1.json" '(.[] | select(.job == "q3") | .items[0].started) <= ([.[] | .items[].started] | min)'
# every iteration stored once, ok, with its placement recorded
for r in $(jq -r '.[].run' "$T/s1.json"); do
	"$MMLAB" results show --json "$r" >"$T/r.json"
	[ -z "$(virsh -c qemu:///system list --all --name | grep "^mmlab-$r-")" ] ||
		fail "domains of $r left behind"
	assert_jq "$T/r.json" '.status == "complete"'
	jq -c ".variants[].iterations[] | {status, reason, boot, console_tail}" "$T/r.json"
	assert_jq "$T/r.json" 'all(.variants[].iterations[]; .status == "ok" and (.boot.placement.vcpu_pins | length) == 1)'
	n=$(jq '[.variants[].iterations[]] | length' "$T/r.json")
	want=$(jq '.job_resolved.iterations' "$T/r.json")
	[ "$n" = "$want" ] || fail "run $r stored $n iterations, wants $want"
done
# pins of items whose run times overlapped are disjoint
jq -e '[.[].items[]] as $it | [range(0; $it|length) as $i | range($i+1; $it|length) as $j
	| select($it[$i].started < $it[$j].finished and $it[$j].started < $it[$i].finished)
	| ($it[$i].placement.vcpu_pins - ($it[$i].placement.vcpu_pins - $it[$j].placement.vcpu_pins))
	| length] | all(. == 0)' "$T/s1.json" >/dev/null || fail "overlapping VMs shared a host CPU"
jq -e '[.[].items[]] as $it | [range(0; $it|length) as $i | range($i+1; $it|length) as $j
	| select($it[$i].started < $it[$j].finished and $it[$j].started < $it[$i].finished)] | length > 0' \
	"$T/s1.json" >/dev/null || fail "no two items overlapped in time"
"$MMLAB" queue status
[ -n "${MMLAB_SHARED_HOST:-}" ] || no_leftover_domains
echo ok
