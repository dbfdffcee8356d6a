# pagebench on a kernel the lab built (issue 4): e2e-c4 with kernels/lab.config
# (cached by the earlier e2e tests) on a 2-node guest. The host builds the
# module against the kernel's own build kit, stored in its cache entry
# (docs/kernels.md), not against the shared O= directory; the guest loads
# it and reports cycles per order.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name c4 --json >"$T/c4.json"
assert_jq "$T/c4.json" '.ok'
key=$(jq -r .cache_key "$T/c4.json")
entry=$MMLAB_CACHE/kernels/entries/$key
# the entry carries its module build kit and its modules_install output
[ -f "$entry/build/Makefile" ] && [ -f "$entry/build/Module.symvers" ] &&
	[ -f "$entry/build/.config" ] || fail "the cache entry $entry has no module build kit"
"$MMLAB" kernel show "$key" --json >"$T/show.json"
assert_jq "$T/show.json" '.build_kit == true and .modules == true'
rel=$(jq -r .release "$T/show.json")
[ -f "$entry/lib/modules/$rel/modules.order" ] || fail "no modules_install output in $entry"
[ ! -e "$entry/lib/modules/$rel/build" ] || fail "the entry keeps a build link into the shared O= dir"
runs_before=$(make_runs_for "$key")

# move the shared build directory to another commit (when c5 is not cached
# yet; otherwise it holds whatever was built last): the kit must not care
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c5 --fragment "$LAB_CONFIG" --name c5 >/dev/null

cat >"$T/pb.yaml" <<JOB
name: e2e-pagebench
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: c4, ref: e2e-c4 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: pagebench, params: { max_order: 3, iters: 20 } }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
"$MMLAB" run "$T/pb.yaml" 2>&1 | tee "$T/run.log"
grep -q "building the pagebench module for $rel against $(realpath "$entry")/build" "$T/run.log" ||
	fail "the module was not built against the entry's kit"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" ".variants[0].kernel.cache_key == \"$key\" and .variants[0].kernel.cache_hit"
[ "$(make_runs_for "$key")" = "$runs_before" ] || fail "make ran the kernel build again for $key"
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" "$it.guest.kernel_release == \"$rel\""
assert_jq "$T/r.json" "$it.guest.nodes | length == 2"
for o in 0 1 2 3; do
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.alloc_cycles.o$o\"] > 0"
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.free_cycles.o$o\"] > 0"
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.failed.o$o\"] == 0"
done
# plausible: an order-0 alloc_pages is not tens of milliseconds, even under TCG
assert_jq "$T/r.json" "$it.metrics[\"pagebench.alloc_cycles.o0\"] < 1e8"
no_leftover_domains
echo ok
