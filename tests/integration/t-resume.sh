# SIGINT during a run destroys the domain and leaves the run incomplete;
# --resume finishes it without repeating the stored iterations.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job resume '{ name: noop }' '' 'iterations_per_boot: 1')
sed -i 's/^iterations: 1/iterations: 3/' "$j"
"$MMLAB" run --order sequential "$j" >"$T/out" 2>&1 &
pid=$!
# wait for the first iteration to be stored, then interrupt the second boot
for _ in $(seq 1 600); do
	ls "$MMLAB_RESULTS"/*/base/0/iteration.json >/dev/null 2>&1 && break
	sleep 0.5
done
ls "$MMLAB_RESULTS"/*/base/0/iteration.json >/dev/null || fail "first iteration never stored"
sleep 3
kill -INT $pid
set +e
wait $pid; rc=$?
set -e
cat "$T/out"
[ $rc = 1 ] || fail "interrupted run gave exit $rc"
no_leftover_domains
"$MMLAB" results show --json >"$T/r1.json"
assert_jq "$T/r1.json" '.status == "incomplete"'
first=$(jq -r '.variants[0].iterations[0].boot.domain' "$T/r1.json")
stored=$(jq '[.variants[0].iterations[] | select(.status == "ok")] | length' "$T/r1.json")
run=$(jq -r .run "$T/r1.json")
"$MMLAB" run --resume "$run"
"$MMLAB" results show --json "$run" >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete"'
assert_jq "$T/r2.json" '[.variants[0].iterations[] | select(.status == "ok")] | length == 3'
assert_jq "$T/r2.json" ".variants[0].iterations[0].boot.domain == \"$first\""
echo "stored before resume: $stored"
no_leftover_domains
echo ok
