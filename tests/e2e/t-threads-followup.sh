# jobs/threads/compaction-followup.yaml (issue 30) on the e2e tree, its
# three variants kept as the job writes them and only its refs and paths
# rewritten: base e2e-c5, the series (c6 as an mbox, `git format-patch`,
# applied on c5) and base with e2e-c5 reverted (a real `git revert` of a
# commit of the history). Each variant's tree is one the content cache
# already holds (c5; c6; c4, which c5 reverted gives) with the config of
# the e2e tests (the job's defconfig becomes tinyconfig +
# kernels/lab.config, whose CONFIG_BINFMT_SCRIPT mmtests' #! scripts
# need), so no kernel is built once t-bisect and t-variants ran. One
# iteration per variant.
# Checks the three-variant layout: three variants in the run,
# `mmlab compare RUN --mmtests` prints mmtests' usemem table with three
# columns, `mmlab compare RUN` prints mmlab's table. Skipped (exit 77)
# without the mmtests copy and its source mirror, as
# tests/integration/t-mmtests-mirror.sh is.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"
third=$MMLAB_SRCDIR/../shared/third_party
tarball=$third/mmtests-638401e0.tar.gz
mirror=$third/mmtests-mirror
if [ ! -f "$tarball" ] || [ ! -f "$mirror/usemem/gtarazbJaHPaAT.gtar" ]; then
	echo "skipped: no mmtests copy and mirror in $third (see its README.md)"
	exit 77
fi
tar -xzf "$tarball" -C "$T"

# the job's relative paths, laid out as in the source tree
mkdir -p "$T/jobs/threads/patches" "$T/jobs/files" "$T/kernels"
cp "$MMLAB_SRCDIR/jobs/files/config-workload-usemem-stress-numa-compact-tcg" "$T/jobs/files/"
cp "$LAB_CONFIG" "$T/kernels/lab.config"
git -C "$REPO" format-patch -q --stdout e2e-c5..e2e-c6 >"$T/jobs/threads/patches/compaction-followup.mbox"
job=$T/jobs/threads/compaction-followup.yaml
sed -e "s|tree: ~/src/linux|tree: $REPO|" -e 's/base: defconfig, fragments: \[\.\.\/\.\.\/kernels\/lab\.config\]/base: tinyconfig, fragments: [..\/..\/kernels\/lab.config]/' \
	-e 's/v6\.4-rc2/e2e-c5/g' -e 's/revert: \[7efc3b726103\]/revert: [e2e-c5]/' \
	-e "s|dir: ~/src/mmtests|dir: $T/mmtests|" -e "s|mirror: ~/src/mmtests-mirror|mirror: $mirror|" \
	-e 's/^iterations: 3$/iterations: 1/' \
	"$MMLAB_SRCDIR/jobs/threads/compaction-followup.yaml" >"$job"
# each rewrite took: the job has not changed under the test
for want in "tree: $REPO" "base: tinyconfig, fragments: [../../kernels/lab.config]" "{ name: base, ref: e2e-c5 }" \
	"{ name: series, ref: e2e-c5, apply: [patches/compaction-followup.mbox] }" \
	"{ name: revert, ref: e2e-c5, revert: [e2e-c5] }" "dir: $T/mmtests" \
	"mirror: $mirror" "iterations: 1"; do
	grep -qF "$want" "$job" || fail "compaction-followup.yaml changed ('$want' missing): $(cat "$job")"
done

# the debootstrap image with mmtests' packages: shared with the
# integration tier's cache when it has it, as t-image-modules does
mkdir -p "$MMLAB_CACHE/images"
for f in "$MMLAB_SRCDIR"/build/cache/images/debootstrap-*; do
	[ -e "$f" ] && [ ! -e "$MMLAB_CACHE/images/${f##*/}" ] &&
		{ ln "$f" "$MMLAB_CACHE/images/" 2>/dev/null || cp -p "$f" "$MMLAB_CACHE/images/"; }
done

