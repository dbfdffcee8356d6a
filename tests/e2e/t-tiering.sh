# Memory tiers on a lab-built 6.12 (docs/job-format.md, "Memory tiers"),
# one boot of e2e-c4 with kernels/lab.config (the build the other tests
# share: the dax drivers and ACPI_HMAT are in it): a memoryless CPU node;
# a CPU-less kmem node lands in a lower memory tier with no module to
# load, and a CPU-less node of ordinary memory does too, from the HMAT
# alone (the abstract distance from HMAT, 6.7 and later), which Debian's
# 6.1 does not do (t-tiering in tests/integration checks that side).
# Different HMAT values for the two, so that each is in a tier of its own.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/tiers.yaml" <<JOB
name: e2e-tiering
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: c4, ref: e2e-c4 }
topology:
  nodes:
    - { cpus: 1, memory: 256M }
    - { cpus: 1, memory: 0 }
    - { cpus: 0, memory: 256M, kmem: true }
    - { cpus: 0, memory: 128M }
  hmat:
    - { initiator: 0, target: 0, latency: 100, bandwidth: 16G }
    - { initiator: 1, target: 0, latency: 200 }
    - { initiator: 0, target: 2, latency: 300, bandwidth: 4G }
    - { initiator: 0, target: 3, latency: 1000, bandwidth: 1G }
workload: { name: noop }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
"$MMLAB" run "$T/tiers.yaml"
"$MMLAB" results show --json >"$T/r.json"
t='.variants[0].iterations[0].tiers'
tier_of() { echo "([$t.tiers[] | select(.nodes == \"$1\")][0].id)"; }
assert_jq "$T/r.json" ".variants[0].iterations[0].status == \"ok\""
assert_jq "$T/r.json" "$t.demotion_enabled == true"
assert_jq "$T/r.json" "[$t.nodes[] | select(.id == 1)][0] | .cpus == \"1\" and .memory_kb == 0"
assert_jq "$T/r.json" "[$t.nodes[] | select(.id == 2)][0] | .cpus == \"-\" and .memory_kb == 262144"
assert_jq "$T/r.json" "[$t.nodes[] | select(.id == 3)][0] | .cpus == \"-\" and .memory_kb > 0"
# both CPU-less nodes below node 0, each in a tier of its own
assert_jq "$T/r.json" "$(tier_of 2) > $(tier_of 0) and $(tier_of 3) > $(tier_of 0)"
a="[$t.access[] | select(.node == 2 and .class == 0)][0]"
assert_jq "$T/r.json" "$a.initiators == \"0\" and $a.read_latency == 300 and $a.read_bandwidth == 4096"
a="[$t.access[] | select(.node == 3 and .class == 0)][0]"
assert_jq "$T/r.json" "$a.read_latency == 1000 and $a.read_bandwidth == 1024"
no_leftover_domains
echo ok
