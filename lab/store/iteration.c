// SPDX-License-Identifier: GPL-2.0
/*
 * iteration.c - reading an iteration's file of the store
 * (DIR/<run>/<variant>/<i>/iteration.json) as a struct iteration_record.
 * store_iteration_write() and the index are store.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "store/iteration.h"
#include "store/store.h"
#include "lib/util.h"

static bool component_ok(const char *s)
{
	return s && *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

int store_iteration_read(struct store *s, const char *run, const char *variant, unsigned int index,
			 struct iteration_record *rec)
{
	char *dir, *path, *buf, *where;
	json_error_t e;
	size_t len;
	json_t *j;
	int ret = -1;

	memset(rec, 0, sizeof(*rec));
	if (!component_ok(run) || !component_ok(variant)) {
		lab_err("bad run or variant name '%s/%s'", run, variant);
		return -1;
	}
	dir = store_iteration_path(s, run, variant, index);
	path = xasprintf("%s/iteration.json", dir);
	where = xasprintf("run %s variant %s iteration %u", run, variant, index);
	buf = read_file(path, &len, ITER_MAX_FILE);
	j = buf ? json_loadb(buf, len, 0, &e) : NULL;
	if (buf && !j)
		lab_err("%s:%d:%d: %s", path, e.line, e.column, e.text);
	if (j)
		ret = iteration_record_from_json(j, rec, where);
	json_decref(j);
	free(buf);
	free(where);
	free(path);
	free(dir);
	return ret;
}
