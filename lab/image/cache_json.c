// SPDX-License-Identifier: GPL-2.0
/*
 * cache_json.c - the cached images (struct cached_image_list, cache.h) as
 * `mmlab image list --json` prints them.
 */
#include <string.h>

#include "image/cache.h"

static json_t *image_json(const struct cached_image *im)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:s}", "kind", im->kind, "path", im->path,
			      "hash", im->hash, "size", (json_int_t)im->size, "created",
			      im->created);

	if (j && !strcmp(im->kind, "debootstrap"))
		json_object_update_missing_new(j, json_pack("{s:s?, s:s?}", "suite", im->suite,
							    "packages", im->packages));
	if (j && im->recipe)
		json_object_set_new(j, "recipe", json_string(im->recipe));
	return j;
}

json_t *cached_image_list_json(const struct cached_image_list *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, image_json(&l->v[i]));
	return a;
}
