// SPDX-License-Identifier: GPL-2.0
/*
 * sources_json.c - a cached source file's record <-> struct source_meta
 * (sources_json.h).
 */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "lib/util.h"
#include "mmtests/sources_json.h"

static bool sha256_ok(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* an optional string member, copied: 0 (absent: NULL), -1 when not a string */
static int str_field(json_t *j, const char *key, char **out)
{
	json_t *v = json_object_get(j, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = xstrdup(json_string_value(v));
	return 0;
}

int source_meta_parse(const char *text, size_t len, struct source_meta *m)
{
	json_t *j, *size, *sha;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	if (len > SOURCE_META_MAX)
		return -1;
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	size = json_object_get(j, "size");
	sha = json_object_get(j, "sha256");
	if (!json_is_object(j) || !json_is_integer(size) || json_integer_value(size) < 0 ||
	    !json_is_string(sha) || !sha256_ok(json_string_value(sha)))
		goto out;
	m->size = (uint64_t)json_integer_value(size);
	memcpy(m->sha256, json_string_value(sha), sizeof(m->sha256));
	if (str_field(j, "url", &m->url) || str_field(j, "fetched", &m->fetched) ||
	    str_field(j, "by", &m->by) || str_field(j, "commit", &m->commit))
		goto out;
	ret = 0;
out:
	json_decref(j);
	return ret;
}

void source_meta_free(struct source_meta *m)
{
	free(m->url);
	free(m->fetched);
	free(m->by);
	free(m->commit);
	memset(m, 0, sizeof(*m));
}

char *source_meta_dump(const struct source_meta *m)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s}", "size", (json_int_t)m->size, "sha256",
			      m->sha256, "url", m->url, "fetched", m->fetched, "by", m->by);
	char *text;

	if (!j)
		return NULL; /* a string that is not UTF-8, or NULL */
	if (m->commit && json_object_set_new(j, "commit", json_string(m->commit))) {
		json_decref(j);
		return NULL;
	}
	text = json_dumps(j, JSON_INDENT(2));
	json_decref(j);
	return text;
}
