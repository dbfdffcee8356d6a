// SPDX-License-Identifier: GPL-2.0
/*
 * package_cache.c - unpacked kernel packages in the kernel cache
 * (package.h):
 *
 *   CACHE/kernels/packages/<sha256>/   vmlinuz config System.map lib/modules/ meta.json
 *   CACHE/kernels/packages/apt/<name>_<version>   -> <sha256> (a fetch seen before)
 *
 * An entry is unpacked into a scratch directory beside it and renamed into
 * place once whole, so a refused or interrupted package leaves nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/bzimage.h"
#include "kernel/kcache.h"
#include "kernel/package.h"
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/util.h"

#define META_MAX (1u << 20)
#define DEPMOD_TIMEOUT_S 300

void pkg_entry_release(struct pkg_entry *e)
{
	free(e->dir);
	free(e->image);
	free(e->sha256);
	json_decref(e->meta);
	pkg_meta_release(&e->m);
	memset(e, 0, sizeof(*e));
}

static char *pdir(const char *cache_dir, const char *sub)
{
	return xasprintf("%s/kernels/packages%s%s", cache_dir, sub ? "/" : "", sub ? sub : "");
}

static int fill_entry(const char *cache_dir, const char *sha, struct pkg_entry *e)
{
	char *meta;

	e->dir = pdir(cache_dir, sha);
	meta = xasprintf("%s/meta.json", e->dir);
	e->meta = path_exists(meta) ? json_load_file(meta, 0, NULL) : NULL;
	free(meta);
	if (!e->meta || pkg_meta_from_json(e->meta, &e->m)) {
		json_decref(e->meta);
		e->meta = NULL;
		free(e->dir);
		e->dir = NULL;
		return -1;
	}
	e->image = xasprintf("%s/vmlinuz", e->dir);
	e->sha256 = xstrdup(sha);
	return 0;
}

/* depmod -b DIR RELEASE: modules.dep for the modules as unpacked (no host path) */
static int depmod(const char *dir, const char *release, const char *where)
{
	char *mods = xasprintf("%s/lib/modules/%s", dir, release);
	const char *argv[] = { "depmod", "-b", dir, release, NULL };
	struct spawn_opts o = { .timeout_s = DEPMOD_TIMEOUT_S };
	struct spawn_result r;
	char why[96];
	int ret = 0;

	if (is_dir(mods) && spawn_run(argv, &o, &r)) {
		lab_err("%s: depmod -b %s %s failed (%s): %s; install kmod", where, dir, release,
			spawn_describe(&r, o.timeout_s, why, sizeof(why)), spawn_tail(&r, 5));
		ret = -1;
	}
	if (is_dir(mods))
		spawn_result_free(&r);
	free(mods);
	return ret;
}

static json_t *meta_json(const struct pkg_info *pi, const char *sha, const char *file,
			 const struct pkg_info *mi, const struct kernel_info *ki)
{
	char now[TIME_STR_LEN];
	struct pkg_meta m = {
		.package = pi->name,
		.version = pi->version,
		.architecture = pi->arch,
		.format = (char *)pkg_format_name(pi->format),
		.sha256 = (char *)sha,
		.release = ki->release,
		.file = (char *)(strrchr(file, '/') ? strrchr(file, '/') + 1 : file),
		.fetched = now,
		.files = (int64_t)pi->files,
		.unpacked_bytes = (int64_t)pi->bytes,
		.has_modules = mi != NULL,
		.modules_package = mi ? mi->name : NULL,
		.modules_version = mi ? mi->version : NULL,
	};

	time_iso_now(now);
	return pkg_meta_json(&m);
}

/* unpacked in tmp: the image readable, modules.dep made, meta.json written */
static int finish(const char *tmp, const char *sha, const char *file, const struct pkg_info *pi,
		  const struct pkg_info *mi, const char *where)
{
	char *img = xasprintf("%s/vmlinuz", tmp), *mp = xasprintf("%s/meta.json", tmp), *text;
	struct kernel_info ki;
	int ret = -1;

	if (kernel_read_info(img, &ki)) {
		lab_err("%s: the kernel image in %s is not bootable (see above): refused", where,
			file);
	} else {
		if (strcmp(ki.release, pi->release))
			lab_warn("%s: the image in %s says release %s, its path %s", where, file,
				 ki.release, pi->release);
		if (!depmod(tmp, pi->release, where)) {
			json_t *m = meta_json(pi, sha, file, mi, &ki);

			text = json_dumps(m, JSON_INDENT(2));
			ret = write_file_atomic(mp, text, strlen(text), 0644);
			free(text);
			json_decref(m);
		}
		kernel_info_release(&ki);
	}
	free(img);
	free(mp);
	return ret;
}

/* the key of a package (with a modules rpm: of both sha256s) */
static int file_key(const char *path, const char *modules, const char *where, char key[65])
{
	char a[65], b[65];

	if (sha256_file(path, a) || (modules && sha256_file(modules, b))) {
		lab_err("%s: cannot read the package %s: %s", where,
			modules && path_exists(path) ? modules : path, strerror(errno));
		return -1;
	}
	if (!modules) {
		memcpy(key, a, 65);
	} else {
		char *s = xasprintf("%s\n%s\n", a, b);

		sha256_buf(s, strlen(s), key);
		free(s);
	}
	return 0;
}

