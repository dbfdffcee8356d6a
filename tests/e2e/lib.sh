# Shared helpers for the e2e tests (sourced). Like tests/integration/lib.sh,
# plus: REPO (the e2e kernel repository), LAB_CONFIG, and the lab's
# worktree and build logs in the shared cache build/e2e/cache.
set -euo pipefail
MMLAB="$MMLAB_SRCDIR/mmlab"
export MMLAB_CACHE=${MMLAB_CACHE:-$MMLAB_SRCDIR/build/e2e/cache}
REPO=$("$MMLAB_SRCDIR/tests/e2e/make-tree")
LAB_CONFIG=$MMLAB_SRCDIR/kernels/lab.config
mkdir -p "$MMLAB_SRCDIR/build/e2e/tmp"
T=$(mktemp -d "$MMLAB_SRCDIR/build/e2e/tmp/t.XXXXXX")
export MMLAB_RESULTS="$T/results"

. "$MMLAB_SRCDIR/tests/assert.sh"
trap cleanup EXIT
# the lab's worktree of REPO (there is one per tree)
lab_worktree() {
	local wt
	for wt in "$MMLAB_CACHE"/kernels/src/*/wt; do
		[ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir)" = \
		  "$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir)" ] &&
			{ echo "$wt"; return 0; }
	done
	return 1
}
# the worktree is clean: no changes, no am/revert/cherry-pick in progress
assert_worktree_clean() {
	local wt st gd
	wt=$(lab_worktree) || fail "no lab worktree of $REPO"
	st=$(git -C "$wt" status --porcelain)
	[ -z "$st" ] || fail "the lab worktree $wt is not clean: $st"
	gd=$(git -C "$wt" rev-parse --git-dir)
	for f in rebase-apply REVERT_HEAD CHERRY_PICK_HEAD MERGE_HEAD; do
		[ ! -e "$gd/$f" ] || fail "the lab worktree $wt has $f left over"
	done
}
# the lab worktree's HEAD, index mtime and status, or "absent": the same
# before and after means nothing was checked out or changed there
worktree_state() {
	local wt gd
	wt=$(lab_worktree) || { echo absent; return 0; }
	gd=$(git -C "$wt" rev-parse --absolute-git-dir)
	echo "$(cat "$gd/HEAD") $(stat -c %y "$gd/index")"
	git -C "$wt" --no-optional-locks status --porcelain
}
# number of build logs whose name carries this key (one per make run)
make_runs_for() { ls "$MMLAB_CACHE"/kernels/logs/ 2>/dev/null | grep -c -- "-${1:0:12}.log" || true; }
