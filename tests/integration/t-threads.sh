# jobs/threads/ (docs/threads.md) on what this host has: the distro kernel
# stands in for the threads' kernel trees, which are not here.
# 1. vmstat-folding.yaml's measurement (page_bench01 as the user's module,
#    its cycles from the kernel log, one boot per iteration, 6 iterations
#    instead of 10) on two variants of the same kernel:
#    compare says "no significant change" with the smallest change the run
#    could detect, the sentence the thread argued by hand;
# 2. pageblock-cmpxchg.yaml's collectors on a kernel without the series'
#    tracepoint: refused at the first boot with the event's name, exit 2.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
jobs=$MMLAB_SRCDIR/jobs/threads
mkdir -p "$T/jobs/threads" "$T/jobs/files"
cp -r "$MMLAB_SRCDIR/jobs/files/page_bench01" "$T/jobs/files/"

# 1. both variants on the distro kernel, one boot each
rel=$(basename "$(ls /boot/vmlinuz-* | sort -V | tail -1)" | sed 's/^vmlinuz-//')
if [ -e "/usr/src/linux-headers-$rel/Makefile" ] || [ -e "/lib/modules/$rel/build/Makefile" ]; then
	sed -e '/^kernels:/,/^$/d' -e 's/ref: v6.3, apply: \[patches\/vmstat-folding.mbox\]/kernel: distro/' \
		-e 's/ref: v6.3/kernel: distro/' -e 's/^iterations: 10$/iterations: 6/' \
		"$jobs/vmstat-folding.yaml" >"$T/jobs/threads/vf.yaml"
	grep -q "^iterations: 6$" "$T/jobs/threads/vf.yaml" || fail "vmstat-folding.yaml changed: $(cat "$T/jobs/threads/vf.yaml")"
	"$MMLAB" run "$T/jobs/threads/vf.yaml" 2>"$T/vf.err" || fail "run failed: $(tail -20 "$T/vf.err")"
	# one iteration per boot, as the job has it: under TCG on a shared host
	# the boot dominates (two boots of one kernel, 6 iterations each, came
	# out 44% apart), so iterations in one boot are not independent samples.
	# alpha 0.01: identical kernels, a false "significant" in 1 run of 100
	"$MMLAB" compare latest --metrics 'page_bench01.*' --alpha 0.01 >"$T/vf.txt" || fail "compare failed"
	cat "$T/vf.txt"
	# the summary wraps: read it as one line
	tr '\n' ' ' <"$T/vf.txt" | tr -s ' ' >"$T/vf.line"
	grep -Eq "no significant change in patched against base \(1 metrics tested, q < 0.01\); with n=6 vs n=6 this run could detect changes of [0-9.]+% or more \(page_bench01.cycles, CoV [0-9.]+%, power 0.8\)" "$T/vf.line" ||
		fail "no 'no significant change' sentence with the detectable change"
else
	echo "vmstat-folding: no headers for $rel to build page_bench01 against; part 1 left out"
fi

# 2. the series' tracepoint on a kernel without it
tps=$(sed -n 's/^  tracepoints: //p' "$jobs/pageblock-cmpxchg.yaml")
[ "$tps" = '["compaction:*", "pageblock:hit_cmpxchg"]' ] || fail "pageblock-cmpxchg.yaml's tracepoints: $tps"
j=$(job pb '{ name: noop }' "" "collectors: { tracepoints: $tps }")
rc=0
"$MMLAB" run "$j" 2>"$T/pb.err" || rc=$?
cat "$T/pb.err"
[ "$rc" = 2 ] || fail "a kernel without the tracepoint: exit $rc, expected 2"
grep -q "tracepoint 'pageblock:hit_cmpxchg' matches no event of kernel $rel" "$T/pb.err" ||
	fail "the refusal does not name the event"
no_leftover_domains
echo ok