makes() { ls "$MMLAB_CACHE"/kernels/logs | wc -l; }
makes_before=$(makes)
"$MMLAB" run "$job" 2>"$T/run.err" || fail "the run failed: $(tail -40 "$T/run.err")"
cat "$T/run.err"
grep -qF "mmtests: gtarazbJaHPaAT.gtar from the mirror: $mirror/usemem/gtarazbJaHPaAT.gtar" "$T/run.err" ||
	fail "usemem's source did not come from the mirror"
echo "kernel builds: $(( $(makes) - makes_before ))"
# the kernels have what mmtests needs
for v in base series revert; do
	grep -q "^CONFIG_BINFMT_SCRIPT=y" "$MMLAB_CACHE/kernels/entries/$(jq -r \
		".variants[] | select(.name == \"$v\") | .kernel.cache_key" \
		"$MMLAB_RESULTS"/*/run.json)/config" || fail "$v's kernel has no CONFIG_BINFMT_SCRIPT"
done

"$MMLAB" results show --json >"$T/s.json"
run=$(jq -r .run "$T/s.json")
assert_jq "$T/s.json" '[.variants[].name] == ["base", "series", "revert"]'
assert_jq "$T/s.json" '[.variants[].iterations[0].status] == ["ok", "ok", "ok"]'
assert_jq "$T/s.json" '[.variants[].iterations[0].mmtests.benchmarks.usemem.samples > 0] | all'
# a real revert: c5 reverted is c4's tree, its kernel c4's cache entry;
# the series is c6's tree; each variant booted its own kernel
v() { echo ".variants[] | select(.name == \"$1\")"; }
tree_key() { "$MMLAB" kernel show "$(jq -r "($(v "$1")).kernel.cache_key" "$T/s.json")" --json | jq -r .tree_id; }
[ "$(tree_key revert)" = "$(git -C "$REPO" rev-parse 'e2e-c4^{tree}')" ] || fail "the revert variant is not c4's tree"
[ "$(tree_key series)" = "$(git -C "$REPO" rev-parse 'e2e-c6^{tree}')" ] || fail "the series variant is not c6's tree"
assert_jq "$T/s.json" "($(v revert)).kernel.operations[0].op == \"revert\""
assert_jq "$T/s.json" "[.variants[].kernel.cache_key] | unique | length == 3"
for name in base series revert; do
	assert_jq "$T/s.json" "($(v $name)) as \$v | \$v.iterations[0].guest.kernel_release == \$v.kernel.release"
done

# mmtests' table: usemem with one column per variant
"$MMLAB" compare "$run" --mmtests >"$T/mm.txt" 2>"$T/mm.err" || fail "compare --mmtests failed: $(cat "$T/mm.err")"
cat "$T/mm.txt"
grep -q "^usemem" "$T/mm.txt" || fail "no usemem table"
grep -Eq '^ +base +series +revert *$' "$T/mm.txt" || fail "the table's header is not base, series, revert"
grep -Eq '^Amean +System-1( +[0-9.]+ +[(*][^)*]*[)*]){3} *$' "$T/mm.txt" ||
	fail "no Amean System-1 row with three columns"
grep -Eq '^Amean +Elapsed-1( +[0-9.]+ +[(*][^)*]*[)*]){3} *$' "$T/mm.txt" ||
	fail "no Amean Elapsed-1 row with three columns"
grep -Eq '^Ops Compaction migrate scanned( +[0-9.]+){3} *$' "$T/mm.txt" ||
	fail "no Ops Compaction migrate scanned row with three columns"

# mmlab's table: a column per variant, a row per statistic and metric
"$MMLAB" compare "$run" >"$T/cmp.txt" 2>"$T/cmp.err" || fail "compare failed: $(cat "$T/cmp.err")"
cat "$T/cmp.txt"
grep -Eq '^ +base +series +revert *$' "$T/cmp.txt" ||
	fail "mmlab's table does not have base, series and revert"
grep -Eq '^Amean +mmtests\.usemem\.System-1( +[0-9.]+ \( *-?[0-9.]+%\)){3} *$' "$T/cmp.txt" ||
	fail "mmlab's table has no mmtests.usemem.System-1 row with three columns"
no_leftover_domains
echo ok
