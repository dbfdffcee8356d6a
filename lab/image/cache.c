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

/* one image: KIND-HASH16SUFFIX in dir */
static json_t *list_one(const char *dir, const char *name, const char *kind)
{
	char *p = xasprintf("%s/%s", dir, name), when[TIME_STR_LEN], hash[17];
	bool disk = !strcmp(kind, "debootstrap");
	char *meta, *recipe, *suite, *pk;
	json_t *j = NULL;
	struct stat st;

	snprintf(hash, sizeof(hash), "%.16s", name + strlen(kind) + 1);
	meta = meta_read(dir, kind, hash);
	recipe = meta_value(meta, "recipe");
	suite = meta_value(meta, "suite");
	pk = meta_value(meta, "packages");
	if (stat(p, &st) == 0) {
		time_iso(st.st_mtime, when);
		/* a qcow2 is sparse: what it takes on the disk */
		j = json_pack("{s:s, s:s, s:s, s:I, s:s}", "kind", kind, "path", p, "hash", hash,
			      "size",
			      disk ? (json_int_t)st.st_blocks * 512 : (json_int_t)st.st_size,
			      "created", when);
		if (disk)
			json_object_update_missing_new(j, json_pack("{s:s?, s:s?}", "suite", suite,
								    "packages", pk));
		if (recipe)
			json_object_set_new(j, "recipe", json_string(recipe));
	}
	free(recipe);
	free(suite);
	free(pk);
	free(meta);
	free(p);
	return j;
}

static json_t *list_kind(const char *cache_dir, const char *kind, const char *suffix)
{
	char *dir = xasprintf("%s/images", cache_dir), *prefix = xasprintf("%s-", kind);
	json_t *out = json_array();
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		json_t *j;

		if (strncmp(e->d_name, prefix, strlen(prefix)) || strstr(e->d_name, ".tmp.") ||
		    !has_suffix(e->d_name, suffix))
			continue;
		j = list_one(dir, e->d_name, kind);
		if (j)
			json_array_append_new(out, j);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
	return out;
}

json_t *image_list(const char *cache_dir)
{
	return list_kind(cache_dir, "initramfs", ".cpio.gz");
}

json_t *disk_image_list(const char *cache_dir)
{
	return list_kind(cache_dir, "debootstrap", ".qcow2");
}

json_t *image_cache_list(const char *cache_dir)
{
	json_t *l = image_list(cache_dir), *dl = disk_image_list(cache_dir);

	json_array_extend(l, dl);
	json_decref(dl);
	return l;
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
