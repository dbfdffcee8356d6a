/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srctree.h - a kernel variant's source tree worked out in git's object
 * database alone, without a checkout: the base commit's tree, then in
 * order every revert and cherry-pick as the three-way merge git revert
 * and git cherry-pick make (git merge-tree --write-tree, merge-ort), and
 * every patch applied to a temporary index (GIT_INDEX_FILE; git apply
 * --cached; an mbox split and read message by message with git mailsplit
 * and git mailinfo, as git am does). No worktree, HEAD or index of the
 * user's or the lab's is read or written; only new objects are. The
 * result is the tree id the cache key is made of, the same as a checkout
 * and the same operations give (existing cache entries stay valid).
 */
#ifndef MMLAB_SRCTREE_H
#define MMLAB_SRCTREE_H

#include <stddef.h>

#include "kernel/gitops.h"

/*
 * The tree of commit with ops (resolved by src_ops_resolve()) applied in
 * order, in the repository whose common git directory is git_dir. 0 with
 * *tree_id (malloc'd hex), or -1 after one message; a conflict or a patch
 * that does not apply names the variant, the operation, the files, git's
 * words and what to do.
 */
int src_tree(const char *git_dir, const char *commit, const struct src_op *ops, size_t nops,
	     const char *variant, char **tree_id);

/*
 * A commit to check out for a build: commit itself without operations,
 * else a new commit of tree_id whose parent is commit and whose message
 * lists the operations (fixed identity and date: the same inputs give
 * the same commit). Malloc'd hex, or NULL after one message.
 */
char *src_tree_commit(const char *git_dir, const char *commit, const char *tree_id,
		      const struct src_op *ops, size_t nops, const char *variant);

#endif
