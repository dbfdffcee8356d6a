/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemo.h - the kernel cache's memos, each a file under CACHE/kernels/
 * holding an entry's key:
 *
 *   requests/<sha256 of the request>  the same tree, commits, operations,
 *                                     config inputs and compiler: no git,
 *                                     no Kconfig, no make
 *   trees/<sha256 of (source tree, config recipe's contents, compiler)>
 *                                     a tree built before: no checkout, no
 *                                     Kconfig, no make
 *
 * The final .config, and so the key, follow from the tree, the config
 * recipe and the toolchain; like requests/, trees/ trusts the compiler's
 * version line for the toolchain (after upgrading binutils, build with
 * --rebuild).
 */
#ifndef MMLAB_KMEMO_H
#define MMLAB_KMEMO_H

#include "kernel/kcache.h"

/* the request's identity: everything that determines the key (64 hex digits) */
char *kmemo_request_hash(const struct kcache_req *q, const char *git_dir, const char *base_commit);
/* trees/<hash> for tree_id and q's config recipe, or NULL + message */
char *kmemo_tree_path(const char *cache_dir, const struct kcache_req *q, const char *tree_id);
/* the key a memo names, or NULL */
char *kmemo_read(const char *path);
/* write the memo (its directory made when missing); failures are not fatal */
void kmemo_write(const char *path, const char *key);
/* tinyconfig, defconfig, allnoconfig: a base Kconfig makes, no file */
bool kmemo_named_base(const char *base);
/* remove the memos under kernels/SUB/ whose entry is gone */
void kmemo_drop_stale(const char *cache_dir, const char *sub);

#endif
