# pagebench on the distro kernel: the host builds the module against
# linux-headers-<release>, the guest loads it and reports cycles per order.
# (Against a lab-built kernel it belongs to the e2e tier.)
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
rel=$(basename "$(ls /boot/vmlinuz-* | sort -V | tail -1)" | sed 's/^vmlinuz-//')
if [ ! -e "/usr/src/linux-headers-$rel/Makefile" ] && [ ! -e "/lib/modules/$rel/build/Makefile" ]; then
	j=$(job pbno '{ name: pagebench }')
	set +e; "$MMLAB" run "$j" 2>"$T/err"; rc=$?; set -e
	[ "$rc" = 2 ] && grep -q "no build tree or headers for $rel" "$T/err" || fail "no clear error without headers"
	echo "ok (no headers for $rel: checked the error only)"
	exit 0
fi
j=$(job pb '{ name: pagebench, params: { max_order: 3, iters: 20 } }')
"$MMLAB" run "$j"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
for o in 0 1 2 3; do
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.alloc_cycles.o$o\"] > 0"
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.free_cycles.o$o\"] > 0"
	assert_jq "$T/r.json" "$it.metrics | has(\"pagebench.failed.o$o\")"
done
# without headers the run is refused before it starts
MMLAB_KBUILD_DIR=/nonexistent "$MMLAB" run "$j" 2>"$T/err" && fail "ran without a build tree"
grep -q "cannot run pagebench on this kernel" "$T/err" || fail "no clear message: $(cat "$T/err")"
no_leftover_domains
echo ok
