// SPDX-License-Identifier: GPL-2.0
/*
 * rewrite.c - a job derived from a job file's text (rewrite.h), with
 * libyaml's document API: the file's nodes are copied, never printed by
 * hand, so every value the user wrote reaches the derived job as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "job/rewrite.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define REWRITE_DEPTH 32

static bool scalar_is(const yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && !strcmp((const char *)n->data.scalar.value, s);
}

static int add_scalar(yaml_document_t *d, const char *v, bool quoted)
{
	return yaml_document_add_scalar(d, NULL, (yaml_char_t *)v, (int)strlen(v),
					quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE :
						 YAML_PLAIN_SCALAR_STYLE);
}

static int copy_node(yaml_document_t *src, int id, yaml_document_t *dst, int depth);

static bool in_list(const yaml_node_t *k, const char *const *skip)
{
	for (size_t i = 0; skip && skip[i]; i++)
		if (scalar_is(k, skip[i]))
			return true;
	return false;
}

/* the pairs of map whose keys are in neither skip list */
static int copy_pairs(yaml_document_t *src, const yaml_node_t *map, yaml_document_t *dst, int to,
		      const char *const *skip, const char *const *skip2, int depth)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(src, p->key);
		int kid, vid;

		if (in_list(k, skip) || in_list(k, skip2))
			continue;
		kid = copy_node(src, p->key, dst, depth + 1);
		vid = copy_node(src, p->value, dst, depth + 1);
		if (!kid || !vid || !yaml_document_append_mapping_pair(dst, to, kid, vid))
			return -1;
	}
	return 0;
}

static int copy_node(yaml_document_t *src, int id, yaml_document_t *dst, int depth)
{
	yaml_node_t *n = yaml_document_get_node(src, id);
	int to;

	if (!n || depth > REWRITE_DEPTH)
		return 0;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return yaml_document_add_scalar(dst, NULL, n->data.scalar.value,
						(int)n->data.scalar.length, n->data.scalar.style);
	case YAML_SEQUENCE_NODE:
		to = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     to && it < n->data.sequence.items.top; it++) {
			int c = copy_node(src, *it, dst, depth + 1);

			if (!c || !yaml_document_append_sequence_item(dst, to, c))
				return 0;
		}
		return to;
	case YAML_MAPPING_NODE:
		to = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);
		return to && !copy_pairs(src, n, dst, to, NULL, NULL, depth) ? to : 0;
	default:
		return 0;
	}
}

static int add_pair(yaml_document_t *d, int map, const char *k, int vid)
{
	int kid = add_scalar(d, k, false);

	return kid && vid && yaml_document_append_mapping_pair(d, map, kid, vid) ? 0 : -1;
}

/* a JSON value as a node: strings quoted, numbers and booleans plain */
static int json_node(yaml_document_t *d, const json_t *j, int depth)
{
	char num[64];
	const char *k;
	json_t *v;
	size_t i;
	int to;

	if (depth > REWRITE_DEPTH)
		return 0;
	switch (json_typeof(j)) {
	case JSON_STRING:
		return add_scalar(d, json_string_value(j), true);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(j));
		return add_scalar(d, num, false);
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.17g", json_real_value(j));
		return add_scalar(d, num, false);
	case JSON_TRUE:
	case JSON_FALSE:
		return add_scalar(d, json_is_true(j) ? "true" : "false", false);
	case JSON_ARRAY:
		to = yaml_document_add_sequence(d, NULL, YAML_FLOW_SEQUENCE_STYLE);
		json_array_foreach(j, i, v) {
			int c = json_node(d, v, depth + 1);

			if (!to || !c || !yaml_document_append_sequence_item(d, to, c))
				return 0;
		}
		return to;
	case JSON_OBJECT:
		to = yaml_document_add_mapping(d, NULL, YAML_FLOW_MAPPING_STYLE);
		json_object_foreach((json_t *)j, k, v) {
			if (!to || add_pair(d, to, k, json_node(d, v, depth + 1)))
				return 0;
		}
		return to;
	default:
		return 0;
	}
}

static int emit(yaml_char_t *buf, size_t size, size_t *written, yaml_document_t *d)
{
	yaml_emitter_t em;
	int ok;

	if (!yaml_emitter_initialize(&em))
		return -1;
	yaml_emitter_set_output_string(&em, buf, size, written);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, d) && yaml_emitter_close(&em);
	yaml_emitter_delete(&em); /* yaml_emitter_dump deleted d */
	return ok ? 0 : -1;
}

