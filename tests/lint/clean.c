// SPDX-License-Identifier: GPL-2.0
/*
 * clean.c - the control of the linter's own test (tests/lint/run): code in
 * the tree's style, with the project's headers and jansson's iteration
 * macros, that every linter must pass. A linter that fails here is
 * misconfigured; one that passes here and on the planted bugs checks
 * nothing.
 *
 * lint-expect: pass
 */
#include <jansson.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"

char *clean_keys(json_t *obj, json_t *arr);

/* "key=value ..." of an object's string members, then the array's count */
char *clean_keys(json_t *obj, json_t *arr)
{
	struct strbuf sb = STRBUF_INIT;
	const char *key;
	json_t *v;
	size_t i, n = 0;

	json_object_foreach(obj, key, v) {
		if (json_is_string(v))
			strbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", key, json_string_value(v));
	}
	json_array_foreach(arr, i, v) {
		if (json_is_integer(v))
			n++;
	}
	strbuf_addf(&sb, " (%zu numbers)", n);
	return strbuf_detach(&sb);
}
