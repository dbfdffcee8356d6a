// SPDX-License-Identifier: GPL-2.0
/*
 * kcache_json.c - a kernel cache entry's meta.json into the typed
 * struct kcache_meta (kcache.h). The cache writes meta.json itself, but a
 * file on disk may be damaged: strings and the fragment list are bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/kcache.h"
#include "lib/util.h"

/* o[name] copied into *out (NULL when absent or not a string): 0, or -1 over the bound */
static int str_field(json_t *o, const char *name, char **out)
{
	const char *s = json_string_value(json_object_get(o, name));

	*out = NULL;
	if (!s)
		return 0;
	if (json_string_length(json_object_get(o, name)) > KCACHE_META_MAX_STR)
		return -1;
	*out = xstrdup(s);
	return 0;
}

static int frags_from_json(json_t *frags, struct kcache_meta *m)
{
	size_t n = json_array_size(frags);

	if (n > KCACHE_META_MAX_FRAGS)
		return -1;
	m->frag_sha256 = n ? xcalloc(n, sizeof(*m->frag_sha256)) : NULL;
	m->nfrags = n;
	for (size_t i = 0; i < n; i++)
		if (str_field(json_array_get(frags, i), "sha256", &m->frag_sha256[i]))
			return -1;
	return 0;
}

int kcache_meta_from_json(json_t *doc, struct kcache_meta *m)
{
	json_t *cfg = json_object_get(doc, "config");

	memset(m, 0, sizeof(*m));
	if (!json_is_object(doc))
		return -1;
	if (str_field(doc, "key", &m->key) || str_field(doc, "built", &m->built) ||
	    str_field(doc, "tree_id", &m->tree_id) || str_field(cfg, "base", &m->config_base) ||
	    frags_from_json(json_object_get(cfg, "fragments"), m) ||
	    str_field(doc, "config_hash", &m->config_hash) ||
	    str_field(doc, "compiler", &m->compiler) ||
	    str_field(doc, "base_commit", &m->base_commit) ||
	    str_field(doc, "variant", &m->variant) || str_field(doc, "release", &m->release)) {
		kcache_meta_release(m);
		return -1;
	}
	m->no_build_kit = json_is_false(json_object_get(doc, "build_kit"));
	return 0;
}

void kcache_meta_release(struct kcache_meta *m)
{
	free(m->key);
	free(m->built);
	free(m->tree_id);
	free(m->config_base);
	for (size_t i = 0; i < m->nfrags; i++)
		free(m->frag_sha256[i]);
	free(m->frag_sha256);
	free(m->config_hash);
	free(m->compiler);
	free(m->base_commit);
	free(m->variant);
	free(m->release);
	memset(m, 0, sizeof(*m));
}
