# The guest writes garbage, or nothing, on the data channel (ttyS1): the
# chanfault program runs instead of the agent (rdinit=). Each iteration
# fails with a reason that says what the channel held, by the boot's
# deadline, and the hostile garbage (record headers claiming 4 MiB every
# 16 bytes, which cost the host CPU with the square of its length) is
# skipped in bounded time.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job chan '{ name: noop }')
sed -i 's/timeouts: .*/timeouts: { boot: 30s, iteration: 10s }/' "$j"
sed -i 's/^  - { name: base, kernel: distro }/  - { name: garbage, kernel: distro, cmdline: "rdinit=\/mmlab\/workloads\/chanfault chanfault.mode=garbage chanfault.bytes=1048576" }\n  - { name: silent, kernel: distro, cmdline: "rdinit=\/mmlab\/workloads\/chanfault chanfault.mode=silent" }/' "$j"
cat "$j"
start=$(date +%s)
set +e
"$MMLAB" run --order sequential "$j"; rc=$?
set -e
took=$(( $(date +%s) - start ))
[ $rc = 1 ] || fail "a run whose guest sent no records gave exit $rc"
"$MMLAB" results show --json >"$T/r.json"
jq '.variants[] | {name, it: [.iterations[] | {status, reason, stream, boot}]}' "$T/r.json"
for v in garbage silent; do
	assert_jq "$T/r.json" ".variants[] | select(.name == \"$v\") | .iterations[0].status != \"ok\""
	assert_jq "$T/r.json" ".variants[] | select(.name == \"$v\") | .iterations[0].reason | length > 10"
	assert_jq "$T/r.json" ".variants[] | select(.name == \"$v\") | .iterations[0].boot.elapsed_s < 45"
done
assert_jq "$T/r.json" '.variants[] | select(.name == "garbage") | .iterations[0].stream.skipped_bytes > 0'
assert_jq "$T/r.json" '.variants[] | select(.name == "garbage") | .iterations[0].stream.records == 0'
assert_jq "$T/r.json" '.variants[] | select(.name == "garbage") | .iterations[0].reason | test("no valid record")'
assert_jq "$T/r.json" '.variants[] | select(.name == "silent") | .iterations[0].reason | test("nothing on the data channel")'
# two boots of at most boot + iteration = 40 s each, the probe cached
[ "$took" -lt 300 ] || fail "the run took $took s"
no_leftover_domains
echo ok
