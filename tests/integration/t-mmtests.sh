# mmtests in the guest (docs/workloads.md, "mmtests"), with the mmtests copy
# in ../shared/third_party (skipped without it; CI has it):
# 1. a config whose benchmark's source is nowhere on the host (mmtests'
#    usemem without a mirror or network) and one whose install step
#    downloads with a bare wget (siege) are refused before any boot;
# 2. thpchallenge-none scaled for TCG (jobs/files/config-workload-
#    thpchallenge-tcg) on a 2-node guest, THP defrag madvise against
#    always, 2 iterations each: the measured window is the benchmark's,
#    mmtests' samples become metrics, mmlab's table and mmtests' own
#    compare-kernels.sh report the same run;
# 3. a broken config (mmtests' own thpchallenge-none, which dies below 8
#    CPUs per node) fails its iteration with the end of mmtests' output and
#    leaves no domain.
# The disk image with mmtests' packages is built once (minutes), then cached.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
tarball=$MMLAB_SRCDIR/../shared/third_party/mmtests-638401e0.tar.gz
if [ ! -f "$tarball" ]; then
	echo "skipped: no mmtests copy at $tarball (see ../shared/third_party/README.md)"
	exit 77
fi
tar -xzf "$tarball" -C "$T"
mm=$T/mmtests
mmjob() { # mmjob NAME CONFIG ITERATIONS VARIANTS-YAML
	cat >"$T/$1.yaml" <<JOB
name: $1
variants: $4
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 512M }
image: { kind: debootstrap }
iterations: $3
timeouts: { boot: 600s, iteration: 900s }
workload:
  mmtests: { dir: $mm, config: $2 }
JOB
	echo "$T/$1.yaml"
}
two='
  - { name: madvise, kernel: distro, thp: { enabled: always, defrag: madvise } }
  - { name: always, kernel: distro, thp: { enabled: always, defrag: always } }'

# 1. refused before any boot: nothing built, no run stored. usemem's source
#    is in no mirror (the job gives none) and not in a cache of its own,
#    and the host has no network (t-mmtests-mirror runs it from a mirror);
#    siege's install step downloads with a bare wget, which no mirror helps
j=$(mmjob dl configs/config-workload-usemem 1 '[ { name: base, kernel: distro } ]')
rc=0
MMLAB_CACHE=$T/cache-dl "$MMLAB" run "$j" 2>"$T/dl.err" || rc=$?
[ "$rc" = 2 ] || fail "a source nowhere: exit $rc, expected 2: $(cat "$T/dl.err")"
grep -qF "mmtests benchmark 'usemem' needs gtarazbJaHPaAT.gtar (shellpack_src/src/usemembuild/usemembuild-install line 10: sources_fetch), which is not in the cache (the job gives no mirror)" "$T/dl.err" ||
	fail "the refusal does not name the source: $(cat "$T/dl.err")"
j=$(mmjob siege configs/config-http-siege 1 '[ { name: base, kernel: distro } ]')
rc=0
"$MMLAB" run "$j" 2>"$T/siege.err" || rc=$?
[ "$rc" = 2 ] || fail "a bare download: exit $rc, expected 2: $(cat "$T/siege.err")"
grep -q "mmtests benchmark 'siege' cannot run in the guest: siege downloads its sources (shellpack_src/src/siege/siege-install line [0-9]*: wget)" "$T/siege.err" ||
	fail "the refusal does not name the download: $(cat "$T/siege.err")"
[ -z "$(find "$MMLAB_RESULTS" -mindepth 1 -type d 2>/dev/null)" ] || fail "a refused job stored a run"

# 2. thpchallenge: madvise against always
j=$(mmjob thp "$MMLAB_SRCDIR/jobs/files/config-workload-thpchallenge-tcg" 2 "$two")
"$MMLAB" run "$j" 2>"$T/thp.err" || fail "the mmtests run failed: $(tail -30 "$T/thp.err")"
grep -q "Debian's package fio stands in for it" "$T/thp.err" || fail "no word of the fio download"
grep -q "mmtests: the image gets [0-9]* packages: what mmtests' install-depends ask for (run-mmtests.sh, shellpack thpchallenge" "$T/thp.err" ||
	fail "no word of where the packages come from"
