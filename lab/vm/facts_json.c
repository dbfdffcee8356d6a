// SPDX-License-Identifier: GPL-2.0
/*
 * facts_json.c - host-facts.json <-> struct facts_cache (facts_json.h).
 */
#include <string.h>

#include "vm/facts_json.h"

int facts_cache_parse(const char *text, size_t len, struct facts_cache *c)
{
	json_t *root, *key, *facts;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (len > FACTS_CACHE_MAX)
		return -1;
	root = json_loadb(text, len, 0, NULL);
	key = json_object_get(root, "key");
	facts = json_object_get(root, "facts");
	if (key && json_is_object(facts) && json_is_string(json_object_get(facts, "qemu"))) {
		c->key = json_incref(key);
		c->facts = json_incref(facts);
		ret = 0;
	}
	json_decref(root);
	return ret;
}

void facts_cache_free(struct facts_cache *c)
{
	json_decref(c->key);
	json_decref(c->facts);
	memset(c, 0, sizeof(*c));
}

char *facts_cache_dump(const struct facts_cache *c)
{
	json_t *root = json_pack("{s:O, s:O}", "key", c->key, "facts", c->facts);
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);

	json_decref(root);
	return text;
}
