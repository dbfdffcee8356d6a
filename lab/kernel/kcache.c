// SPDX-License-Identifier: GPL-2.0
/*
 * kcache.c - the content-addressed kernel cache: work out the variant's
 * source tree without a checkout, answer from the memos when that tree was
 * built before; else check it out in the lab's worktree, configure, key,
 * build when the key is missing, store.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "kernel/build.h"
#include "kernel/bzimage.h"
#include "kernel/kcache.h"
#include "kernel/kmemo.h"
#include "kernel/srctree.h"
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/strbuf.h"

#define META_MAX (1u << 20)

void kcache_key(const char *tree_id, const char *config_hash, const char *cc_version,
		char out[KCACHE_KEY_LEN + 1])
{
	char *s = xasprintf("tree %s\nconfig %s\ncc %s\n", tree_id, config_hash, cc_version);
	char hex[65];

	sha256_buf(s, strlen(s), hex);
	memcpy(out, hex, KCACHE_KEY_LEN);
	out[KCACHE_KEY_LEN] = '\0';
	free(s);
}

static char *kdir(const char *cache_dir, const char *sub)
{
	return xasprintf("%s/kernels/%s", cache_dir, sub);
}

static json_t *read_meta(const char *entry_dir)
{
	char *p = xasprintf("%s/meta.json", entry_dir);
	json_t *m = path_exists(p) ? json_load_file(p, 0, NULL) : NULL;

	free(p);
	return m;
}

static int fill_result(const char *cache_dir, const char *key, struct kcache_result *res)
{
	char *sub = xasprintf("entries/%s", key);

	res->dir = kdir(cache_dir, sub);
	free(sub);
	{
		json_t *doc = read_meta(res->dir);
		int bad = !doc || kcache_meta_from_json(doc, &res->meta);

		json_decref(doc);
		if (bad)
			return -1;
	}
	res->key = xstrdup(key);
	res->bzimage = xasprintf("%s/bzImage", res->dir);
	free(res->log);
	res->log = xasprintf("%s/build.log", res->dir);
	return access(res->bzimage, R_OK) ? -1 : 0;
}

/* CONFIG_MODULES=y in dir/name (a .config) */
static bool config_has_modules(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	char *text = read_file(p, NULL, 16u << 20);
	bool yes = text && (!strncmp(text, "CONFIG_MODULES=y\n", 17) ||
			    strstr(text, "\nCONFIG_MODULES=y\n"));

	free(text);
	free(p);
	return yes;
}

/*
 * An entry of a kernel with modules stored before entries had a module
 * build kit (entry/build/): only a build can make one.
 */
static bool lacks_kit(const struct kcache_result *res)
{
	char *mk = xasprintf("%s/build/Makefile", res->dir);
	bool lacks = config_has_modules(res->dir, "config") && access(mk, R_OK) &&
		     !res->meta.no_build_kit;

	free(mk);
	return lacks;
}

