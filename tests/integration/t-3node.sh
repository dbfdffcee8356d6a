# A 3-node guest with unequal memory and a distance matrix.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
topo='{ nodes: [ {cpus: 1, memory: 256M}, {cpus: 1, memory: 384M}, {cpus: 1, memory: 512M} ],
            distances: [[10, 20, 30], [20, 10, 25], [30, 25, 10]] }'
j=$(job threenode '{ name: noop }' "$topo")
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" "($it.guest.nodes | length) == 3"
assert_jq "$T/r.json" "[$it.guest.nodes[].memory_kb] as \$m | \$m[0] < \$m[1] and \$m[1] < \$m[2]"
assert_jq "$T/r.json" "$it.guest.nodes[2].memory_kb > 450000 and $it.guest.nodes[2].memory_kb <= 524288"
assert_jq "$T/r.json" "$it.guest.nodes[1].memory_kb > 340000 and $it.guest.nodes[1].memory_kb <= 393216"
run=$(jq -r .run "$T/r.json")
grep -q 'node 2' "$MMLAB_RESULTS/$run/base/0/console.log" || fail "guest console shows no node 2"
no_leftover_domains
echo ok
