# A boot file that cannot be copied into its iteration's directory fails
# the iteration: no iteration.json is written beside a missing or
# truncated console.log (on a full store the copy is cut short, and the
# small iteration.json after it may still fit once another writer freed
# space). Here the copy fails for sure: while the guest runs, a directory
# takes console.log's place in the iteration's directory. Then
# `run --resume` stores the iteration whole.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
V="virsh -c qemu:///system"
j=$(job copyfail '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
"$MMLAB" run "$j" >"$T/out" 2>&1 &
pid=$!
dom=""
for _ in $(seq 1 1200); do
	dom=$($V list --name | grep -E '^mmlab-[0-9]{8}-[0-9]{6}-copyfail-' || true)
	[ -n "$dom" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.2
done
[ -n "$dom" ] || { cat "$T/out"; fail "the guest never ran"; }
run=${dom#mmlab-}
run=${run%-base-0*}
mkdir -p "$MMLAB_RESULTS/$run/base/0/console.log"
set +e
wait $pid
rc=$?
set -e
cat "$T/out"
[ $rc = 1 ] || fail "a run whose iteration could not be stored gave exit $rc"
[ ! -e "$MMLAB_RESULTS/$run/base/0/iteration.json" ] ||
	fail "an iteration was stored without its console.log: $(cat "$MMLAB_RESULTS/$run/base/0/iteration.json")"
grep -q "console.log" "$T/out" || fail "the error does not name console.log"
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status != "complete" and ([.variants[].iterations[]] | length) == 0'
rmdir "$MMLAB_RESULTS/$run/base/0/console.log"
"$MMLAB" run --resume "$run" >"$T/resume.out" 2>&1 || { cat "$T/resume.out"; fail "run --resume failed"; }
"$MMLAB" results show --json "$run" >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete" and ([.variants[].iterations[]] | length) == 1'
assert_jq "$T/r2.json" '.variants[0].iterations[0].status == "ok"'
[ -f "$MMLAB_RESULTS/$run/base/0/console.log" ] && [ -s "$MMLAB_RESULTS/$run/base/0/console.log" ] ||
	fail "the resumed iteration has no console.log"
no_leftover_domains
echo ok