/* the value of key in mapping map, or NULL */
static yaml_node_t *map_get(yaml_document_t *src, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++)
		if (scalar_is(yaml_document_get_node(src, p->key), key))
			return yaml_document_get_node(src, p->value);
	return NULL;
}

/* key: the variant's mapping with set's keys over it (sysctl, thp) */
static int add_merged(yaml_document_t *src, const yaml_node_t *var, yaml_document_t *dst, int vmap,
		      const char *key, const json_t *set)
{
	yaml_node_t *old = map_get(src, var, key);
	int map = yaml_document_add_mapping(dst, NULL, YAML_FLOW_MAPPING_STYLE);
	const char *skip[65], *k;
	size_t n = 0;
	json_t *v;

	if (!map)
		return -1;
	json_object_foreach((json_t *)set, k, v) {
		if (n + 1 >= ARRAY_SIZE(skip) || add_pair(dst, map, k, json_node(dst, v, 1)))
			return -1;
		skip[n++] = k;
	}
	skip[n] = NULL;
	if (old && old->type == YAML_MAPPING_NODE && copy_pairs(src, old, dst, map, skip, NULL, 1))
		return -1;
	return add_pair(dst, vmap, key, map);
}

/* cmdline: the variant's, then set's */
static int add_cmdline(yaml_document_t *src, const yaml_node_t *var, yaml_document_t *dst, int vmap,
		       const char *more)
{
	yaml_node_t *old = map_get(src, var, "cmdline");
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (old && old->type == YAML_SCALAR_NODE && old->data.scalar.length)
		strbuf_addf(&sb, "%s ", (const char *)old->data.scalar.value);
	strbuf_addstr(&sb, more);
	ret = add_pair(dst, vmap, "cmdline", add_scalar(dst, sb.buf, true));
	strbuf_release(&sb);
	return ret;
}

/* one variant of the derived job, from the file's variant var */
static int add_variant(yaml_document_t *src, const yaml_node_t *var, yaml_document_t *dst, int seq,
		       const struct job_rewrite_variant *rv)
{
	static const char *const kernel_keys[] = { "kernel", "ref", NULL };
	static const char *const op_keys[] = { "kernel",      "ref",   "revert",
					       "cherry_pick", "apply", NULL };
	struct job_rewrite_set set;
	const char *skip[8] = { "name" };
	const char *const *drop = NULL;
	size_t n = 1;
	int vmap = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);

	job_rewrite_set_read(rv->set, &set);
	if (!vmap || add_pair(dst, vmap, "name", add_scalar(dst, rv->name, false)))
		return -1;
	if (set.kernel || set.ref)
		drop = rv->drop_ops ? op_keys : kernel_keys;
	if (set.has_sysctl)
		skip[n++] = "sysctl";
	if (set.has_thp)
		skip[n++] = "thp";
	if (set.has_cmdline)
		skip[n++] = "cmdline";
	skip[n] = NULL;
	if ((set.kernel && add_pair(dst, vmap, "kernel", json_node(dst, set.kernel, 1))) ||
	    (set.ref && add_pair(dst, vmap, "ref", json_node(dst, set.ref, 1))) ||
	    copy_pairs(src, var, dst, vmap, skip, drop, 0))
		return -1;
	if (set.sysctl && add_merged(src, var, dst, vmap, "sysctl", set.sysctl))
		return -1;
	if (set.thp && add_merged(src, var, dst, vmap, "thp", set.thp))
		return -1;
	if (set.cmdline && add_cmdline(src, var, dst, vmap, set.cmdline))
		return -1;
	return yaml_document_append_sequence_item(dst, seq, vmap) ? 0 : -1;
}

/* kernels: the file's, with tree: and config: replaced as asked */
static int add_kernels(yaml_document_t *src, const yaml_node_t *root, yaml_document_t *dst,
		       int droot, const struct job_rewrite *rw)
{
	const char *skip[3] = { 0 };
	size_t n = 0;
	yaml_node_t *old = map_get(src, root, "kernels");
	int map = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);

	if (!map)
		return -1;
	if (rw->tree) {
		skip[n++] = "tree";
		if (add_pair(dst, map, "tree", add_scalar(dst, rw->tree, true)))
			return -1;
	}
	if (rw->config) {
		skip[n++] = "config";
		if (add_pair(dst, map, "config", json_node(dst, rw->config, 1)))
			return -1;
	}
	if (old && old->type == YAML_MAPPING_NODE && copy_pairs(src, old, dst, map, skip, NULL, 0))
		return -1;
	return add_pair(dst, droot, "kernels", map);
}

