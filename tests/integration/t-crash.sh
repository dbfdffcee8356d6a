# The crash workload panics the guest: the iteration is "crashed" with the
# console excerpt, the run still completes, and exits 1.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job crash '{ name: crash }')
set +e
"$MMLAB" run "$j"; rc=$?
set -e
[ $rc = 1 ] || fail "a crashed iteration gave exit $rc"
"$MMLAB" results show --json >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" '.variants[0].iterations[0].status == "crashed"'
assert_jq "$T/r.json" '.variants[0].iterations[0].console_excerpt | test("Kernel panic|sysrq")'
no_leftover_domains
echo ok