static int lock_tree(const char *srcdir)
{
	char *p = xasprintf("%s/lock", srcdir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		lab_err("cannot open the lock %s: %s", p, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB)) {
		lab_info("waiting for another mmlab building from the same tree (%s)", p);
		if (flock(fd, LOCK_EX)) {
			lab_err("cannot lock %s: %s", p, strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	free(p);
	return fd;
}

/* copy cfgdir/.config to builddir/.config unless identical (keeps make incremental) */
static int install_config(const char *cfg, const char *builddir)
{
	char *dst = xasprintf("%s/.config", builddir);
	char *a = read_file(cfg, NULL, 16u << 20);
	char *b = path_exists(dst) ? read_file(dst, NULL, 16u << 20) : NULL;
	int ret = 0;

	if (!a || !b || strcmp(a, b))
		ret = a ? copy_file(cfg, dst, 0644) : -1;
	free(a);
	free(b);
	free(dst);
	return ret;
}

/*
 * make modules_install into entry/lib/modules/<release>/, the layout of a
 * root filesystem (diskimage.c copies it into the guest disk). Its "build"
 * symlink points at the shared O= directory, which later builds of other
 * variants change: it is removed (the entry's build/ is the kit).
 */
static int install_modules(const char *entry, const char *wt, const char *builddir, const char *log,
			   const char *key)
{
	char *o = xasprintf("O=%s", builddir), *m = xasprintf("INSTALL_MOD_PATH=%s", entry);
	const char *argv[] = { "make", "-C", wt, o, m, "modules_install", NULL };
	char *rel = xasprintf("%s/include/config/kernel.release", builddir);
	char *release = read_file(rel, NULL, 4096);
	struct spawn_result r = { 0 };
	char how[64];
	int ret = -1;

	if (spawn_run(argv, &(struct spawn_opts){ .timeout_s = 1800, .log_path = log }, &r)) {
		lab_err("kernel %s: make modules_install failed (%s): %s; the whole output is "
			"in %s",
			key, spawn_describe(&r, 1800, how, sizeof(how)), spawn_tail(&r, 10), log);
	} else if (release) {
		char *link;

		release[strcspn(release, "\n")] = '\0';
		link = xasprintf("%s/lib/modules/%s/build", entry, release);
		unlink(link);
		free(link);
		ret = 0;
	} else {
		lab_err("kernel %s: cannot read %s after the build", key, rel);
	}
	spawn_result_free(&r);
	free(release);
	free(rel);
	free(o);
	free(m);
	return ret;
}

/*
 * The external-module build kit of the kernel in entry/build/: what the
 * kernel's own scripts/package/install-extmod-build puts in a Debian
 * linux-headers package (the source's Makefiles, include/, arch headers and
 * scripts/, the build's generated headers, Module.symvers and host tools)
 * plus .config. "make -C entry/build M=DIR" then builds a module for exactly
 * this kernel at any later time, whatever the shared O= directory holds.
 * Run while builddir still holds this kernel's build (under the tree lock).
 * 0, 1 when the tree is too old to have the script (a warning), or -1.
 */
static int make_build_kit(const char *entry, const char *wt, const char *builddir, const char *log,
			  const char *key)
{
	char *script = xasprintf("%s/scripts/package/install-extmod-build", wt);
	char *dest = xasprintf("%s/build", entry), *srctree = xasprintf("srctree=%s", wt);
	char *cfg = xasprintf("%s/.config", builddir), *kcfg = xasprintf("%s/.config", dest);
	/* CC equal to HOSTCC: the host tools of the build are kept, not rebuilt */
	const char *env[] = { srctree, "SRCARCH=x86", "CC=gcc", "HOSTCC=gcc", "MAKE=make", NULL };
	const char *argv[] = { "sh", script, dest, NULL };
	struct spawn_result r = { 0 };
	char how[64];
	int ret = -1;

	if (access(script, R_OK)) {
		lab_warn("kernel %s: the tree has no scripts/package/install-extmod-build "
			 "(Linux 6.8 and later have it): stored without a module build kit, "
			 "so workload modules (pagebench) cannot be built for it",
			 key);
		ret = 1;
	} else if (spawn_run(
			   argv,
			   &(struct spawn_opts){
				   .cwd = builddir, .env = env, .timeout_s = 600, .log_path = log },
			   &r)) {
		lab_err("kernel %s: making the module build kit failed (%s): %s; the whole "
			"output is in %s",
			key, spawn_describe(&r, 600, how, sizeof(how)), spawn_tail(&r, 10), log);
	} else {
		ret = copy_file(cfg, kcfg, 0644);
	}
	spawn_result_free(&r);
	free(script);
	free(dest);
	free(srctree);
	free(cfg);
	free(kcfg);
	return ret;
}

static int store_entry(const char *cache_dir, const char *key, const char *wt, const char *builddir,
		       const char *log, struct kcache_meta *meta)
{
	char *sub = xasprintf("entries/%s", key), *dir = kdir(cache_dir, sub);
	char *tmp = xasprintf("%s.tmp-%d", dir, (int)getpid());
	static const char *const files[][2] = {
		{ "arch/x86/boot/bzImage", "bzImage" },
		{ "System.map", "System.map" },
		{ ".config", "config" },
	};
	int ret = -1;

	rm_rf(tmp);
	if (mkdir_p(tmp, 0755))
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *s = xasprintf("%s/%s", builddir, files[i][0]);
		char *d = xasprintf("%s/%s", tmp, files[i][1]);
		int r = copy_file(s, d, 0644);

		free(s);
		free(d);
		if (r)
			goto out;
	}
	{
		char *d = xasprintf("%s/build.log", tmp);

		copy_file(log, d, 0644);
		free(d);
	}
	if (config_has_modules(builddir, ".config")) {
		int kit;

		if (install_modules(tmp, wt, builddir, log, key))
			goto out;
		kit = make_build_kit(tmp, wt, builddir, log, key);
		if (kit < 0)
			goto out;
		meta->modules = true;
		meta->no_build_kit = kit != 0;
	}
	{
		char *mp = xasprintf("%s/meta.json", tmp);
		json_t *doc = kcache_meta_json(meta);
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);

		json_decref(doc);
		ret = write_file_atomic(mp, s, strlen(s), 0644);
		free(s);
		free(mp);
		if (ret)
			goto out;
	}
	rm_rf(dir);
	if (rename(tmp, dir)) {
		lab_err("cannot store the kernel %s in %s: %s", key, dir, strerror(errno));
		ret = -1;
	}
out:
	if (ret)
		rm_rf(tmp);
	free(sub);
	free(dir);
	free(tmp);
	return ret;
}

/* a copy of s, or NULL (the field is then left out of meta.json) */
/* the request's operations and fragments into m */
static void meta_inputs(const struct kcache_req *q, struct kcache_meta *m)
{
	char hex[65];

	m->nops = q->nops;
	m->ops = q->nops ? xcalloc(q->nops, sizeof(*m->ops)) : NULL;
	for (size_t i = 0; i < q->nops; i++) {
		m->ops[i].op = xstrdup(src_op_name(q->ops[i].kind));
		m->ops[i].arg = xstrdup_or_null(q->ops[i].arg);
		m->ops[i].resolved = xstrdup_or_null(q->ops[i].resolved);
	}
	m->nfrags = q->nfragments;
	m->frags = q->nfragments ? xcalloc(q->nfragments, sizeof(*m->frags)) : NULL;
	for (size_t i = 0; i < q->nfragments; i++) {
		sha256_file(q->fragments[i], hex);
		m->frags[i].path = xstrdup(q->fragments[i]);
		m->frags[i].sha256 = xstrdup(hex);
	}
}

static const char *const gd_args[] = { "rev-parse", "--path-format=absolute", "--git-common-dir",
				       NULL };

/*
 * The request resolved: the repository's common git directory, the base
 * commit, every operation (q->ops[].resolved) and the request's hash.
 * 0, or -1 after one message.
 */
static int resolve(const struct kcache_req *q, char **git_dir, char **base, char **request)
{
	char *what;

	*git_dir = *base = *request = NULL;
	if (!kbuild_cc_version())
		return -1;
	*git_dir = git_out(q->tree, gd_args);
	if (!*git_dir) {
		lab_err("variant '%s': %s is not a git tree; 'kernels: tree:' must name a "
			"git checkout of the kernel",
			q->variant, q->tree);
		return -1;
	}
	what = xasprintf("variant '%s': ref", q->variant);
	*base = git_resolve_commit(q->tree, q->ref, what);
	free(what);
	if (*base && !src_ops_resolve(q->tree, q->ops, q->nops, q->variant))
		*request = kmemo_request_hash(q, *git_dir, *base);
	return *request ? 0 : -1;
}

int kcache_request(const struct kcache_req *q, char **request, char **base_commit)
{
	char *git_dir, *base, *req;
	int ret = resolve(q, &git_dir, &base, &req);

	free(git_dir);
	if (ret) {
		free(base);
		free(req);
		base = req = NULL;
	}
	*request = req;
	*base_commit = base;
	return ret;
}

/* one kcache_get(): what it has worked out so far */
struct kget {
	const char *cache_dir;
	const struct kcache_req *q;
	char *git_dir, *base, *req_path;
	char *tree_id; /* the variant's source tree (srctree.h) */
	char *memo_path; /* trees/<hash>: (tree, config recipe, compiler) -> key */
	double t0, t_prep, t_cfg, t_build;
};

static void kget_release(struct kget *k)
{
	free(k->git_dir);
	free(k->base);
	free(k->req_path);
	free(k->tree_id);
	free(k->memo_path);
}

/* entry key serves q (it is there, with a kit when one is wanted): 0, else -1 */
static int use_entry(const char *cache_dir, const char *key, const struct kcache_req *q,
		     const char *tree_id, struct kcache_result *res)
{
	if (strlen(key) == KCACHE_KEY_LEN && fill_result(cache_dir, key, res) == 0 &&
	    !(q->want_kit && lacks_kit(res)) &&
	    (!tree_id || !strcmp(tree_id, res->meta.tree_id ?: "")))
		return 0;
	kcache_result_release(res);
	return -1;
}

/* meta m was built from tree_id with q's config recipe (named base) and compiler */
static bool meta_matches(const struct kcache_meta *m, const struct kcache_req *q,
			 const char *tree_id, const struct strlist *frag_hashes)
{
	char k[KCACHE_KEY_LEN + 1];

	if (!m->key || !m->config_hash || m->nfrags != frag_hashes->n ||
	    strcmp(m->tree_id ?: "", tree_id) || strcmp(m->compiler ?: "", kbuild_cc_version()) ||
	    strcmp(m->config_base ?: "", q->config_base))
		return false;
	for (size_t i = 0; i < frag_hashes->n; i++)
		if (strcmp(m->frags[i].sha256 ?: "", frag_hashes->v[i]))
			return false;
	kcache_key(tree_id, m->config_hash, kbuild_cc_version(), k);
	return !strcmp(k, m->key);
}

/*
 * An entry stored for this tree and config recipe before trees/ memos
 * existed, found by its meta.json: its key, or NULL. Only for a named
 * base (meta.json has no hash of a base file).
 */
static char *entry_by_meta(const char *cache_dir, const struct kcache_req *q, const char *tree_id)
{
	struct strlist hashes = { 0 };
	struct kcache_meta *all;
	char hex[65], *key = NULL;
	size_t i, n;

	if (!kmemo_named_base(q->config_base))
		return NULL;
	for (i = 0; i < q->nfragments; i++) {
		if (sha256_file(q->fragments[i], hex)) {
			strlist_free(&hashes);
			return NULL;
		}
		strlist_push(&hashes, hex);
	}
	kcache_list_meta(cache_dir, &all, &n);
	for (i = 0; i < n && !key; i++)
		if (meta_matches(&all[i], q, tree_id, &hashes))
			key = xstrdup(all[i].key);
	kcache_metas_free(all, n);
	strlist_free(&hashes);
	return key;
}

/* a request seen before: its entry, with no git and no Kconfig */
static bool request_hit(struct kget *k, struct kcache_result *res)
{
	char *key = k->q->rebuild ? NULL : kmemo_read(k->req_path);

	if (!key || use_entry(k->cache_dir, key, k->q, NULL, res)) {
		free(key);
		return false;
	}
	res->hit = res->request_hit = true;
	lab_info("variant '%s': kernel %s from the cache (request seen before)", k->q->variant,
		 key);
	free(key);
	return true;
}

/* the variant's tree built before with the same config recipe: no checkout, no Kconfig */
static bool tree_hit(struct kget *k, struct kcache_result *res)
{
	char *key;
	bool memo;

	if (k->q->rebuild)
		return false;
	key = kmemo_read(k->memo_path);
	memo = key != NULL;
	if (!key)
		key = entry_by_meta(k->cache_dir, k->q, k->tree_id);
	if (!key || use_entry(k->cache_dir, key, k->q, k->tree_id, res)) {
		free(key);
		return false;
	}
	res->hit = true;
	lab_info("variant '%s': kernel %s from the cache (tree %.12s already built)", k->q->variant,
		 key, k->tree_id);
	if (!memo)
		kmemo_write(k->memo_path, key);
	free(key);
	return true;
}

/* make, then store the entry key; 0, or -1 after one message */
static int build_store(struct kget *k, const char *key, const char *wt, const char *builddir,
		       const char *cfg, const char *cfg_hash, struct kcache_result *res)
{
	const struct kcache_req *q = k->q;
	char *lv = xasprintf("-mmlab-%.12s", key), *logs = kdir(k->cache_dir, "logs");
	char when[TIME_STR_LEN];
	struct kernel_info ki;
	struct kcache_meta meta = { 0 };
	bool fresh = false;
	int ret = -1;

	time_iso_now(when);
	if (mkdir_p(logs, 0755) || mkdir_p(builddir, 0755) || install_config(cfg, builddir))
		goto out;
	res->log = xasprintf("%s/%s-%s-%.12s.log", logs, when, q->variant, key);
	if (kbuild_make(wt, builddir, lv, res->log, q->variant, &k->t_build, &fresh))
		goto out;
	meta_inputs(q, &meta);
	meta.key = xstrdup_or_null(key);
	meta.variant = xstrdup_or_null(q->variant);
	meta.tree = xstrdup_or_null(q->tree);
	meta.tree_id = xstrdup_or_null(k->tree_id);
	meta.ref = xstrdup_or_null(q->ref);
	meta.base_commit = xstrdup_or_null(k->base);
	meta.config_base = xstrdup_or_null(q->config_base);
	meta.config_hash = xstrdup_or_null(cfg_hash);
	meta.compiler = xstrdup_or_null(kbuild_cc_version());
	meta.built = xstrdup_or_null(when);
	meta.log = xstrdup_or_null(res->log);
	meta.prepare_s = k->t_prep;
	meta.config_s = k->t_cfg;
	meta.build_s = k->t_build;
	{
		char *img = xasprintf("%s/arch/x86/boot/bzImage", builddir);

		if (kernel_read_info(img, &ki) == 0) {
			meta.release = xstrdup_or_null(ki.release);
			meta.version = xstrdup_or_null(ki.version);
			kernel_info_release(&ki);
		}
		free(img);
	}
	meta.full_build = fresh;
	ret = store_entry(k->cache_dir, key, wt, builddir, res->log, &meta);
	kcache_meta_release(&meta);
out:
	free(lv);
	free(logs);
	return ret;
}

/*
 * Kconfig in the lab worktree (scratch O= directory per config recipe):
 * *cfgdir and *builddir set, cfg_hash the final .config's. 0 or -1.
 */
static int configure(struct kget *k, const char *srcdir, const char *wt, char **cfgdir,
		     char **builddir, char cfg_hash[65], char **log)
{
	const struct kcache_req *q = k->q;
	struct strbuf all = STRBUF_INIT;
	char hex[65], when[TIME_STR_LEN], *logs = kdir(k->cache_dir, "logs"), *cfg;
	int ret = -1;

	/* the config directory and build directory belong to (tree, config inputs) */
	strbuf_addf(&all, "%s\n", q->config_base);
	for (size_t i = 0; i < q->nfragments; i++)
		strbuf_addf(&all, "%s\n", q->fragments[i]);
	sha256_buf(all.buf, all.len, hex);
	hex[16] = '\0';
	strbuf_release(&all);
	*cfgdir = xasprintf("%s/config-%s", srcdir, hex);
	*builddir = xasprintf("%s/build-%s", srcdir, hex);
	cfg = xasprintf("%s/.config", *cfgdir);
	time_iso_now(when);
	if (mkdir_p(logs, 0755) == 0)
		*log = xasprintf("%s/%s-%s-config.log", logs, when, q->variant);
	if (kconfig_make(wt, *cfgdir, q->config_base, q->fragments, q->nfragments, q->variant,
			 *log) == 0 &&
	    sha256_file(cfg, cfg_hash) == 0) {
		if (*log)
			unlink(*log); /* configured: the build log says the rest */
		free(*log);
		*log = NULL;
		ret = 0;
	}
	free(cfg);
	free(logs);
	return ret;
}

/*
 * Check out the variant's tree in the lab worktree (under the tree lock),
 * configure, and build unless the key is cached. 0 or -1 after a message.
 */
static int checkout_build(struct kget *k, struct kcache_result *res)
{
	const struct kcache_req *q = k->q;
	char *srcdir = NULL, *wt = NULL, *commit = NULL, *cfgdir = NULL, *builddir = NULL;
	char cfg_hash[65], key[KCACHE_KEY_LEN + 1], hex[65], *log = NULL;
	int lock_fd = -1, ret = -1;
	bool cached;

	sha256_buf(k->git_dir, strlen(k->git_dir), hex);
	hex[16] = '\0';
	{
		char *sub = xasprintf("src/%s", hex);

		srcdir = kdir(k->cache_dir, sub);
		free(sub);
	}
	if (mkdir_p(srcdir, 0755))
		goto out;
	lock_fd = lock_tree(srcdir);
	if (lock_fd < 0)
		goto out;
	wt = xasprintf("%s/wt", srcdir);
	commit = src_tree_commit(k->git_dir, k->base, k->tree_id, q->ops, q->nops, q->variant);
	if (!commit || src_checkout(q->tree, wt, commit, k->tree_id, q->variant))
		goto out;
	k->t_prep = now_monotonic() - k->t0;
	if (configure(k, srcdir, wt, &cfgdir, &builddir, cfg_hash, &log)) {
		res->log = log;
		goto out;
	}
	k->t_cfg = now_monotonic() - k->t0 - k->t_prep;
	kcache_key(k->tree_id, cfg_hash, kbuild_cc_version(), key);

	cached = !q->rebuild && fill_result(k->cache_dir, key, res) == 0;
	if (cached && q->want_kit && lacks_kit(res)) {
		lab_info("variant '%s': kernel %s is cached without a module build kit (an "
			 "older mmlab stored it); building it again to make one",
			 q->variant, key);
		cached = false;
	}
	if (cached) {
		res->hit = true;
		lab_info("variant '%s': kernel %s from the cache (tree %.12s already built)",
			 q->variant, key, k->tree_id);
	} else {
		char *cfg = xasprintf("%s/.config", cfgdir);
		int failed;

		kcache_result_release(res);
		failed = build_store(k, key, wt, builddir, cfg, cfg_hash, res) ||
			 fill_result(k->cache_dir, key, res);
		free(cfg);
		if (failed)
			goto out;
	}
	kmemo_write(k->memo_path, key);
	ret = 0;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(srcdir);
	free(wt);
	free(commit);
	free(cfgdir);
	free(builddir);
	return ret;
}

int kcache_get(const char *cache_dir, const struct kcache_req *q, struct kcache_result *res)
{
	struct kget k = { .cache_dir = cache_dir, .q = q, .t0 = now_monotonic() };
	char *req = NULL;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (resolve(q, &k.git_dir, &k.base, &req))
		goto out;
	k.req_path = xasprintf("%s/kernels/requests/%s", cache_dir, req);
	if (request_hit(&k, res)) {
		ret = 0;
		goto out;
	}
	/* the source tree without a checkout; a conflict stops here, nothing touched */
	if (src_tree(k.git_dir, k.base, q->ops, q->nops, q->variant, &k.tree_id))
		goto out;
	k.memo_path = kmemo_tree_path(cache_dir, q, k.tree_id);
	if (!k.memo_path)
		goto out;
	if (!tree_hit(&k, res) && checkout_build(&k, res))
		goto out;
	kmemo_write(k.req_path, res->key);
	ret = 0;
out:
	if (!ret)
		res->base_commit = xstrdup(k.base);
	if (ret) {
		char *log = res->log;

		res->log = NULL;
		kcache_result_release(res);
		res->log = log;
	}
	kget_release(&k);
	free(req);
	return ret;
}

void kcache_result_release(struct kcache_result *res)
{
	free(res->key);
	free(res->dir);
	free(res->bzimage);
	free(res->log);
	free(res->base_commit);
	kcache_meta_release(&res->meta);
	memset(res, 0, sizeof(*res));
}

/* an entry's meta.json, the document and typed */
struct kentry {
	json_t *doc;
	struct kcache_meta m;
};

static int cmp_built(const void *a, const void *b)
{
	const char *x = ((const struct kentry *)a)->m.built;
	const char *y = ((const struct kentry *)b)->m.built;

	return strcmp(x ? x : "", y ? y : "");
}

/* the entries whose meta.json reads, oldest first: *v (n of them) */
static void read_entries(const char *cache_dir, struct kentry **v, size_t *n)
{
	char *dir = kdir(cache_dir, "entries");
	struct dirent *e;
	DIR *d = opendir(dir);

	*v = NULL;
	*n = 0;
	while (d && (e = readdir(d))) {
		struct kentry k;
		char *p;

		if (strlen(e->d_name) != KCACHE_KEY_LEN)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		k.doc = read_meta(p);
		free(p);
		if (!k.doc || kcache_meta_from_json(k.doc, &k.m)) {
			json_decref(k.doc);
			continue;
		}
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = k;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(*v, *n, sizeof(**v), cmp_built);
	free(dir);
}

json_t *kcache_list(const char *cache_dir)
{
	json_t *out = json_array();
	struct kentry *v;
	size_t n;

	read_entries(cache_dir, &v, &n);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(out, v[i].doc);
		kcache_meta_release(&v[i].m);
	}
	free(v);
	return out;
}

void kcache_list_meta(const char *cache_dir, struct kcache_meta **out, size_t *n)
{
	struct kentry *v;

	read_entries(cache_dir, &v, n);
	*out = *n ? xcalloc(*n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < *n; i++) {
		json_decref(v[i].doc);
		(*out)[i] = v[i].m;
	}
	free(v);
}

void kcache_metas_free(struct kcache_meta *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kcache_meta_release(&v[i]);
	free(v);
}

json_t *kcache_show(const char *cache_dir, const char *key)
{
	struct kentry *v, *hit = NULL;
	json_t *out = NULL;
	size_t n, nhit = 0;

	read_entries(cache_dir, &v, &n);
	for (size_t i = 0; i < n; i++) {
		const char *k = v[i].m.key;

		if (k && *key && !strncmp(k, key, strlen(key))) {
			hit = &v[i];
			nhit++;
		}
	}
	if (nhit == 1) {
		out = json_incref(hit->doc);
		json_object_set_new(out, "dir",
				    json_pack("s++", cache_dir, "/kernels/entries/", hit->m.key));
	} else {
		lab_err("%s kernel in the cache has the key '%s'; 'mmlab kernel list' shows "
			"them",
			nhit ? "more than one" : "no", key);
	}
	for (size_t i = 0; i < n; i++) {
		json_decref(v[i].doc);
		kcache_meta_release(&v[i].m);
	}
	free(v);
	return out;
}

void kernel_uses_free(struct kernel_uses *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].run);
		free(u->v[i].cache_key);
		free(u->v[i].package_sha256);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

json_t *kcache_gc(const char *cache_dir, const struct kernel_uses *uses, bool dry_run)
{
	json_t *removed = json_array();
	struct kcache_meta *all;
	size_t n;

	kcache_list_meta(cache_dir, &all, &n);
	for (size_t i = 0; i < n; i++) {
		const char *k = all[i].key;
		bool used = false;

		for (size_t j = 0; j < uses->n && k; j++)
			used |= uses->v[j].cache_key && !strcmp(uses->v[j].cache_key, k);
		if (!k || used)
			continue;
		json_array_append_new(removed, json_string(k));
		if (!dry_run) {
			char *sub = xasprintf("entries/%s", k), *dir = kdir(cache_dir, sub);

			rm_rf(dir);
			free(sub);
			free(dir);
		}
	}
	/* request and tree memos whose entry is gone */
	if (!dry_run) {
		kmemo_drop_stale(cache_dir, "requests");
		kmemo_drop_stale(cache_dir, "trees");
	}
	kcache_metas_free(all, n);
	return removed;
}
