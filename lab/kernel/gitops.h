/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gitops.h - git for kernel variants: the operations of a variant (revert,
 * cherry-pick, apply) resolved, git run with the lab's environment, and the
 * lab-owned worktree (never the user's checkout) that a build checks out.
 * The variant's source tree itself is worked out without a checkout
 * (srctree.h).
 */
#ifndef MMLAB_GITOPS_H
#define MMLAB_GITOPS_H

#include <stddef.h>

#include "lib/util.h"

enum src_op_kind {
	SRC_OP_REVERT,
	SRC_OP_CHERRY_PICK,
	SRC_OP_APPLY,
};
const char *src_op_name(enum src_op_kind k); /* "revert", "cherry_pick", "apply" */

struct src_op {
	enum src_op_kind kind;
	char *arg; /* a commit-ish, or the absolute path of a patch */
	char *resolved; /* full commit id, or "sha256:<hex>" of the patch file */
};

struct spawn_result;
/* the environment every git of the lab runs with: identity, C locale, no prompts */
extern const char *const git_lab_env[];
/*
 * git -C dir ARGS... (at most 24, NULL-terminated) with the lab's identity
 * and C locale; git's exit code (spawn_run()), *r filled when r is not
 * NULL (the caller frees it with spawn_result_free()).
 */
int git_run(const char *dir, const char *const args[], struct spawn_result *r);
/* git -C dir ARGS... ; its trimmed output (first line) or NULL + message */
char *git_out(const char *dir, const char *const args[]);
/* the full commit id of REV in the repository at dir, or NULL + message */
char *git_resolve_commit(const char *dir, const char *rev, const char *what);
/* resolve every operation's commit / patch hash; 0 or -1 + message */
int src_ops_resolve(const char *tree, struct src_op *ops, size_t nops, const char *variant);
/* is this patch file an mbox (git am) rather than a plain diff (git apply)? */
int patch_is_mbox(const char *path);
/* git's own words for a failure in its output: error/fatal/CONFLICT lines, not hints */
char *git_reason(const char *out);

/*
 * Make wt a detached worktree of tree at commit (git worktree add on first
 * use; later abort anything in progress, reset, clean and check out, which
 * touches only the files that differ, so make stays incremental), then
 * check that it holds exactly tree_id, clean: 0, or -1 after one message
 * (a worktree holding anything else is never built).
 */
int src_checkout(const char *tree, const char *wt, const char *commit, const char *tree_id,
		 const char *variant);
/* tree id of HEAD in wt (git rev-parse HEAD^{tree}), NULL + message */
char *src_tree_id(const char *wt);

#endif