"$MMLAB" results show --json >"$T/s.json"
run=$(jq -r .run "$T/s.json")
assert_jq "$T/s.json" '[.variants[].iterations[] | select(.status == "ok")] | length == 4'
for v in 0 1; do
	for i in 0 1; do
		it=".variants[$v].iterations[$i]"
		assert_jq "$T/s.json" "$it.metrics[\"mmtests.thpchallenge.fault-huge-1\"] > 0"
		assert_jq "$T/s.json" "$it.metrics | has(\"mmtests.thpchallenge.fault-both-1\")"
		assert_jq "$T/s.json" "$it.mmtests.benchmarks.thpchallenge.samples > 0"
		assert_jq "$T/s.json" "$it.mmtests.benchmarks.thpchallenge.preferred == \"lower\""
		assert_jq "$T/s.json" "$it.metrics[\"vmstat.thp_fault_alloc\"] > 0"
		name=$(jq -r ".variants[$v].name" "$T/s.json")
		d=$MMLAB_RESULTS/$run/$name/$i
		[ -s "$d/mmtests/mmlab/iter-0/thpchallenge/logs/threads-1.log.gz" ] ||
			fail "$name $i: mmtests' log was not stored: $(ls -R "$d" | head -20)"
		grep -q "Finished thpchallenge" "$d/stdout" || fail "$name $i: mmtests' output not stored"
		# the measured window is the benchmark's (mmlab's monitor hook), not
		# mmtests' installation and set-up before it
		grep -q "Invoking user hook mmlab_monitor-pre" "$d/stdout" || fail "$name $i: mmlab's hook did not run"
		assert_jq "$T/s.json" "$it.metrics[\"time.elapsed_s\"] > 0 and $it.metrics[\"time.elapsed_s\"] < 30"
	done
done
assert_jq "$T/s.json" '.job_resolved.workload.mmtests.benchmarks == ["thpchallenge"]'

# mmlab's table: the imported metrics, with mmtests' direction
"$MMLAB" compare "$run" >"$T/cmp.txt" || fail "compare failed"
grep -q "mmtests.thpchallenge.fault-huge-1" "$T/cmp.txt" || fail "compare: no mmtests row: $(head -30 "$T/cmp.txt")"
"$MMLAB" compare "$run" --format json >"$T/cmp.json" || fail "compare --format json failed"
assert_jq "$T/cmp.json" '[.metrics[] | select(.name == "mmtests.thpchallenge.fault-huge-1") | .direction] == ["lower"]'

# mmtests' own report of the same run, both variants in its table
"$MMLAB" compare "$run" --mmtests >"$T/mm.txt" 2>"$T/mm.err" || fail "compare --mmtests failed: $(cat "$T/mm.err")"
grep -q "thpchallenge Fault Latencies" "$T/mm.txt" || fail "no mmtests table: $(head -30 "$T/mm.txt")"
grep -Eq '^ +madvise +always *$' "$T/mm.txt" || fail "mmtests' table does not list both variants: $(head -10 "$T/mm.txt")"
grep -Eq '^Amean +fault-huge-1 ' "$T/mm.txt" || fail "no Amean fault-huge-1 row: $(head -30 "$T/mm.txt")"
"$MMLAB" compare "$run" --mmtests --baseline always >"$T/mm2.txt" 2>/dev/null || fail "--baseline always failed"
grep -Eq '^ +always +madvise *$' "$T/mm2.txt" || fail "--baseline did not put always first"

# 3. a config that breaks inside the guest
j=$(mmjob broken configs/config-workload-thpchallenge-none 1 '[ { name: base, kernel: distro } ]')
rc=0
"$MMLAB" run "$j" 2>"$T/broken.err" || rc=$?
[ "$rc" = 1 ] || fail "a broken config: exit $rc, expected 1: $(tail -20 "$T/broken.err")"
grep -q "Insufficient number of CPUs" "$T/broken.err" || fail "the failure does not show mmtests' output: $(tail -20 "$T/broken.err")"
"$MMLAB" results show --json >"$T/b.json"
assert_jq "$T/b.json" '.variants[0].iterations[0].status == "failed"'
assert_jq "$T/b.json" '.variants[0].iterations[0].reason | test("installing or starting the benchmarks failed")'
assert_jq "$T/b.json" '.variants[0].iterations[0].reason | test("Insufficient number of CPUs")'
no_leftover_domains
echo ok
