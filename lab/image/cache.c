// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - listing and collecting the cached guest images (cache.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image/cache.h"
#include "image/initramfs.h"
#include "lib/timefmt.h"
#include "lib/util.h"

#define META_MAX (1u << 16)

/* dir/KIND-HASH16.json, or NULL when there is none (images of older builds) */
static char *meta_read(const char *dir, const char *kind, const char *hash16)
{
	char *mp = xasprintf("%s/%s-%.16s.json", dir, kind, hash16);
	char *meta = path_exists(mp) ? read_file(mp, NULL, META_MAX) : NULL;

	free(mp);
	return meta;
}

static char *meta_value(const char *meta, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = meta; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == '=')
			return xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
	return NULL;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* one image: KIND-HASH16SUFFIX in dir; 0, or -1 when it is gone */
static int list_one(const char *dir, const char *name, const char *kind, struct cached_image *im)
{
	char *meta;
	struct stat st;

	*im = (struct cached_image){ .kind = kind, .path = xasprintf("%s/%s", dir, name) };
	if (stat(im->path, &st)) {
		free(im->path);
		return -1;
	}
	snprintf(im->hash, sizeof(im->hash), "%.16s", name + strlen(kind) + 1);
	time_iso(st.st_mtime, im->created);
	/* a qcow2 is sparse: what it takes on the disk */
	im->size = !strcmp(kind, "debootstrap") ? (long long)st.st_blocks * 512 :
						  (long long)st.st_size;
	meta = meta_read(dir, kind, im->hash);
	im->recipe = meta_value(meta, "recipe");
	if (!strcmp(kind, "debootstrap")) {
		im->suite = meta_value(meta, "suite");
		im->packages = meta_value(meta, "packages");
	}
	free(meta);
	return 0;
}

static void list_kind(const char *cache_dir, const char *kind, const char *suffix,
		      struct cached_image_list *out)
{
	char *dir = xasprintf("%s/images", cache_dir), *prefix = xasprintf("%s-", kind);
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		struct cached_image im;

		if (strncmp(e->d_name, prefix, strlen(prefix)) || strstr(e->d_name, ".tmp.") ||
		    !has_suffix(e->d_name, suffix) || list_one(dir, e->d_name, kind, &im))
			continue;
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = im;
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
}

void image_cache_scan(const char *cache_dir, struct cached_image_list *out)
{
	*out = (struct cached_image_list){ 0 };
	list_kind(cache_dir, "initramfs", ".cpio.gz", out);
	list_kind(cache_dir, "debootstrap", ".qcow2", out);
}

void cached_image_list_free(struct cached_image_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].suite);
		free(l->v[i].packages);
		free(l->v[i].recipe);
	}
	free(l->v);
	*l = (struct cached_image_list){ 0 };
}

/* the images of one kind, as JSON */
static json_t *kind_json(const char *cache_dir, const char *kind, const char *suffix)
{
	struct cached_image_list l = { 0 };
	json_t *j;

	list_kind(cache_dir, kind, suffix, &l);
	j = cached_image_list_json(&l);
	cached_image_list_free(&l);
	return j;
}

json_t *image_list(const char *cache_dir)
{
	return kind_json(cache_dir, "initramfs", ".cpio.gz");
}

json_t *disk_image_list(const char *cache_dir)
{
	return kind_json(cache_dir, "debootstrap", ".qcow2");
}

json_t *image_cache_list(const char *cache_dir)
{
	struct cached_image_list l;
	json_t *j;

	image_cache_scan(cache_dir, &l);
	j = cached_image_list_json(&l);
	cached_image_list_free(&l);
	return j;
}

/* whether the build of a NAME.tmp.<pid> work directory may still run */
static bool tmp_owner_alive(const char *name)
{
	const char *t = strstr(name, ".tmp.");

	return process_alive(t ? strtoll(t + 5, NULL, 10) : 0, NULL);
}

/*
 * Whether the entry name goes: its meta says which guest programs it
 * holds; an initramfs of an older build has no meta and its hash is the
 * hash of its guest programs.
 */
static bool gc_drop(const char *dir, const char *name, bool all, const char *cur)
{
	const char *kind = !strncmp(name, "initramfs-", 10)   ? "initramfs" :
			   !strncmp(name, "debootstrap-", 12) ? "debootstrap" :
								NULL;
	const char *hash;
	char *meta, *g;
	bool drop;

	if (strstr(name, ".tmp."))
		return !tmp_owner_alive(name);
	if (!kind || all)
		return kind != NULL;
	hash = name + strlen(kind) + 1;
	meta = meta_read(dir, kind, hash);
	g = meta_value(meta, "guest");
	if (!meta && kind[0] == 'i')
		drop = strncmp(hash, cur, 16) != 0;
	else
		drop = !g || strcmp(g, cur);
	free(g);
	free(meta);
	return drop;
}

json_t *image_cache_gc(const char *cache_dir, bool all)
{
	char *dir = xasprintf("%s/images", cache_dir), gh[65] = "";
	json_t *removed;
	struct dirent *e;
	DIR *d;

	if (!all && image_guest_hash(gh)) {
		free(dir);
		return NULL;
	}
	removed = json_array();
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.' || !gc_drop(dir, e->d_name, all, gh))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (!rm_rf(p))
			json_array_append_new(removed, json_string(p));
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return removed;
}
