# bisect start --kernels FILE --tree DIR (issue 29; docs/bisect.md, "A list
# of kernels"): a list of three kernels built from the tags e2e-c1, e2e-c4
# and e2e-c6 (their bzImages from the kernel cache, as a user lists
# release kernels), each entry naming its tag. kcompactd's periodic
# wakeups count in compact_daemon_wake from c5 on (tests/e2e/README.md),
# so the list names k3 (c6) after k2 (c4), and the bisection goes on in
# the tree between e2e-c4 and e2e-c6 to the commit, c5, with the same
# metric and statistics. The four kernels are built first (cache hits
# once t-bisect, t-bisect-refuse and t-variants ran), so the bisection
# itself makes none. A list entry without a tag is refused at start.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

cat >"$T/job.yaml" <<JOB
name: bisect-kernels-tree
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: k, ref: e2e-c4 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: compact, params: { mode: proactive, window_s: 3, size: 32M } }
iterations: 3
iterations_per_boot: 3
timeouts: { boot: 300s, iteration: 600s }
JOB
makes() { ls "$MMLAB_CACHE"/kernels/logs 2>/dev/null | wc -l; }
image() { # the bzImage of TAG in the kernel cache
	"$MMLAB" kernel build --tree "$REPO" --ref "$1" --fragment "$LAB_CONFIG" --name "$1" \
		--json >"$T/$1.json" || fail "kernel build $1"
	echo "$MMLAB_CACHE/kernels/entries/$(jq -r .cache_key "$T/$1.json")/bzImage"
}
makes_before=$(makes)
k1=$(image e2e-c1) k2=$(image e2e-c4) k3=$(image e2e-c6)
image e2e-c5 >/dev/null # the commit the tree's bisection tests
echo "kernel builds before the bisection: $(( $(makes) - makes_before ))"
makes_before=$(makes)

# an entry without its tag: refused at start, nothing left
printf -- '- { kernel: %s, tag: e2e-c1 }\n- %s\n' "$k1" "$k3" >"$T/untagged.yaml"
rc=0
"$MMLAB" bisect start --job "$T/job.yaml" --kernels "$T/untagged.yaml" --tree "$REPO" \
	--metric vmstat.compact_daemon_wake 2>"$T/untagged.err" || rc=$?
cat "$T/untagged.err"
[ "$rc" = 2 ] || fail "a list entry without a tag: exit $rc, expected 2"
grep -q "entry 2 has no tag; with --tree every entry names its release's git ref" "$T/untagged.err" ||
	fail "the refusal does not name the entry"
[ ! -e "$MMLAB_RESULTS/bisect/bisect.db" ] || fail "a refused start left a bisection"

cat >"$T/kernels.yaml" <<LIST
- { kernel: $k1, tag: e2e-c1 }
- { kernel: $k2, tag: e2e-c4 }
- { kernel: $k3, tag: e2e-c6 }
LIST
"$MMLAB" bisect start --job "$T/job.yaml" --kernels "$T/kernels.yaml" --tree "$REPO" \
	--metric vmstat.compact_daemon_wake --direction lower --min-change 50% | tee "$T/start.out"
grep -q "over the 3 kernels of $T/kernels.yaml: good k1, bad k3; then the commits between their tags in $REPO" \
	"$T/start.out" || fail "start does not say it goes on in the tree"
"$MMLAB" bisect run --json >"$T/result.json" 2>"$T/run.err" || {
	cat "$T/run.err"; fail "bisect run failed"; }
cat "$T/run.err"
grep -q "the list's first bad entry is k3 (e2e-c6), after k2 (e2e-c4); bisecting the commits between them in $REPO" \
	"$T/run.err" || fail "run does not say where the commit bisection starts"
sha() { git -C "$REPO" rev-parse "$1"; }
# the list: k3 after k2
assert_jq "$T/result.json" '.list.first.commit == "k3" and .list.first.kernel.tag == "e2e-c6"'
assert_jq "$T/result.json" '[.list.steps[] | .commit] == ["k1", "k3", "k2"]'
assert_jq "$T/result.json" '[.list.steps[] | .verdict] == ["good", "bad", "good"]'
# then the commits: endpoints c4 and c6, c5 the first bad one
assert_jq "$T/result.json" ".first.commit == \"$(sha e2e-c5)\""
assert_jq "$T/result.json" '.first.subject | startswith("c5:")'
assert_jq "$T/result.json" ".steps[0].commit == \"$(sha e2e-c4)\" and .steps[1].commit == \"$(sha e2e-c6)\""
assert_jq "$T/result.json" ".steps[2].commit == \"$(sha e2e-c5)\" and .steps[2].verdict == \"bad\""
assert_jq "$T/result.json" '.range_commits == 2 and .mode == "metric"'
assert_jq "$T/result.json" '.steps[0].mean < 1 and .steps[1].mean >= 2'
assert_jq "$T/result.json" '.confidence_value > 0.9'
[ "$(makes)" = "$makes_before" ] || fail "a kernel was built"

# again: the same answer, nothing measured
runs() { ls "$MMLAB_RESULTS"/*/run.json | wc -l; }
runs_before=$(runs)
"$MMLAB" bisect run >"$T/again.out"
grep -q "first bad commit: $(sha e2e-c5)" "$T/again.out" || fail "run again does not print c5"
[ "$(runs)" = "$runs_before" ] || fail "run again measured something"
"$MMLAB" bisect reset
! git -C "$REPO" worktree list | grep -q "$MMLAB_RESULTS/bisect" ||
	fail "reset left a bisect worktree: $(git -C "$REPO" worktree list)"
no_leftover_domains
echo ok
