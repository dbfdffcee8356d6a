# The user's own kernel module as the workload (jobs/own-module.yaml):
# built against the distro kernel's headers (as pagebench is), loaded with
# its parameters in each iteration, its result read from the iteration's
# kernel log, and removed again so that the next iteration loads it anew.
# A module that refuses its parameters fails the iteration with the errno.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
rel=$(basename "$(ls /boot/vmlinuz-* | sort -V | tail -1)" | sed 's/^vmlinuz-//')
if [ ! -e "/usr/src/linux-headers-$rel/Makefile" ] && [ ! -e "/lib/modules/$rel/build/Makefile" ]; then
	echo "ok (no headers for $rel: nothing to build the module against)"
	exit 0
fi
mkdir -p "$T/jobs/files"
cp -r "$MMLAB_SRCDIR/jobs/files/page_bench01" "$T/jobs/files/"
sed 's/^iterations: 3$/iterations: 2\niterations_per_boot: 2/' \
	"$MMLAB_SRCDIR/jobs/own-module.yaml" >"$T/jobs/own-module.yaml"
"$MMLAB" run "$T/jobs/own-module.yaml" 2>"$T/err" || fail "run failed: $(tail -20 "$T/err")"
grep -q "building the page_bench01 module for $rel" "$T/err" || fail "no module build: $(cat "$T/err")"
"$MMLAB" results show --json >"$T/r.json"
for i in 0 1; do
	it=".variants[0].iterations[$i]"
	assert_jq "$T/r.json" "$it.status == \"ok\" and $it.metrics[\"page_bench01.cycles\"] > 0"
	assert_jq "$T/r.json" "$it.output.dmesg.bytes > 0"
	assert_jq "$T/r.json" "$it.metrics | has(\"time.elapsed_s\") and has(\"vmstat.pgfault\")"
done
run=$(jq -r .run "$T/r.json")
grep -q "page_bench01: order 0: [0-9]* cycles" "$MMLAB_RESULTS/$run/base/1/dmesg" || fail "no dmesg stored"
# order 11 is refused by the module's init: the iteration fails, saying why
sed -i 's/order: 0/order: 11/; s/^iterations: 2$/iterations: 1/; s/^iterations_per_boot: 2$//' \
	"$T/jobs/own-module.yaml"
set +e; "$MMLAB" run "$T/jobs/own-module.yaml" 2>"$T/err"; rc=$?; set -e
[ "$rc" = 1 ] || fail "exit $rc, expected 1: $(tail -5 "$T/err")"
"$MMLAB" results show --json >"$T/f.json"
assert_jq "$T/f.json" '.variants[0].iterations[0].status == "failed"'
assert_jq "$T/f.json" '.variants[0].iterations[0].reason | test("loading the module exited with status 1; the end of its stderr:\nmmlab-agent: loading /mmlab/modules/page_bench01.ko \\(loops=100000 order=11\\): Invalid argument")'
no_leftover_domains
echo ok
