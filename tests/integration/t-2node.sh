# A 2-node guest (256 MiB per node) boots the distro kernel; the stored
# result shows 2 nodes with the right memory each and non-zero pgfault.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
j=$(job twonode '{ name: usemem, params: { threads: 1, size: 32M } }')
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/r.json"
cat "$T/r.json" | head -c 3000
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" '.host.accel == "kvm" or .host.accel == "tcg"'
assert_jq "$T/r.json" '(.host.qemu | length) > 0 and (.host.libvirt | length) > 0'
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" "($it.guest.nodes | length) == 2"
# node MemTotal is the configured size less what the kernel reserves
assert_jq "$T/r.json" "[$it.guest.nodes[].memory_kb] | all(. > 200000 and . <= 262144)"
assert_jq "$T/r.json" "$it.metrics[\"vmstat.pgfault\"] > 0"
assert_jq "$T/r.json" "$it.metrics[\"time.elapsed_s\"] > 0"
assert_jq "$T/r.json" "$it.metrics | has(\"numastat.node1.numa_hit\")"
assert_jq "$T/r.json" "$it.metrics | has(\"node0.vmstat.nr_free_pages\")"
assert_jq "$T/r.json" "$it.metrics[\"usemem.elapsed_s.T1\"] > 0"
assert_jq "$T/r.json" ".variants[0].kernel.release == $it.guest.kernel_release"
# where the boot's time went (docs/performance.md): every phase was seen,
# and the guest's from start to the outcome add up to the boot's elapsed_s
ph="$it.boot.phases"
assert_jq "$T/r.json" "$ph | keys == [\"collect\", \"define\", \"guest_to_agent\", \"poweroff_seen\", \"stage\", \"start\", \"store\", \"teardown\", \"workload\"]"
assert_jq "$T/r.json" "[$ph[]] | all(. >= 0)"
assert_jq "$T/r.json" "$ph.guest_to_agent > 0 and $ph.workload > 0"
assert_jq "$T/r.json" "($ph | .start + .guest_to_agent + .workload + .poweroff_seen) - $it.boot.elapsed_s | . < 0.05 and . > -0.05"
"$MMLAB" results show | grep -q '^    boot phases (s): stage .* store .*; total' ||
	fail "results show lacks the boot phases"
run=$(jq -r .run "$T/r.json")
[ -s "$MMLAB_RESULTS/$run/base/0/console.log" ] || fail "no console log stored"
[ -s "$MMLAB_RESULTS/$run/base/0/before/vmstat" ] || fail "no raw vmstat snapshot stored"
"$MMLAB" results list | grep -q "$run" || fail "results list lacks the run"
sqlite3 "$MMLAB_RESULTS/mmlab.db" "select count(*) from metrics where run='$run' and name='vmstat.pgfault'" | grep -qx 1 \
	|| fail "metric not indexed in SQLite"
no_leftover_domains
echo ok
