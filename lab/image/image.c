// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - build the image of a recipe, whatever its kind (image.h).
 */
#include <stdlib.h>
#include <string.h>

#include "image/diskimage.h"
#include "image/image.h"
#include "image/initramfs.h"

static bool has_changes(const struct image_request *rq)
{
	return rq->suite || (rq->packages && rq->packages->n) || rq->size_bytes;
}

int image_resolve(const struct image_request *rq, struct image_recipe *out)
{
	enum recipe_kind k = rq->kind >= 0 ? (enum recipe_kind)rq->kind : RECIPE_INITRAMFS;
	struct disk_recipe dr = {
		.suite = rq->suite,
		.packages = rq->packages,
		.size_bytes = rq->size_bytes,
	};
	char *path = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (rq->recipe && !(path = image_recipe_path(rq->recipe, NULL)))
		return -1;
	ret = path ? image_recipe_load(path, out) : image_recipe_load_default(k, out);
	free(path);
	if (ret)
		return -1;
	if (rq->kind >= 0 && out->kind != k) {
		lab_err("the image recipe %s is of kind %s, not %s; leave out the kind or give "
			"a %s recipe",
			out->path, image_recipe_kind_name(out->kind), image_recipe_kind_name(k),
			image_recipe_kind_name(k));
		ret = -1;
	} else if (out->kind != RECIPE_DEBOOTSTRAP && has_changes(rq)) {
		lab_err("a suite, packages and a size apply to debootstrap images; the recipe "
			"%s is an initramfs (give --kind debootstrap or a debootstrap recipe)",
			out->path);
		ret = -1;
	} else if (out->kind == RECIPE_DEBOOTSTRAP) {
		disk_recipe_apply(&dr, out);
	}
	if (ret)
		image_recipe_release(out);
	return ret;
}

int image_make(const char *cache_dir, const struct image_recipe *r, bool dry_run, bool tcg,
	       struct image_built *out)
{
	memset(out, 0, sizeof(*out));
	if (r->kind == RECIPE_DEBOOTSTRAP) {
		struct disk_image d;

		if (disk_image_make(cache_dir, r, dry_run, tcg, &d))
			return -1;
		out->path = d.path;
		memcpy(out->hash, d.hash, sizeof(out->hash));
		out->built = d.built;
	} else {
		struct image img;

		if (image_initramfs_make(cache_dir, r, dry_run, &img))
			return -1;
		out->path = img.path;
		memcpy(out->hash, img.hash, sizeof(out->hash));
		out->built = img.built;
	}
	out->cached = !out->built && path_exists(out->path);
	return 0;
}

void image_built_release(struct image_built *b)
{
	free(b->path);
	b->path = NULL;
}
