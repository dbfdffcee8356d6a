# Memory tiers on Debian's 6.1 (docs/job-format.md, "Memory tiers"):
#  1. a topology libvirt or QEMU cannot boot is refused before any boot,
#     exit 2, with its location;
#  2. jobs/tiering.yaml (one iteration per variant, a shorter phase): the
#     guest sees the CPU-less kmem node in a lower memory tier, demotion
#     on, and the HMAT values in node<N>/access0; demotion under pressure
#     in both modes, promotion in mode 2, next to
#     none in mode 1 (6.1 counts mode-1 NUMA migrations from the slow
#     tier as pgpromote_success too, but they stop once the fast node is
#     at its watermark: docs/metrics.md, "Memory tiers").
# A memoryless CPU node and a CPU-less node tiered by HMAT alone are
# checked on a lab-built 6.12 in tests/e2e/t-tiering.sh (one boot, where
# each costs less than a distro-kernel boot).
. "$MMLAB_SRCDIR/tests/integration/lib.sh"

# 1. refused before the boot
cat >"$T/bad.yaml" <<'JOB'
name: bad
variants: [ { name: a } ]
topology:
  nodes:
    - { cpus: 1, memory: 256M }
    - { cpus: 0, memory: 256M, kmem: true }
    - { cpus: 1, memory: 256M }
  hmat:
    - { initiator: 0, target: 0, latency: 2 }
    - { initiator: 0, target: 1, latency: 70000 }
workload: { name: noop }
JOB
set +e
"$MMLAB" run "$T/bad.yaml" 2>"$T/err"
rc=$?
set -e
[ $rc = 2 ] || fail "a bad tiered topology gave exit $rc"
grep -q 'bad.yaml:6:7: error: topology.nodes\[1\]: a CPU-less node before a node with CPUs' "$T/err" ||
	fail "no located CPU-less order error: $(cat "$T/err")"
grep -q "bad.yaml:9:5: error: topology.hmat: latencies up to 70000 ns" "$T/err" ||
	fail "no located HMAT range error: $(cat "$T/err")"
[ -z "$(ls "$T/results" 2>/dev/null | grep -v '^mmlab.db')" ] || fail "a refused job stored a run"

# 2. jobs/tiering.yaml, once per variant: the tiers and HMAT values the
# guest saw, demotion and promotion
sed -e 's/^iterations: 3/iterations: 1/' -e 's/duration_s: 20/duration_s: 16/' \
	"$MMLAB_SRCDIR/jobs/tiering.yaml" >"$T/tiering.yaml"
"$MMLAB" run "$T/tiering.yaml"
"$MMLAB" results show --json >"$T/r.json"
v1='(.variants[] | select(.name == "balancing1") | .iterations[0])'
v2='(.variants[] | select(.name == "tiering2") | .iterations[0])'
for v in "$v1" "$v2"; do
	assert_jq "$T/r.json" "$v.status == \"ok\""
	assert_jq "$T/r.json" "$v.metrics[\"vmstat.pgdemote_kswapd\"] + $v.metrics[\"vmstat.pgdemote_direct\"] > 0"
	t="$v.tiers"
	assert_jq "$T/r.json" "$t.demotion_enabled == true"
	assert_jq "$T/r.json" "[$t.nodes[] | select(.id == 1)][0] | .cpus == \"-\" and .memory_kb == 524288"
	# node 1 in a tier of its own, slower (higher id) than node 0's
	assert_jq "$T/r.json" "([$t.tiers[] | select(.nodes == \"1\")][0].id) > ([$t.tiers[] | select(.nodes == \"0\")][0].id)"
	a="[$t.access[] | select(.node == 1 and .class == 0)][0]"
	assert_jq "$T/r.json" "$a.initiators == \"0\" and $a.read_latency == 300 and $a.read_bandwidth == 4096"
	a="[$t.access[] | select(.node == 0 and .class == 0)][0]"
	assert_jq "$T/r.json" "$a.read_latency == 100 and $a.read_bandwidth == 16384"
	assert_jq "$T/r.json" "$v.metrics[\"tiering.hot_pages\"] == 32768"
done
m2="$v2.metrics"
m1="$v1.metrics"
# mode 2 selects promotion candidates and promotes; mode 1 selects none
# and moves fewer (how many more mode 2 moves depends on kswapd keeping
# up on a loaded TCG host: 6x to 200x measured)
assert_jq "$T/r.json" "${m2}[\"vmstat.pgpromote_candidate\"] > 0"
assert_jq "$T/r.json" "${m2}[\"vmstat.pgpromote_success\"] > 1000"
assert_jq "$T/r.json" "${m1}[\"vmstat.pgpromote_candidate\"] == 0"
assert_jq "$T/r.json" "${m1}[\"vmstat.pgpromote_success\"] * 3 < ${m2}[\"vmstat.pgpromote_success\"]"
assert_jq "$T/r.json" "${m1}[\"tiering.hot_fast_pages\"] * 3 < ${m2}[\"tiering.hot_fast_pages\"]"
# the kmem node is snapshot like any node once it is online (6.1 counts
# pgdemote_* as global vm events only, 6.12 per node too)
assert_jq "$T/r.json" "${m2}[\"node1.vmstat.nr_anon_pages\"] != null"
"$MMLAB" compare latest >"$T/cmp.txt"
grep -q 'promotion_rate' "$T/cmp.txt" || fail "no promotion_rate row: $(cat "$T/cmp.txt")"
grep -q 'demotion_rate' "$T/cmp.txt" || fail "no demotion_rate row"
grep -q 'hot_fast_pct' "$T/cmp.txt" || fail "no hot_fast_pct row"
grep -q 'pgpromote_success' "$T/cmp.txt" || fail "no pgpromote_success row"
grep -q 'pgdemote_kswapd' "$T/cmp.txt" || fail "no pgdemote_kswapd row"
no_leftover_domains
echo ok
