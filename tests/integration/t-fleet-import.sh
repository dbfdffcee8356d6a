# A store of another lab server, imported (issue 31): a real run made in
# another store directory ("the other server"), copied whole (cp -a, as rsync -a would) and
# brought in with `mmlab results import`, is read by `results show`,
# `compare` and `report` like a local run: compare gives the same JSON in
# both stores. import.json holds the provenance (when, from which store
# and host, by which host); importing again skips the run, a half-copied
# run is refused naming what is missing. bisect and track take no run ids
# (they measure kernels of their own), so there is nothing to import for
# them.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
other="$T/other-server"
j=$(job imp '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
sed -i 's/^  - { name: base, kernel: distro }/  - { name: base, kernel: distro }\n  - { name: other, kernel: distro }/' "$j"
MMLAB_RESULTS="$other" "$MMLAB" run --order sequential "$j" >"$T/run.out" 2>&1 ||
	{ cat "$T/run.out"; fail "the run on the other store failed"; }
run=$(ls "$other" | grep imp)
[ -n "$run" ] || fail "no run in $other"
MMLAB_RESULTS="$other" "$MMLAB" compare --format json "$run" >"$T/cmp-there.json"
# the copy of a store that keeps its index and queue: import takes run directories only
mkdir -p "$T/copy"
cp -a "$other/." "$T/copy/"
mkdir -p "$MMLAB_RESULTS"
"$MMLAB" results import "$T/copy" >"$T/imp.out" 2>&1 || { cat "$T/imp.out"; fail "import failed"; }
cat "$T/imp.out"
grep -q "imported 1 run" "$T/imp.out" || fail "import did not say it imported 1 run"
# results show: the run, its iterations, its provenance
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" ".run == \"$run\" and .status == \"complete\""
assert_jq "$T/r.json" '[.variants[].iterations[] | select(.status == "ok")] | length == 2'
assert_jq "$T/r.json" ".imported.imported_by == \"$(hostname)\""
assert_jq "$T/r.json" ".imported.from_store == \"$(realpath "$T/copy")\""
assert_jq "$T/r.json" ".imported.from_host == \"$(hostname)\""
assert_jq "$T/r.json" '.imported.imported | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")'
"$MMLAB" results show "$run" | grep -q "$run" || fail "results show does not name the run"
# compare and report read it as a local run
"$MMLAB" compare --format json "$run" >"$T/cmp-here.json"
diff <(jq -S . "$T/cmp-there.json") <(jq -S . "$T/cmp-here.json") ||
	fail "compare of the imported run differs from compare on its own store"
jq -e 'tostring | test("other")' "$T/cmp-here.json" >/dev/null || fail "compare lost variant other"
"$MMLAB" compare "$run" >"$T/cmp.txt"
"$MMLAB" report -o "$T/report.html" "$run"
grep -q "$run" "$T/report.html" || fail "the report does not name the imported run"
grep -q "other" "$T/report.html" || fail "the report lost variant other"
# "latest" is the imported run too (the only one here)
"$MMLAB" compare --format json latest >"$T/cmp-latest.json"
diff <(jq -S . "$T/cmp-here.json") <(jq -S . "$T/cmp-latest.json") >/dev/null ||
	fail "compare latest is not the imported run"
# again: skipped, never duplicated
"$MMLAB" results import "$T/copy" >"$T/imp2.out" 2>&1 || { cat "$T/imp2.out"; fail "import again failed"; }
grep -q "imported 0 runs.*1 already here" "$T/imp2.out" || { cat "$T/imp2.out"; fail "import again did not skip"; }
"$MMLAB" results list --json >"$T/l.json"
assert_jq "$T/l.json" "[.[] | select(.run == \"$run\")] | length == 1"
# a half-copied run (a copy interrupted before an iteration.json): refused, naming it
mkdir -p "$T/half"
cp -a "$other/$run" "$T/half/"
mv "$T/half/$run" "$T/half/${run}x"
sed -i "s/$run/${run}x/g" "$T/half/${run}x/run.json"
rm "$T/half/${run}x/other/0/iteration.json"
set +e
"$MMLAB" results import "$T/half" >"$T/imp3.out" 2>&1; rc=$?
set -e
cat "$T/imp3.out"
[ $rc != 0 ] || fail "a half-copied run was imported (exit 0)"
grep -q "other/0/iteration.json is missing" "$T/imp3.out" || fail "the refusal does not say what is missing"
[ ! -e "$MMLAB_RESULTS/${run}x" ] || fail "the half-copied run is in the store"
no_leftover_domains
echo ok
