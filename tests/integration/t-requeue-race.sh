# A requeued or resumed boot never collides with what libvirt still holds
# of the attempt that was killed ("domain ... already exists"). The race is
# made on purpose instead of waiting for the scheduler: after kill -9, and
# before the next runner starts the boot again, two domains stand where the
# killed attempt's was:
#  - a defined, shut-off domain with the boot's old name, which libvirt
#    cannot destroy: a runner that reuses the name fails every time;
#  - a paused domain named as the killed attempt's, as libvirt leaves it
#    while it tears that down: it must be destroyed, not left beside the
#    new boot.
# Both for the queue (queue run after kill -9) and for mmlab run --resume.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
topo='{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }'
V="virsh -c qemu:///system"
dummies=()
race_cleanup() {
	local rc=$? d
	for d in "${dummies[@]}"; do
		$V destroy "$d" >/dev/null 2>&1 || true
		$V undefine "$d" >/dev/null 2>&1 || true
	done
	cleanup $rc
}
trap race_cleanup EXIT
# dummy NAME defined|paused
dummy() {
	local x="$T/dummy.xml"
	cat >"$x" <<XML
<domain type='qemu'><name>$1</name><memory unit='MiB'>16</memory><vcpu>1</vcpu>
<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>
XML
	dummies+=("$1")
	if [ "$2" = defined ]; then $V define "$x" >/dev/null; else $V create --paused "$x" >/dev/null; fi
}
# the domains (any attempt) of the first boot of job $1's run that are
# running or paused
running() { $V list --name | grep "^mmlab-[0-9-]*-$1-[0-9a-f]*-base-0" || true; }
# start "$@" in the background, kill -9 it once the boot of job $1 runs
kill_when_booted() {
	local job=$1
	shift
	"$@" >"$T/killed.out" 2>&1 &
	local pid=$!
	for _ in $(seq 1 600); do
		[ -n "$(running "$job")" ] && break
		sleep 0.2
	done
	[ -n "$(running "$job")" ] || { cat "$T/killed.out"; fail "the boot of $job never ran"; }
	kill -9 $pid
	wait $pid 2>/dev/null || true
	# libvirt destroys the killed attempt's domain (autodestroy)
	for _ in $(seq 1 100); do [ -z "$(running "$job")" ] && break; sleep 0.2; done
	[ -z "$(running "$job")" ] || fail "the killed attempt's domain stayed: $(running "$job")"
}

# the queue: kill -9 of queue run, then the next queue run requeues the boot
j=$(job qrace '{ name: noop }' "$topo")
"$MMLAB" -q queue add "$j"
run=$(ls "$MMLAB_RESULTS" | grep qrace)
kill_when_booted qrace "$MMLAB" queue run --jobs 1
dummy "mmlab-$run-base-0" defined
dummy "mmlab-$run-base-0+1" paused
"$MMLAB" queue run --jobs 1 >"$T/run2.out" 2>&1 || { cat "$T/run2.out"; fail "the requeued boot failed"; }
cat "$T/run2.out"
grep -q "requeued or completed 1 boot" "$T/run2.out" || fail "nothing was requeued"
"$MMLAB" queue status --json >"$T/s.json"
assert_jq "$T/s.json" '.[0].counts.done == 1 and .[0].items[0].attempts == 2'
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete" and .variants[0].iterations[0].status == "ok"'
assert_jq "$T/r.json" ".variants[0].iterations[0].boot.domain == \"mmlab-$run-base-0+2\""
[ -z "$(running qrace)" ] || fail "the paused domain of the killed attempt was left: $(running qrace)"
grep -q "destroyed 1 domain of an earlier attempt of mmlab-$run-base-0" "$T/run2.out" ||
	grep -rq "destroyed 1 domain of an earlier attempt of mmlab-$run-base-0" "$MMLAB_RESULTS/$run/queue" ||
	fail "no word of the earlier attempt's domain"

# mmlab run --resume after kill -9 of mmlab run
j=$(job rrace '{ name: noop }' "$topo")
kill_when_booted rrace "$MMLAB" run "$j"
run=$(ls "$MMLAB_RESULTS" | grep rrace)
dummy "mmlab-$run-base-0" defined
dummy "mmlab-$run-base-0+1" paused
"$MMLAB" run --resume "$run" >"$T/resume.out" 2>&1 || { cat "$T/resume.out"; fail "run --resume failed"; }
cat "$T/resume.out"
"$MMLAB" results show --json "$run" >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete" and .variants[0].iterations[0].status == "ok"'
assert_jq "$T/r2.json" ".variants[0].iterations[0].boot.domain == \"mmlab-$run-base-0+2\""
[ -z "$(running rrace)" ] || fail "the paused domain of the killed attempt was left: $(running rrace)"
echo ok
