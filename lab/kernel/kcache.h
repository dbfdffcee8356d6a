/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcache.h - the content-addressed cache of built kernels.
 *
 * key = sha256("tree <git tree id after the operations>\nconfig <sha256 of
 * the final .config>\ncc <compiler version>\n"), its first 24 hex digits.
 * Layout under CACHE/kernels/:
 *
 *   entries/<key>/{bzImage,System.map,config,build.log,meta.json}
 *   entries/<key>/lib/modules/<release>/  make modules_install (CONFIG_MODULES=y)
 *   entries/<key>/build/                  the external-module build kit (idem)
 *   requests/<sha256 of the request>      -> key (a request seen before: no git, no make)
 *   trees/<sha256 of tree, config recipe, compiler> -> key (a tree built before: no
 *                                         checkout, no Kconfig)
 *   src/<tree hash>/wt                    the lab's git worktree of the user's tree
 *   src/<tree hash>/build-<config hash>   one O= directory per (tree, config), reused
 *   src/<tree hash>/config-<config hash>  scratch O= directory for Kconfig
 *   src/<tree hash>/lock                  flock: one variant at a time per tree
 *   logs/<time>-<variant>.log             build logs (kept; copied into the entry)
 */
#ifndef MMLAB_KCACHE_H
#define MMLAB_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "kernel/gitops.h"

#define KCACHE_KEY_LEN 24

struct kcache_req {
	const char *variant; /* for messages */
	const char *tree; /* the user's git tree (absolute) */
	const char *ref;
	struct src_op *ops; /* resolved by kcache_get() */
	size_t nops;
	const char *config_base; /* tinyconfig (default), defconfig, distro, PATH */
	const char *const *fragments; /* absolute paths */
	size_t nfragments;
	bool rebuild; /* make even when the key is cached (replaces the entry) */
	bool want_kit; /* a cached entry with modules but no build/ is rebuilt */
};

/* a config fragment of an entry: its path and sha256 when it was built */
struct kcache_frag {
	char *path;
	char *sha256;
};

/* an operation of the request that built an entry (src_op_name()) */
struct kcache_op {
	char *op;
	char *arg;
	char *resolved;
};

/*
 * An entry's meta.json, typed (kcache_json.c). Read back, a string is NULL
 * when the document lacks it or holds another type there.
 */
struct kcache_meta {
	char *key;
	char *variant;
	char *tree; /* the user's git tree */
	char *tree_id;
	char *ref;
	char *base_commit;
	struct kcache_op *ops;
	size_t nops;
	char *config_base; /* config.base */
	struct kcache_frag *frags; /* config.fragments */
	size_t nfrags;
	char *config_hash;
	char *compiler;
	char *built; /* ISO time of the build: entries sort by it */
	char *log;
	double prepare_s, config_s, build_s; /* timings */
	char *release; /* NULL: the image was not read */
	char *version;
	bool full_build;
	bool modules; /* CONFIG_MODULES=y: lib/modules/ installed */
	bool no_build_kit; /* "build_kit": false (true or absent: false here) */
};

/* bounds of a meta.json: the cache is the lab's, but a file can be damaged */
#define KCACHE_META_MAX_STR 4096
#define KCACHE_META_MAX_LIST 256 /* fragments, operations */

/*
 * doc (borrowed) into m: 0, or -1 when doc is not an object or a string or
 * a list is over the bounds above (m is then empty).
 */
int kcache_meta_from_json(json_t *doc, struct kcache_meta *m);
/* meta.json of m: a new reference (NULL strings are left out) */
json_t *kcache_meta_json(const struct kcache_meta *m);
void kcache_meta_release(struct kcache_meta *m);

struct kcache_result {
	char *key;
	char *dir; /* the entry's directory */
	char *bzimage;
	char *log; /* the build log (also set when the build failed) */
	bool hit; /* no build was needed */
	bool request_hit; /* known request: not even git or Kconfig ran */
	struct kcache_meta meta; /* meta.json */
	/*
	 * the variant's own base commit: meta.json's is the one of the request
	 * that built the entry, which may differ (another ref, the same tree)
	 */
	char *base_commit;
};

/* key from its parts (unit-tested): out gets KCACHE_KEY_LEN hex digits */
void kcache_key(const char *tree_id, const char *config_hash, const char *cc_version,
		char out[KCACHE_KEY_LEN + 1]);

/*
 * The request's identity without building: the ref and the operations
 * resolved (q->ops[].resolved set), then the hash of everything that
 * determines the key (tree, commit, operations, config inputs, compiler).
 * Two requests with one hash get one cache entry. 0 with *request (64 hex
 * digits) and *base_commit malloc'd, or -1 after one message.
 */
int kcache_request(const struct kcache_req *q, char **request, char **base_commit);

/*
 * 0 and the entry, or -1 after one message. A request seen before is
 * answered from requests/; otherwise the variant's tree is worked out in
 * git's object database (srctree.h) and a tree built before with the same
 * config recipe and compiler is answered from trees/ (or, for entries
 * stored before trees/ existed, their meta.json) without a checkout or
 * Kconfig. Only then is the tree checked out in the lab worktree,
 * configured, keyed, and built when the key is missing.
 */
int kcache_get(const char *cache_dir, const struct kcache_req *q, struct kcache_result *res);
void kcache_result_release(struct kcache_result *res);

/* [meta.json of each entry], oldest first: a new reference */
json_t *kcache_list(const char *cache_dir);
/* the same entries typed, oldest first: *v (n of them) for kcache_metas_free() */
void kcache_list_meta(const char *cache_dir, struct kcache_meta **v, size_t *n);
void kcache_metas_free(struct kcache_meta *v, size_t n);
/* an entry by key or unique key prefix: a new reference; NULL + message */
json_t *kcache_show(const char *cache_dir, const char *key);
/*
 * What the stored runs use, for the caches' gc: a run's kernel record names
 * a kernel cache entry, a cached package, or both. kernel/ sits below
 * store/: the store fills this (store_kernels_used(), store.h).
 */
struct kernel_use {
	char *run;
	char *cache_key; /* or NULL */
	char *package_sha256; /* or NULL */
};

struct kernel_uses {
	struct kernel_use *v;
	size_t n;
};

void kernel_uses_free(struct kernel_uses *u);

/*
 * Remove the entries no run uses (used: their cache_keys) and the request
 * memos pointing at them. Returns the removed keys, a new reference.
 */
json_t *kcache_gc(const char *cache_dir, const struct kernel_uses *used, bool dry_run);

#endif
