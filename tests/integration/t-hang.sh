# The hang workload never finishes: the boot hits its deadline, the
# iteration is "timeout", and the domain is destroyed.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job hang '{ name: hang }')
sed -i 's/timeouts: .*/timeouts: { boot: 30s, iteration: 5s }/' "$j"
start=$(date +%s)
set +e
"$MMLAB" run "$j"; rc=$?
set -e
took=$(( $(date +%s) - start ))
[ $rc = 1 ] || fail "a timed-out iteration gave exit $rc"
"$MMLAB" results show --json >"$T/r.json"
assert_jq "$T/r.json" '.variants[0].iterations[0].status == "timeout"'
# deadline = boot 30 s + iteration 5 s; allow the probe (cached) and setup
[ "$took" -lt 90 ] || fail "the timeout took $took s"
assert_jq "$T/r.json" '.variants[0].iterations[0].boot.elapsed_s < 40'
no_leftover_domains
echo ok