static int add_uint(yaml_document_t *d, int map, const char *key, unsigned int v)
{
	char num[32];

	snprintf(num, sizeof(num), "%u", v);
	return add_pair(d, map, key, add_scalar(d, num, false));
}

/* the derived document dst from src's root */
static int build(yaml_document_t *src, yaml_node_t *root, yaml_node_t *vars, yaml_document_t *dst,
		 const struct job_rewrite *rw, char *err, size_t errlen)
{
	const char *skip[6] = { "name", "variants" };
	size_t n = 2,
	       nvars = (size_t)(vars->data.sequence.items.top - vars->data.sequence.items.start);
	int droot = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);
	int seq = yaml_document_add_sequence(dst, NULL, YAML_BLOCK_SEQUENCE_STYLE);

	if (!droot || !seq || add_pair(dst, droot, "name", add_scalar(dst, rw->name, false)))
		goto oom;
	for (size_t i = 0; i < rw->nvariants; i++) {
		const struct job_rewrite_variant *rv = &rw->variants[i];
		yaml_node_t *var = rv->from < nvars ?
					   yaml_document_get_node(
						   src, vars->data.sequence.items.start[rv->from]) :
					   NULL;

		if (!var || var->type != YAML_MAPPING_NODE) {
			snprintf(err, errlen, "no variant number %zu in the job", rv->from + 1);
			return -1;
		}
		if (add_variant(src, var, dst, seq, rv))
			goto oom;
	}
	if (add_pair(dst, droot, "variants", seq))
		goto oom;
	if (rw->iterations)
		skip[n++] = "iterations";
	if (rw->per_boot)
		skip[n++] = "iterations_per_boot";
	if (rw->tree || rw->config)
		skip[n++] = "kernels";
	if (copy_pairs(src, root, dst, droot, skip, NULL, 0) ||
	    ((rw->tree || rw->config) && add_kernels(src, root, dst, droot, rw)) ||
	    (rw->iterations && add_uint(dst, droot, "iterations", rw->iterations)) ||
	    (rw->per_boot && add_uint(dst, droot, "iterations_per_boot", rw->per_boot)))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "the derived job could not be made (out of memory, or too deep)");
	return -1;
}

static int load(const char *text, size_t len, yaml_document_t *src, char *err, size_t errlen)
{
	yaml_parser_t p;
	int ok;

	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	ok = yaml_parser_load(&p, src);
	if (!ok)
		snprintf(err, errlen, "not YAML: %s", p.problem ? p.problem : "?");
	yaml_parser_delete(&p);
	return ok ? 0 : -1;
}

char *job_rewrite_yaml(const char *text, size_t len, const struct job_rewrite *rw, char *err,
		       size_t errlen)
{
	yaml_document_t src, dst;
	yaml_node_t *root, *vars;
	size_t size = 2 * len + 4096 + 2048 * rw->nvariants, written = 0;
	yaml_char_t *buf;

	if (load(text, len, &src, err, errlen))
		return NULL;
	root = yaml_document_get_root_node(&src);
	vars = map_get(&src, root, "variants");
	if (!vars || vars->type != YAML_SEQUENCE_NODE) {
		snprintf(err, errlen, "the job has no list of variants");
		yaml_document_delete(&src);
		return NULL;
	}
	if (!yaml_document_initialize(&dst, NULL, NULL, NULL, 1, 1)) {
		yaml_document_delete(&src);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (build(&src, root, vars, &dst, rw, err, errlen)) {
		yaml_document_delete(&src);
		yaml_document_delete(&dst);
		return NULL;
	}
	yaml_document_delete(&src);
	buf = xmalloc(size + 1);
	if (emit(buf, size, &written, &dst)) {
		free(buf);
		snprintf(err, errlen, "the job could not be written as YAML");
		return NULL;
	}
	buf[written] = '\0';
	return (char *)buf;
}
