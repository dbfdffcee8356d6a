/* SPDX-License-Identifier: GPL-2.0 */
/*
 * image.h - one entry for "build the image of this recipe", whatever its
 * kind: resolve the recipe (a name or a file, the kind's default, and the
 * command line's changes), then find it in the cache or build it
 * (initramfs.h, diskimage.h).
 */
#ifndef MMLAB_IMAGE_IMAGE_H
#define MMLAB_IMAGE_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "image/recipe.h"
#include "lib/util.h"

struct image_request {
	const char *recipe; /* NAME or FILE (image_recipe_path()); NULL: the default */
	int kind; /* enum recipe_kind, or -1: the recipe's (default initramfs) */
	const char *suite; /* debootstrap: replaces the recipe's */
	const struct strlist *packages; /* debootstrap: added to the recipe's */
	uint64_t size_bytes; /* debootstrap: replaces the recipe's (0: keep) */
};

/*
 * The recipe rq names, with rq's changes. 0, or -1 after one message (a
 * usage error of the command): no such recipe, errors in it, a kind other than rq->kind,
 * changes that do not apply to its kind.
 */
int image_resolve(const struct image_request *rq, struct image_recipe *out);

struct image_built {
	char *path; /* in the cache */
	char hash[65];
	bool built; /* built now */
	bool cached; /* was in the cache already */
};

/*
 * Find or build the image of r (minutes for a disk image); with dry_run
 * only say where it is or would be; tcg: a disk image's libguestfs
 * appliance runs under TCG (disk_image_make()). 0, or -1 after one message.
 */
int image_make(const char *cache_dir, const struct image_recipe *r, bool dry_run, bool tcg,
	       struct image_built *out);
void image_built_release(struct image_built *b);

#endif
