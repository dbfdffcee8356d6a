# mmtests benchmarks whose install step downloads their sources
# (docs/workloads.md, "mmtests": mirrors and the cache), with the mmtests
# copy and its source mirror in ../shared/third_party (skipped without
# them):
# 1. an empty mirror and no network: usemem is refused before any boot,
#    naming the file, its URL and the mirror path; exit 2, no run stored;
# 2. the host-side cache from a local HTTP server on 127.0.0.1 (the
#    shellpacks' URLs pointed at it in a copy of the tree): usemembuild's
#    tarball with curl, dbench's git tree cloned at its version and packed
#    as mmtests' mirror holds it; sizes and SHA256 recorded; reused. The
#    run stops at its kernel (a file that is no package), before a boot;
# 3. usemem-stress-numa-compact scaled for TCG with mirror: the shared
#    mirror: usemembuild built in the guest from it, mmtests' samples
#    imported with its extract-mmtests.pl, mmtests' usemem table from
#    compare --mmtests.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
third=$MMLAB_SRCDIR/../shared/third_party
tarball=$third/mmtests-638401e0.tar.gz
mirror=$third/mmtests-mirror
if [ ! -f "$tarball" ] || [ ! -f "$mirror/usemem/gtarazbJaHPaAT.gtar" ]; then
	echo "skipped: no mmtests copy and mirror in $third (see its README.md)"
	exit 77
fi
tar -xzf "$tarball" -C "$T"
mm=$T/mmtests
mkdir -p "$T/empty"
mmjob() { # mmjob NAME TREE CONFIG MIRROR KERNEL
	cat >"$T/$1.yaml" <<JOB
name: $1
variants: [ { name: base, kernel: $5 } ]
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 512M }
image: { kind: debootstrap }
iterations: 1
timeouts: { boot: 600s, iteration: 900s }
workload:
  mmtests: { dir: $2, config: $3$4 }
JOB
	echo "$T/$1.yaml"
}
no_runs() {
	[ -z "$(find "$MMLAB_RESULTS" -mindepth 1 -type d 2>/dev/null)" ] || fail "$1 stored a run"
}

# 1. an empty mirror, no network: refused with what is missing and where
j=$(mmjob refused "$mm" configs/config-workload-usemem ", mirror: $T/empty" distro)
rc=0
MMLAB_CACHE=$T/cache1 "$MMLAB" run "$j" 2>"$T/refused.err" || rc=$?
cat "$T/refused.err"
[ "$rc" = 2 ] || fail "a missing source: exit $rc, expected 2"
want="mmtests benchmark 'usemem' needs gtarazbJaHPaAT.gtar (shellpack_src/src/usemembuild/usemembuild-install line 10: sources_fetch), which is neither in the mirror nor in the cache, and its URL https://www.spinics.net/lists/linux-mm/attachments/gtarazbJaHPaAT.gtar could not be fetched on the host"
grep -qF "$want" "$T/refused.err" || fail "the refusal does not name the file and URL"
grep -q "Could not resolve host: www.spinics.net)\. Put the file" "$T/refused.err" || fail "curl's reason is not in the sentence"
grep -qF "Put the file in the mirror at $T/empty/usemem/gtarazbJaHPaAT.gtar, or in the cache at $T/cache1/mmtests-sources/usemem/gtarazbJaHPaAT.gtar" "$T/refused.err" ||
	fail "the refusal does not name the mirror path"
no_runs "a refused job"

# 2. the host-side cache, from a local HTTP server
www=$T/www
mkdir -p "$www/usemem"
cp "$mirror/usemem/gtarazbJaHPaAT.gtar" "$www/usemem/"
git init -q "$T/dbench-src"
echo "int main(void) { return 0; }" >"$T/dbench-src/dbench.c"
git -C "$T/dbench-src" add dbench.c
git -C "$T/dbench-src" -c user.name=t -c user.email=t@t commit -qm dbench
git -C "$T/dbench-src" tag ed505f4eafb7 # the version dbench-install asks for
git clone -q --bare "$T/dbench-src" "$www/dbench.git"
git -C "$www/dbench.git" update-server-info # served as files (git's dumb HTTP)
python3 -m http.server --bind 127.0.0.1 0 --directory "$www" >"$T/http.log" 2>&1 &
http_pid=$!
trap 'rc=$?; kill $http_pid 2>/dev/null || true; cleanup $rc' EXIT
port=
for _ in $(seq 50); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$T/http.log" | head -1)
	[ -n "$port" ] && break
	sleep 0.2
done
[ -n "$port" ] || fail "the local HTTP server did not start: $(cat "$T/http.log")"
cp -r "$mm" "$T/mm2"
sed -i "s|^WEB_LOCATION=.*|WEB_LOCATION=http://127.0.0.1:$port/usemem|" \
	"$T/mm2/shellpack_src/src/usemembuild/usemembuild-install"
sed -i "s|^GIT_LOCATION=.*|GIT_LOCATION=http://127.0.0.1:$port/dbench.git|" \
	"$T/mm2/shellpack_src/src/dbench/dbench-install"
