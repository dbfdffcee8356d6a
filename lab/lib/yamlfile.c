// SPDX-License-Identifier: GPL-2.0
/*
 * yamlfile.c - a small YAML file checked against a fixed shape
 * (yamlfile.h). Two passes with libyaml, as for job files: the event
 * parser reports syntax errors, aliases and extra documents with their
 * marks, then the document loader builds the tree the caller walks.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/yamlfile.h"

#define YF_MAX_DEPTH 8 /* nesting of lists and mappings */

void yf_err(struct yfile *y, yaml_mark_t m, const char *field, const char *fmt, ...)
{
	va_list ap;

	y->nerr++;
	if (y->nerr > YF_MAX_ERRORS) {
		if (y->nerr == YF_MAX_ERRORS + 1)
			fprintf(stderr, "%s: error: too many errors, stopped after %d\n", y->name,
				YF_MAX_ERRORS);
		return;
	}
	fprintf(stderr, "%s:%zu:%zu: error: %s: ", y->name, m.line + 1, m.column + 1,
		*field ? field : "(top level)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *yf_shown(char buf[YF_SHOWLEN], const char *s)
{
	size_t len = strnlen(s, YF_SHOWLEN - 3), i;

	for (i = 0; i < len && i < YF_SHOWLEN - 4; i++)
		buf[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (len > YF_SHOWLEN - 4) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

const char *yf_pidx(char *buf, const char *path, size_t i)
{
	/* a path too long for buf is cut short: it only labels a message */
	if (snprintf(buf, YF_PATHLEN, "%s[%zu]", path, i) >= YF_PATHLEN)
		memcpy(buf + YF_PATHLEN - 4, "...", 4);
	return buf;
}

const char *yf_pkey(char *buf, const char *path, const char *key)
{
	char s[YF_SHOWLEN];

	if (snprintf(buf, YF_PATHLEN, "%s%s%s", path, *path ? "." : "", yf_shown(s, key)) >=
	    YF_PATHLEN)
		memcpy(buf + YF_PATHLEN - 4, "...", 4);
	return buf;
}

bool yf_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

const char *yf_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return yf_is_null(n) ? "an empty value" : "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

size_t yf_seq_len(const yaml_node_t *n)
{
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *yf_seq_item(struct yfile *y, const yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(&y->doc, n->data.sequence.items.start[i]);
}

/* ---- loading ---- */

static void syntax_error(struct yfile *y, const yaml_parser_t *p, const char *buf, size_t len)
{
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_READER_ERROR) {
		/* the reader gives a byte offset, not a mark */
		m.line = m.column = 0;
		for (size_t i = 0; i < p->problem_offset && i < len; i++) {
			m.column = buf[i] == '\n' ? 0 : m.column + 1;
			m.line += buf[i] == '\n';
		}
		yf_err(y, m, "YAML",
		       "%s (byte 0x%02x); save the file as UTF-8 text without "
		       "control characters",
		       p->problem ? p->problem : "unreadable text",
		       (unsigned int)p->problem_value & 0xff);
	} else if (p->error == YAML_MEMORY_ERROR) {
		yf_err(y, m, "YAML", "out of memory while parsing; make the file smaller");
	} else if (p->context) {
		yf_err(y, m, "YAML",
		       "%s %s started at line %zu column %zu; fix the YAML syntax "
		       "(indentation, quoting, brackets)",
		       p->problem ? p->problem : "syntax error", p->context,
		       p->context_mark.line + 1, p->context_mark.column + 1);
	} else {
		yf_err(y, m, "YAML", "%s; fix the YAML syntax (indentation, quoting, brackets)",
		       p->problem ? p->problem : "syntax error");
	}
}

static bool scan_event(struct yfile *y, const yaml_event_t *ev, int *docs, int *depth)
{
	char s[YF_SHOWLEN];

	if (ev->type == YAML_ALIAS_EVENT)
		yf_err(y, ev->start_mark, "YAML",
		       "alias '*%s' is not supported; write the value "
		       "out in full",
		       yf_shown(s, (const char *)ev->data.alias.anchor));
	else if (ev->type == YAML_DOCUMENT_START_EVENT && ++*docs == 2)
		yf_err(y, ev->start_mark, "YAML",
		       "a second YAML document; the file holds "
		       "exactly one (remove the extra '---')");
	if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT)
		++*depth;
	else if (ev->type == YAML_SEQUENCE_END_EVENT || ev->type == YAML_MAPPING_END_EVENT)
		--*depth;
	if (*depth > YF_MAX_DEPTH) {
		yf_err(y, ev->start_mark, "YAML", "nested more than %d levels deep", YF_MAX_DEPTH);
		return true;
	}
	return ev->type == YAML_STREAM_END_EVENT;
}

/* first pass: syntax, aliases, document count, depth. Returns the document count. */
static int scan_events(struct yfile *y, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0, depth = 0;
	bool done = false;

	if (!yaml_parser_initialize(&p))
		oom(sizeof(p));
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(y, &p, buf, len);
			break;
		}
		done = scan_event(y, &ev, &docs, &depth);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return docs;
}

yaml_node_t *yf_load(struct yfile *y, const char *name, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_mark_t m = { 0 };
	yaml_node_t *root;

	memset(y, 0, sizeof(*y));
	y->name = name;
	if (!scan_events(y, buf, len) && !y->nerr)
		yf_err(y, m, "", "the file is empty; expected a mapping");
	if (y->nerr)
		return NULL;
	if (!yaml_parser_initialize(&p))
		oom(sizeof(p));
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &y->doc)) {
		syntax_error(y, &p, buf, len);
		yaml_parser_delete(&p);
		return NULL;
	}
	yaml_parser_delete(&p);
	y->loaded = true;
	root = yaml_document_get_root_node(&y->doc);
	if (!root)
		yf_err(y, m, "", "the file is empty; expected a mapping");
	return root;
}

