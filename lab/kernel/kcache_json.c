// SPDX-License-Identifier: GPL-2.0
/*
 * kcache_json.c - a kernel cache entry's meta.json <-> struct kcache_meta
 * (kcache.h). The cache writes meta.json itself, but a file on disk may be
 * damaged: strings and lists are bounded when read.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/kcache.h"
#include "lib/util.h"

/* o[name] copied into *out (NULL when absent or not a string): 0, or -1 over the bound */
static int str_field(json_t *o, const char *name, char **out)
{
	json_t *v = json_object_get(o, name);

	*out = NULL;
	if (!json_is_string(v))
		return 0;
	if (json_string_length(v) > KCACHE_META_MAX_STR)
		return -1;
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int frags_from_json(json_t *frags, struct kcache_meta *m)
{
	size_t n = json_array_size(frags);

	if (n > KCACHE_META_MAX_LIST)
		return -1;
	m->frags = n ? xcalloc(n, sizeof(*m->frags)) : NULL;
	m->nfrags = n;
	for (size_t i = 0; i < n; i++)
		if (str_field(json_array_get(frags, i), "path", &m->frags[i].path) ||
		    str_field(json_array_get(frags, i), "sha256", &m->frags[i].sha256))
			return -1;
	return 0;
}

static int ops_from_json(json_t *ops, struct kcache_meta *m)
{
	size_t n = json_array_size(ops);

	if (n > KCACHE_META_MAX_LIST)
		return -1;
	m->ops = n ? xcalloc(n, sizeof(*m->ops)) : NULL;
	m->nops = n;
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(ops, i);

		if (str_field(o, "op", &m->ops[i].op) || str_field(o, "arg", &m->ops[i].arg) ||
		    str_field(o, "resolved", &m->ops[i].resolved))
			return -1;
	}
	return 0;
}

static int strs_from_json(json_t *doc, struct kcache_meta *m)
{
	return str_field(doc, "key", &m->key) || str_field(doc, "variant", &m->variant) ||
	       str_field(doc, "tree", &m->tree) || str_field(doc, "tree_id", &m->tree_id) ||
	       str_field(doc, "ref", &m->ref) || str_field(doc, "base_commit", &m->base_commit) ||
	       str_field(doc, "config_hash", &m->config_hash) ||
	       str_field(doc, "compiler", &m->compiler) || str_field(doc, "built", &m->built) ||
	       str_field(doc, "log", &m->log) || str_field(doc, "release", &m->release) ||
	       str_field(doc, "version", &m->version);
}

int kcache_meta_from_json(json_t *doc, struct kcache_meta *m)
{
	json_t *cfg = json_object_get(doc, "config"), *t = json_object_get(doc, "timings");

	memset(m, 0, sizeof(*m));
	if (!json_is_object(doc))
		return -1;
	if (strs_from_json(doc, m) || str_field(cfg, "base", &m->config_base) ||
	    frags_from_json(json_object_get(cfg, "fragments"), m) ||
	    ops_from_json(json_object_get(doc, "operations"), m)) {
		kcache_meta_release(m);
		return -1;
	}
	m->prepare_s = json_number_value(json_object_get(t, "prepare_s"));
	m->config_s = json_number_value(json_object_get(t, "config_s"));
	m->build_s = json_number_value(json_object_get(t, "build_s"));
	m->full_build = json_is_true(json_object_get(doc, "full_build"));
	m->modules = json_is_true(json_object_get(doc, "modules"));
	m->no_build_kit = json_is_false(json_object_get(doc, "build_kit"));
	return 0;
}

json_t *kcache_meta_json(const struct kcache_meta *m)
{
	json_t *frags = json_array(), *ops = json_array(), *o;

	for (size_t i = 0; i < m->nfrags; i++)
		json_array_append_new(frags, json_pack("{s:s*, s:s*}", "path", m->frags[i].path,
						       "sha256", m->frags[i].sha256));
	for (size_t i = 0; i < m->nops; i++)
		json_array_append_new(ops,
				      json_pack("{s:s*, s:s*, s:s*}", "op", m->ops[i].op, "arg",
						m->ops[i].arg, "resolved", m->ops[i].resolved));
	o = json_pack("{s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:o, s:{s:s*, s:o}, s:s*, s:s*,"
		      " s:s*, s:s*, s:{s:f, s:f, s:f}, s:s*, s:s*, s:b}",
		      "key", m->key, "variant", m->variant, "tree", m->tree, "tree_id", m->tree_id,
		      "ref", m->ref, "base_commit", m->base_commit, "operations", ops, "config",
		      "base", m->config_base, "fragments", frags, "config_hash", m->config_hash,
		      "compiler", m->compiler, "built", m->built, "log", m->log, "timings",
		      "prepare_s", m->prepare_s, "config_s", m->config_s, "build_s", m->build_s,
		      "release", m->release, "version", m->version, "full_build", m->full_build);
	if (m->modules) {
		json_object_set_new(o, "modules", json_true());
		json_object_set_new(o, "build_kit", json_boolean(!m->no_build_kit));
	}
	return o;
}

void kcache_meta_release(struct kcache_meta *m)
{
	char **s[] = { &m->key,		&m->variant,	 &m->tree,	  &m->tree_id,	&m->ref,
		       &m->base_commit, &m->config_base, &m->config_hash, &m->compiler, &m->built,
		       &m->log,		&m->release,	 &m->version };

	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		free(*s[i]);
	for (size_t i = 0; i < m->nfrags; i++) {
		free(m->frags[i].path);
		free(m->frags[i].sha256);
	}
	free(m->frags);
	for (size_t i = 0; i < m->nops; i++) {
		free(m->ops[i].op);
		free(m->ops[i].arg);
		free(m->ops[i].resolved);
	}
	free(m->ops);
	memset(m, 0, sizeof(*m));
}