printf 'export MMTESTS="usemem dbench"\n' >"$T/mm2/configs/config-two"
echo junk >"$T/not-a-package.deb"
j=$(mmjob cached "$T/mm2" configs/config-two "" "{ deb: $T/not-a-package.deb }")
for round in 1 2; do
	rc=0
	MMLAB_CACHE=$T/cache2 "$MMLAB" run "$j" 2>"$T/cached$round.err" || rc=$?
	cat "$T/cached$round.err"
	[ "$rc" = 2 ] || fail "round $round: exit $rc, expected 2 (the kernel file)"
	grep -q "is neither a .deb" "$T/cached$round.err" || fail "round $round did not reach the kernel"
	grep -qF "mmtests: gtarazbJaHPaAT.gtar from the cache: $T/cache2/mmtests-sources/usemem/gtarazbJaHPaAT.gtar" "$T/cached$round.err" ||
		fail "round $round: usemembuild's tarball not from the cache"
	grep -qF "mmtests: dbench-ed505f4eafb7.tar.gz from the cache" "$T/cached$round.err" ||
		fail "round $round: dbench's tarball not from the cache"
done
grep -q "downloading http://127.0.0.1:$port/usemem/gtarazbJaHPaAT.gtar" "$T/cached1.err" || fail "no download"
grep -q "cloning http://127.0.0.1:$port/dbench.git at ed505f4eafb7" "$T/cached1.err" || fail "no clone"
! grep -q "downloading\|cloning" "$T/cached2.err" || fail "the cache was not reused"
src=$T/cache2/mmtests-sources
assert_jq "$src/usemem/gtarazbJaHPaAT.gtar.json" '.sha256 == "bb874558a5307a470928f2c31920287666d47ff50272e3c21f7f652fa7677c01" and .size == 11053'
assert_jq "$src/dbench/dbench-ed505f4eafb7.tar.gz.json" ".size > 0 and .by == \"git archive\" and .commit == \"ed505f4eafb7\""
[ "$(sha256sum <"$src/dbench/dbench-ed505f4eafb7.tar.gz" | cut -d' ' -f1)" = \
	"$(jq -r .sha256 "$src/dbench/dbench-ed505f4eafb7.tar.gz.json")" ] || fail "dbench's SHA256 differs from its record"
# the tarball mmtests' mirror holds: the tree under dbench-VERSION/
tar -tzf "$src/dbench/dbench-ed505f4eafb7.tar.gz" | grep -qx "dbench-ed505f4eafb7/dbench.c" ||
	fail "dbench's tarball: $(tar -tzf "$src/dbench/dbench-ed505f4eafb7.tar.gz")"
kill $http_pid; wait $http_pid 2>/dev/null || true
no_runs "a run stopped at its kernel"

# 3. usemem from the shared mirror, built and run in the guest
j=$(mmjob usemem "$mm" "$MMLAB_SRCDIR/jobs/files/config-workload-usemem-stress-numa-compact-tcg" \
	", mirror: $mirror" distro)
"$MMLAB" run "$j" 2>"$T/usemem.err" || fail "the mmtests run failed: $(tail -40 "$T/usemem.err")"
grep -qF "mmtests: gtarazbJaHPaAT.gtar from the mirror: $mirror/usemem/gtarazbJaHPaAT.gtar" "$T/usemem.err" ||
	fail "the source did not come from the mirror"
"$MMLAB" results show --json >"$T/s.json"
run=$(jq -r .run "$T/s.json")
assert_jq "$T/s.json" '.variants[0].iterations[0].status == "ok"'
assert_jq "$T/s.json" '.variants[0].iterations[0].mmtests.benchmarks.usemem.samples > 0'
assert_jq "$T/s.json" '.variants[0].iterations[0].metrics | keys | map(select(startswith("mmtests.usemem."))) | length > 0'
assert_jq "$T/s.json" '.job_resolved.workload.mmtests.mirror == "'"$mirror"'"'
d=$MMLAB_RESULTS/$run/base/0
grep -q "Downloaded file already available" "$d/stdout" || fail "mmtests did not find the source where sources_fetch looks"
"$MMLAB" compare "$run" --mmtests >"$T/mm.txt" 2>"$T/mm.err" || fail "compare --mmtests failed: $(cat "$T/mm.err")"
cat "$T/mm.txt"
grep -q "^usemem" "$T/mm.txt" || fail "no usemem table"
# this mmtests names the thread's syst-1 and elsp-1 System-1 and Elapsed-1
grep -Eq '^Amean +System-1 ' "$T/mm.txt" || fail "no Amean System-1 row"
grep -Eq '^Amean +Elapsed-1 ' "$T/mm.txt" || fail "no Amean Elapsed-1 row"
grep -Eq '^Ops Compaction migrate scanned ' "$T/mm.txt" || fail "no Ops Compaction migrate scanned row"
no_leftover_domains
echo ok