void yf_close(struct yfile *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = false;
}

/* ---- values ---- */

const char *yf_text(struct yfile *y, yaml_node_t *n, const char *field, size_t max, size_t *len)
{
	if (n->type != YAML_SCALAR_NODE) {
		yf_err(y, n->start_mark, field, "got %s; expected a text", yf_kind(n));
		return NULL;
	}
	if (n->data.scalar.length > max) {
		yf_err(y, n->start_mark, field, "is %zu bytes long; at most %zu allowed",
		       n->data.scalar.length, max);
		return NULL;
	}
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
		yf_err(y, n->start_mark, field, "contains a NUL byte; expected a text");
		return NULL;
	}
	*len = n->data.scalar.length;
	return (const char *)n->data.scalar.value;
}

const char *yf_scalar(struct yfile *y, yaml_node_t *n, const char *field, const char *want)
{
	const unsigned char *v = n->data.scalar.value;

	if (n->type != YAML_SCALAR_NODE || yf_is_null(n)) {
		yf_err(y, n->start_mark, field, "got %s; expected %s", yf_kind(n), want);
		return NULL;
	}
	if (n->data.scalar.length > YF_STR_MAX) {
		yf_err(y, n->start_mark, field, "is %zu bytes long; at most %d allowed",
		       n->data.scalar.length, YF_STR_MAX);
		return NULL;
	}
	for (size_t i = 0; i < n->data.scalar.length; i++) {
		if (v[i] < 0x20 || v[i] == 0x7f) {
			yf_err(y, n->start_mark, field,
			       "contains the control character 0x%02x; "
			       "expected %s on one line",
			       v[i], want);
			return NULL;
		}
	}
	return (const char *)v;
}

bool yf_uint(struct yfile *y, yaml_node_t *n, const char *field, unsigned long long min,
	     unsigned long long max, unsigned long long *out)
{
	char want[64], s[YF_SHOWLEN];
	const char *v;
	uint64_t x;

	snprintf(want, sizeof(want), "an integer %llu..%llu", min, max);
	v = yf_scalar(y, n, field, want);
	if (!v)
		return false;
	if (parse_uint(v, &x) || x < min || x > max) {
		yf_err(y, n->start_mark, field, "'%s' is out of range or not a number; expected %s",
		       yf_shown(s, v), want);
		return false;
	}
	*out = x;
	return true;
}

static const char *join(char *buf, size_t len, const char *const *words)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; words[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", words[i]);
	return buf;
}

