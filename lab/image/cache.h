/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - the cached guest images under CACHE/images/ (docs/image.md):
 * initramfs-HASH.cpio.gz and debootstrap-HASH.qcow2, each with
 * KIND-HASH.json next to it (key=value lines: what the hash covers,
 * recipe=NAME, guest=HASH of the guest programs it holds). An image is
 * built as *.tmp.<pid> and renamed into place when complete.
 */
#ifndef MMLAB_IMAGE_CACHE_H
#define MMLAB_IMAGE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/timefmt.h"

/* one cached image */
struct cached_image {
	const char *kind; /* "initramfs" or "debootstrap" (static) */
	char *path; /* CACHE/images/KIND-HASH16SUFFIX */
	char hash[17]; /* the first 16 hex digits of its hash */
	long long size; /* bytes it takes on the disk (a qcow2 is sparse) */
	char created[TIME_STR_LEN]; /* its mtime, ISO 8601 UTC */
	/* from KIND-HASH16.json, NULL when it does not say (malloc'd) */
	char *suite, *packages; /* debootstrap */
	char *recipe;
};

struct cached_image_list {
	struct cached_image *v;
	size_t n;
};

/* the images of the cache, initramfs images first; free with cached_image_list_free() */
void image_cache_scan(const char *cache_dir, struct cached_image_list *out);
void cached_image_list_free(struct cached_image_list *l);
/*
 * cache_json.c: the list as JSON (a new reference), each image
 * {"kind","path","hash","size","created"}, a debootstrap image with
 * "suite" and "packages" (null when not known), "recipe" when known
 */
json_t *cached_image_list_json(const struct cached_image_list *l);

/* [{"kind":"initramfs","path","hash","size","created","recipe"?}] (a new reference) */
json_t *image_list(const char *cache_dir);
/*
 * [{"kind":"debootstrap","path","hash","size","created","suite","packages","recipe"?}]
 * (a new reference)
 */
json_t *disk_image_list(const char *cache_dir);
/* both, initramfs images first (a new reference) */
json_t *image_cache_list(const char *cache_dir);

/*
 * Remove leftovers of interrupted builds and every cached image (initramfs
 * and debootstrap) whose guest programs are not the current ones; with all,
 * every image. Returns the removed paths as a JSON array, NULL on error.
 * Returns a new reference.
 */
json_t *image_cache_gc(const char *cache_dir, bool all);

#endif