static int unpack_into(const char *tmp, const char *path, const char *modules, const char *want,
		       const char *sha, const char *where)
{
	struct pkg_info pi, mi = { 0 };
	int ret = pkg_unpack_file(path, tmp, want, true, where, &pi);

	if (!ret && modules)
		ret = pkg_unpack_file(modules, tmp, "rpm", false, where, &mi);
	if (!ret && modules && mi.release && strcmp(mi.release, pi.release)) {
		lab_err("%s: the modules rpm %s is for the kernel %s, the kernel rpm %s for %s; "
			"give the two of one kernel",
			where, modules, mi.release, path, pi.release);
		ret = -1;
	}
	if (!ret)
		ret = finish(tmp, sha, path, &pi, modules ? &mi : NULL, where);
	pkg_info_release(&pi);
	pkg_info_release(&mi);
	return ret;
}

int pkg_get_file(const char *cache_dir, const char *path, const char *modules, const char *want,
		 const char *where, struct pkg_entry *e)
{
	char key[65], *top = pdir(cache_dir, NULL), *tmp = NULL, *dst;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	if (file_key(path, modules, where, key) || mkdir_p(top, 0755)) {
		free(top);
		return -1;
	}
	if (fill_entry(cache_dir, key, e) == 0) {
		e->hit = true;
		free(top);
		return 0;
	}
	lab_info("unpacking %s%s%s into the kernel cache", path, modules ? " and " : "",
		 modules ? modules : "");
	tmp = xasprintf("%s/.tmp-%.16s-%ld", top, key, (long)getpid());
	rm_rf(tmp);
	dst = pdir(cache_dir, key);
	if (mkdir_p(tmp, 0755) == 0 && unpack_into(tmp, path, modules, want, key, where) == 0) {
		if (rename(tmp, dst) && !is_dir(dst))
			lab_err("%s: cannot store %s as %s: %s", where, tmp, dst, strerror(errno));
		else
			ret = fill_entry(cache_dir, key, e);
	}
	rm_rf(tmp);
	free(tmp);
	free(dst);
	free(top);
	return ret;
}

/* ---- apt ------------------------------------------------------------------ */

static char *memo_path(const char *cache_dir, const char *name, const char *version)
{
	char *sub = xasprintf("apt/%s_%s", name, version), *p = pdir(cache_dir, sub);

	free(sub);
	return p;
}

/* the entry a fetch of name=version stored before, or -1 */
static int memo_hit(const char *cache_dir, const char *name, const char *version,
		    struct pkg_entry *e)
{
	char *p = memo_path(cache_dir, name, version);
	char *sha = path_exists(p) ? read_file(p, NULL, 128) : NULL;
	int ret = -1;

	if (sha) {
		sha[strcspn(sha, "\n")] = '\0';
		if (strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64)
			ret = fill_entry(cache_dir, sha, e);
	}
	free(sha);
	free(p);
	return ret;
}

static int fetch_unpack(const char *cache_dir, const char *name, const char *version,
			const char *source, const char *where, struct pkg_entry *e)
{
	char *top = pdir(cache_dir, NULL), *dl = xasprintf("%s/.dl-XXXXXX", top), *file = NULL;
	const char *got;
	int ret = -1;

	if (mkdir_p(top, 0755) || !mkdtemp(dl)) {
		lab_err("%s: cannot make a scratch directory in %s: %s", where, top,
			strerror(errno));
	} else if (pkg_apt_download(name, version, dl, source, where, &file) == 0 &&
		   pkg_get_file(cache_dir, file, NULL, "deb", where, e) == 0) {
		got = e->m.version;
		if (!got || strcmp(got, version) || strcmp(e->m.package ?: "", name)) {
			lab_err("%s: apt fetched %s, which is not %s %s: refused", where, file,
				name, version);
			pkg_entry_release(e);
		} else {
			char *memo = memo_path(cache_dir, name, version),
			     *apt = pdir(cache_dir, "apt");

			mkdir_p(apt, 0755);
			ret = write_file_atomic(memo, e->sha256, strlen(e->sha256), 0644);
			free(memo);
			free(apt);
		}
	}
	if (*dl)
		rm_rf(dl);
	free(file);
	free(dl);
	free(top);
	return ret;
}

int pkg_get_apt(const char *cache_dir, const char *name, const char *version, const char *where,
		struct pkg_entry *e)
{
	char *cand = NULL, *source = NULL;
	int ret;

	memset(e, 0, sizeof(*e));
	if (!version) {
		cand = pkg_apt_candidate(name, where, &source);
		if (!cand)
			return -1;
		version = cand;
	}
	if (memo_hit(cache_dir, name, version, e) == 0) {
		e->hit = true;
		free(cand);
		free(source);
		return 0;
	}
	ret = cand ? 0 : pkg_apt_check_version(name, version, where, &source);
	if (!ret)
		ret = fetch_unpack(cache_dir, name, version, source, where, e);
	free(cand);
	free(source);
	return ret;
}

