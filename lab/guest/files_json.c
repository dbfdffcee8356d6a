// SPDX-License-Identifier: GPL-2.0
/*
 * files_json.c - what became of the collected files (struct
 * guest_file_list, files.h) as the iteration's "files".
 */
#include <stdlib.h>

#include "guest/files.h"

static json_t *file_json(const struct guest_file *f)
{
	char *stored;
	json_t *j;

	if (!f->stored)
		return json_pack("{s:s, s:s}", "path", f->path, "error", f->error);
	stored = xasprintf("files%s", f->path);
	j = json_pack("{s:s, s:I, s:s}", "path", f->path, "size", (json_int_t)f->size, "stored",
		      stored);
	if (f->stored_size < f->size) {
		json_object_set_new(j, "stored_size", json_integer((json_int_t)f->stored_size));
		json_object_set_new(j, "truncated", json_true());
	}
	free(stored);
	return j;
}

json_t *guest_file_list_json(const struct guest_file_list *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, file_json(&l->v[i]));
	return a;
}