int yf_enum(struct yfile *y, yaml_node_t *n, const char *field, const char *const *choices)
{
	char list[256], s[YF_SHOWLEN], want[300];
	const char *v;

	snprintf(want, sizeof(want), "one of: %s", join(list, sizeof(list), choices));
	v = yf_scalar(y, n, field, want);
	if (!v)
		return -1;
	for (int i = 0; choices[i]; i++)
		if (!strcmp(v, choices[i]))
			return i;
	yf_err(y, n->start_mark, field, "'%s' is not allowed; expected %s", yf_shown(s, v), want);
	return -1;
}

/* ---- mappings and lists ---- */

/* " (did you mean 'x'?)" for a near miss among keys, else "" */
static const char *suggest(char *buf, size_t len, const char *key, const char *const *keys)
{
	const char *hit = nearest_name(key, keys);

	buf[0] = '\0';
	if (hit)
		snprintf(buf, len, " (did you mean '%.*s'?)", YF_SHOWLEN - 1, hit);
	return buf;
}

/* f[i] for key k, or NULL after an error */
static struct yfield *map_field(struct yfile *y, yaml_node_t *k, const char *field,
				struct yfield *f, size_t nf, const char *const *keys)
{
	char list[256], p[YF_PATHLEN], s[YF_SHOWLEN], dym[YF_SHOWLEN + 24];
	const char *key;

	if (k->type != YAML_SCALAR_NODE) {
		yf_err(y, k->start_mark, field, "a key is %s; expected a key name (one of: %s)",
		       yf_kind(k), join(list, sizeof(list), keys));
		return NULL;
	}
	key = (const char *)k->data.scalar.value;
	if (strlen(key) != k->data.scalar.length) {
		yf_err(y, k->start_mark, field,
		       "a key contains a NUL character (\\0); expected a key name (one of: %s)",
		       join(list, sizeof(list), keys));
		return NULL;
	}
	for (size_t i = 0; i < nf; i++) {
		if (strcmp(f[i].key, key))
			continue;
		if (!f[i].val)
			return &f[i];
		yf_err(y, k->start_mark, yf_pkey(p, field, key),
		       "duplicate key (first given "
		       "at line %zu); give each key once",
		       f[i].key_node->start_mark.line + 1);
		return NULL;
	}
	yf_err(y, k->start_mark, yf_pkey(p, field, key),
	       "unknown key '%s'%s; allowed keys "
	       "here: %s",
	       yf_shown(s, key), suggest(dym, sizeof(dym), key, keys),
	       join(list, sizeof(list), keys));
	return NULL;
}

bool yf_map(struct yfile *y, yaml_node_t *n, const char *field, const char *want, struct yfield *f,
	    size_t nf)
{
	const char *keys[16];

	if (n->type != YAML_MAPPING_NODE) {
		yf_err(y, n->start_mark, field, "got %s; expected %s", yf_kind(n), want);
		return false;
	}
	if (nf >= ARRAY_SIZE(keys))
		nf = ARRAY_SIZE(keys) - 1; /* a caller's bug: nf < 16 */
	for (size_t i = 0; i < nf; i++)
		keys[i] = f[i].key;
	keys[nf] = NULL;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, pr->key);
		struct yfield *hit = map_field(y, k, field, f, nf, keys);

		if (hit) {
			hit->key_node = k;
			hit->val = yaml_document_get_node(&y->doc, pr->value);
		}
	}
	return true;
}

void yf_missing(struct yfile *y, yaml_node_t *map, const char *field, const char *key,
		const char *example)
{
	char p[YF_PATHLEN];

	yf_err(y, map->start_mark, yf_pkey(p, field, key),
	       "required key is missing; add it, e.g. '%s: %s'", key, example);
}

bool yf_seq(struct yfile *y, yaml_node_t *n, const char *field, const char *example, size_t max)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		yf_err(y, n->start_mark, field, "got %s; expected a list such as %s", yf_kind(n),
		       example);
		return false;
	}
	if (yf_seq_len(n) > max) {
		yf_err(y, n->start_mark, field, "%zu items; at most %zu allowed", yf_seq_len(n),
		       max);
		return false;
	}
	return true;
}