/* ---- list, gc ------------------------------------------------------------- */

/* bytes under dir (files only; links are never made in an entry) */
static uint64_t du(const char *dir, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *e;
	uint64_t n = 0;

	while (d && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (!lstat(p, &st))
			n += S_ISDIR(st.st_mode) ? du(p, depth + 1) : (uint64_t)st.st_blocks * 512;
		free(p);
	}
	if (d)
		closedir(d);
	return n;
}

/* sha256 -> [run ids] of every run whose variants[].kernel.package names it */
static json_t *package_runs(const struct kernel_uses *uses)
{
	json_t *by = json_object(), *runs;

	for (size_t i = 0; uses && i < uses->n; i++) {
		const char *sha = uses->v[i].package_sha256;

		if (!sha)
			continue;
		runs = json_object_get(by, sha);
		if (!runs)
			json_object_set_new(by, sha, runs = json_array());
		json_array_append_new(runs, json_string(uses->v[i].run));
	}
	return by;
}

static int cmp_fetched(const void *a, const void *b)
{
	const char *x = ((const struct pkg_entry *)a)->m.fetched;
	const char *y = ((const struct pkg_entry *)b)->m.fetched;

	return strcmp(x ? x : "", y ? y : "");
}

/* the cached packages whose meta.json reads, oldest first: *v (n of them) */
static void read_entries(const char *cache_dir, struct pkg_entry **v, size_t *n)
{
	char *top = pdir(cache_dir, NULL);
	DIR *d = opendir(top);
	struct dirent *e;

	*v = NULL;
	*n = 0;
	while (d && (e = readdir(d))) {
		struct pkg_entry pe = { 0 };

		if (strlen(e->d_name) != 64 || fill_entry(cache_dir, e->d_name, &pe))
			continue;
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = pe;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(*v, *n, sizeof(**v), cmp_fetched);
	free(top);
}

static void entries_free(struct pkg_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pkg_entry_release(&v[i]);
	free(v);
}

void pkg_list_entries(const char *cache_dir, const struct kernel_uses *uses, struct pkg_listed **v,
		      size_t *n)
{
	json_t *runs = package_runs(uses);
	struct pkg_entry *e;

	read_entries(cache_dir, &e, n);
	*v = *n ? xcalloc(*n, sizeof(**v)) : NULL;
	for (size_t i = 0; i < *n; i++) {
		struct pkg_listed *l = &(*v)[i];
		json_t *r = json_object_get(runs, e[i].sha256);

		l->e = e[i];
		l->size_bytes = du(l->e.dir, 0);
		l->runs = r ? json_incref(r) : json_array();
		json_object_set_new(l->e.meta, "dir", json_string(l->e.dir));
		json_object_set_new(l->e.meta, "size_bytes",
				    json_integer((json_int_t)l->size_bytes));
		json_object_set_new(l->e.meta, "runs", l->runs);
	}
	free(e);
	json_decref(runs);
}

void pkg_listed_free(struct pkg_listed *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pkg_entry_release(&v[i].e);
	free(v);
}

json_t *pkg_listed_json(const struct pkg_listed *v, size_t n)
{
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append(out, v[i].e.meta);
	return out;
}

json_t *pkg_list(const char *cache_dir, const struct kernel_uses *uses)
{
	struct pkg_listed *v;
	size_t n;
	json_t *out;

	pkg_list_entries(cache_dir, uses, &v, &n);
	out = pkg_listed_json(v, n);
	pkg_listed_free(v, n);
	return out;
}

/* apt memos whose entry is gone */
static void drop_stale_memos(const char *cache_dir)
{
	char *apt = pdir(cache_dir, "apt");
	DIR *d = opendir(apt);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p = xasprintf("%s/%s", apt, e->d_name), *sha, *entry = NULL;

		sha = e->d_name[0] == '.' ? NULL : read_file(p, NULL, 128);
		if (sha && strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64)
			entry = pdir(cache_dir, sha);
		if (sha && (!entry || !is_dir(entry)))
			unlink(p);
		free(entry);
		free(sha);
		free(p);
	}
	if (d)
		closedir(d);
	free(apt);
}

json_t *pkg_gc(const char *cache_dir, const struct kernel_uses *uses, bool dry_run)
{
	json_t *removed = json_array();
	struct pkg_entry *v;
	size_t n;

	read_entries(cache_dir, &v, &n);
	for (size_t i = 0; i < n; i++) {
		bool used = false;

		for (size_t j = 0; uses && j < uses->n; j++)
			used |= uses->v[j].package_sha256 &&
				!strcmp(uses->v[j].package_sha256, v[i].sha256);
		if (used)
			continue;
		json_array_append_new(removed, json_string(v[i].sha256));
		if (!dry_run)
			rm_rf(v[i].dir);
	}
	if (!dry_run)
		drop_stale_memos(cache_dir);
	entries_free(v, n);
	return removed;
}
