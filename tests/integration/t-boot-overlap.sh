# Four boots in one run. After a guest shuts down, libvirt takes about
# 200 ms to finish its domain (libvirt 9.0's kill loop sleeps 200 ms before
# it looks again); the next boot's domain starts meanwhile instead of after
# it (docs/performance.md). libvirt's own log of each domain says when it
# started it ("starting up") and when it began to finish it ("shutting
# down"): at least one boot must start before the one before it was
# finished. Old mmlab waited for each domain to go, so every start came
# after. Every boot's directory goes with the run, and no domain is left.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
cat >"$T/overlap.yaml" <<JOB
name: overlap
variants:
  - { name: base, kernel: distro }
topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 4
timeouts: { boot: 120s, iteration: 300s }
JOB
stages() { ls -d /tmp/mmlab-stage-* 2>/dev/null | sort || true; }
before=$(stages)
"$MMLAB" run "$T/overlap.yaml"
"$MMLAB" results show --json >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" '[.variants[0].iterations[] | select(.status == "ok")] | length == 4'
run=$(jq -r .run "$T/r.json")
no_leftover_domains
left=$(comm -13 <(echo "$before") <(stages))
[ -z "$left" ] || fail "the run left its stage behind: $left"
# libvirt's lines: "2026-12-06 04:34:14.947+0000: starting up ..." and
# "... shutting down, reason=shutdown"; as epoch seconds, by start
for i in 0 1 2 3; do
	log=/var/log/libvirt/qemu/mmlab-$run-base-$i+1.log
	[ -r "$log" ] || fail "no libvirt log $log"
	up=$(grep -m1 ': starting up' "$log" | cut -d: -f1-3)
	down=$(grep -m1 ': shutting down' "$log" | cut -d: -f1-3)
	[ -n "$up" ] && [ -n "$down" ] || fail "$log lacks the start or the end: $(cat "$log")"
	echo "$(date -d "$up" +%s.%N) $(date -d "$down" +%s.%N) $i"
done | sort -g >"$T/spans"
cat "$T/spans"
overlaps=$(awk 'NR > 1 && $1 < prev_down { n++ } { prev_down = $2 } END { print n + 0 }' "$T/spans")
echo "boots started before libvirt finished the one before: $overlaps of 3"
[ "$overlaps" -ge 1 ] || fail "every boot waited for libvirt to finish the domain before it"
echo ok
