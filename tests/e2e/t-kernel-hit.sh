# A kernel-cache hit runs no checkout: a variant whose source tree was
# built before (e2e-c5 with e2e-c5 reverted is e2e-c4's tree, and so is
# e2e-c3 with c4's mbox applied) is worked out in git's object database
# and served from the cache without a checkout, a revert or am in a
# worktree, Kconfig or make: every git mmlab runs is traced (GIT_TRACE),
# and the lab worktree and the user's tree stay as they were. A revert
# that conflicts is the clear error, worked out the same way, and leaves
# both as they were too.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

# e2e-c4: the cold build every e2e test shares (or a hit)
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name parent --json >"$T/parent.json"
assert_jq "$T/parent.json" '.ok and (.cache_key | length == 24)'
parent=$(jq -r .cache_key "$T/parent.json")
runs_before=$(make_runs_for "$parent")
git -C "$REPO" format-patch -q --stdout e2e-c3..e2e-c4 >"$T/c4.mbox"

# the user's tree: HEAD, index mtime, status
repo_state() {
	git -C "$REPO" rev-parse HEAD
	stat -c %y "$(git -C "$REPO" rev-parse --absolute-git-dir)/index"
	git -C "$REPO" --no-optional-locks status --porcelain
}
# no git that checks out or changes a worktree ran (GIT_TRACE's built-ins)
assert_no_checkout() {
	local bad
	[ -s "$T/trace" ] || fail "GIT_TRACE wrote nothing to $T/trace"
	bad=$(grep -E 'trace: built-in: git (checkout|switch|worktree|reset|clean|revert|cherry-pick|am|apply --index|commit|merge|read-tree -u)( |$)' \
		"$T/trace" || true)
	[ -z "$bad" ] || fail "a cache hit ran git in a worktree: $bad"
}
# kernel build NAME ARGS...: traced, the memo of a request seen before
# dropped first so that the tree is worked out again
hit() {
	local name=$1 s e
	shift
	{ grep -l "^$parent\$" "$MMLAB_CACHE"/kernels/requests/* 2>/dev/null || true; } |
		xargs -r rm -f
	rm -f "$T/trace"
	s=$(date +%s.%N)
	GIT_TRACE="$T/trace" "$MMLAB" kernel build --tree "$REPO" --fragment "$LAB_CONFIG" \
		--name "$name" --json "$@" >"$T/$name.json" 2>"$T/$name.err"
	e=$(date +%s.%N)
	cat "$T/$name.err"
	echo "$name: $(echo "$e - $s" | bc -l) s"
	assert_jq "$T/$name.json" ".ok and .cache_hit and .cache_key == \"$parent\""
	grep -q "variant '$name': kernel $parent from the cache (tree " "$T/$name.err" ||
		fail "$name was not served by its tree"
	assert_no_checkout
}

wt0=$(worktree_state)
repo0=$(repo_state)
# an entry stored before trees/ memos existed: found by its meta.json
rm -f "$MMLAB_CACHE"/kernels/trees/*
hit revert --ref e2e-c5 --revert e2e-c5
# then by the trees/ memo that lookup wrote
[ -n "$(ls "$MMLAB_CACHE"/kernels/trees/)" ] || fail "no trees/ memo written"
hit revert2 --ref e2e-c5 --revert e2e-c5
hit apply --ref e2e-c3 --apply "$T/c4.mbox"
hit chain --ref e2e-c5 --revert e2e-c5 --revert e2e-c4 --cherry-pick e2e-c4
[ "$(make_runs_for "$parent")" = "$runs_before" ] || fail "make ran for $parent"
[ "$(worktree_state)" = "$wt0" ] || fail "the lab worktree changed: $wt0 -> $(worktree_state)"
[ "$(repo_state)" = "$repo0" ] || fail "the user's tree changed"

# c5's line is under c7's and c8's: reverting c5 on c8 conflicts
rm -f "$T/trace"
rc=0
GIT_TRACE="$T/trace" "$MMLAB" kernel build --tree "$REPO" --ref e2e-c8 --revert e2e-c5 \
	--fragment "$LAB_CONFIG" --name conflict 2>"$T/err" || rc=$?
cat "$T/err"
[ "$rc" = 1 ] || fail "exit $rc; expected 1"
grep -q "variant 'conflict': revert e2e-c5 failed in mm/compaction.c (CONFLICT (content): Merge conflict in mm/compaction.c); .*untouched. Rebase the commit onto the variant's ref or drop it" \
	"$T/err" || fail "the error does not name the variant, the revert, the file and what to do"
assert_no_checkout
[ "$(worktree_state)" = "$wt0" ] || fail "the lab worktree changed: $wt0 -> $(worktree_state)"
[ "$(repo_state)" = "$repo0" ] || fail "the user's tree changed"
echo ok
