// SPDX-License-Identifier: GPL-2.0
/*
 * job_yaml.c - walking the YAML node tree of a job-format file, and its
 * errors. Every problem is reported as
 *
 *	FILE:LINE:COLUMN: error: <field path>: <what is wrong>; <what is allowed>
 *
 * and counted; the walk goes on after an error, so one load shows every
 * mistake (up to JOB_MAX_ERRORS of them). The job's sections (parse_*.c)
 * and the repro recipes (job_yaml.h) read their values through these.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/parse.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/yamlfile.h"

#define JOB_MAX_ERRORS 20
#define JOB_STR_MAX 4096 /* any one string value */

void job_yaml_err(struct job_yaml *y, yaml_mark_t m, const char *path, const char *fmt, ...)
{
	va_list ap;

	y->nerr++;
	if (y->nerr > JOB_MAX_ERRORS) {
		if (y->nerr == JOB_MAX_ERRORS + 1)
			fprintf(stderr,
				"%s: error: too many errors, stopped after %d; fix these and load the job again\n",
				y->file, JOB_MAX_ERRORS);
		return;
	}
	fprintf(stderr, "%s:%zu:%zu: error: %s: ", y->file, m.line + 1, m.column + 1,
		*path ? path : "(top level)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

unsigned int job_yaml_errors(struct job_yaml *y)
{
	return y->nerr;
}

const char *job_show(char buf[SHOWLEN], const char *s)
{
	size_t len = strnlen(s, SHOWLEN - 3), i;

	for (i = 0; i < len && i < SHOWLEN - 4; i++)
		buf[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (len > SHOWLEN - 4) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

const char *job_pkey(char buf[PATHLEN], const char *path, const char *key)
{
	char s[SHOWLEN];

	if (*path)
		snprintf(buf, PATHLEN, "%s.%s", path, job_show(s, key));
	else
		snprintf(buf, PATHLEN, "%s", job_show(s, key));
	return buf;
}

const char *job_pidx(char buf[PATHLEN], const char *path, size_t i)
{
	if (snprintf(buf, PATHLEN, "%s[%zu]", path, i) >= PATHLEN)
		memcpy(buf + PATHLEN - 4, "...", 4);
	return buf;
}

const char *job_join(char *buf, size_t len, const char *const *words, const char *sep)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; words[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? sep : "", words[i]);
	return buf;
}

char *job_path(const char *dir, const char *p)
{
	const char *home = getenv("HOME");

	if (p[0] == '/')
		return xstrdup(p);
	if (p[0] == '~' && p[1] == '/' && home && *home)
		return xasprintf("%s/%s", home, p + 2);
	return xasprintf("%s/%s", dir, p);
}

/* ---- nodes ---- */

yaml_node_t *job_yaml_node(struct job_yaml *y, int id)
{
	return yaml_document_get_node(y->doc, id);
}

/* the node-only helpers are lib/yamlfile.h's: one reading of YAML for jobs and recipes */
bool job_yaml_is_null(const yaml_node_t *n)
{
	return yf_is_null(n);
}

const char *job_yaml_kind(const yaml_node_t *n)
{
	return yf_kind(n);
}

size_t job_yaml_seq_len(const yaml_node_t *n)
{
	return yf_seq_len(n);
}

yaml_node_t *job_yaml_seq_item(struct job_yaml *y, const yaml_node_t *n, size_t i)
{
	return job_yaml_node(y, n->data.sequence.items.start[i]);
}

/* ---- scalars ---- */

const char *job_yaml_scalar(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want)
{
	const unsigned char *v = n->data.scalar.value;
	size_t i;

	if (n->type != YAML_SCALAR_NODE || job_yaml_is_null(n)) {
		job_yaml_err(y, n->start_mark, path, "got %s; expected %s", job_yaml_kind(n), want);
		return NULL;
	}
	if (n->data.scalar.length > JOB_STR_MAX) {
		job_yaml_err(y, n->start_mark, path, "value is %zu bytes long; at most %d allowed",
			     n->data.scalar.length, JOB_STR_MAX);
		return NULL;
	}
	for (i = 0; i < n->data.scalar.length; i++) {
		if (v[i] < 0x20 || v[i] == 0x7f) {
			job_yaml_err(
				y, n->start_mark, path,
				"contains the control character 0x%02x; expected %s on one line",
				v[i], want);
			return NULL;
		}
	}
	return (const char *)v;
}

static const char *range(char buf[64], unsigned long long min, unsigned long long max)
{
	if (max == ULLONG_MAX)
		snprintf(buf, 64, "an integer >= %llu", min);
	else
		snprintf(buf, 64, "an integer %llu..%llu", min, max);
	return buf;
}

static bool looks_fraction(const char *v)
{
	const char *p = v + (*v == '-' || *v == '+');

	if (*p == '.')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	return strpbrk(v, ".eE") != NULL;
}

bool job_yaml_text_uint(struct job_yaml *y, yaml_mark_t m, const char *path, const char *v,
			unsigned long long min, unsigned long long max, unsigned long long *out)
{
	char r[64], s[SHOWLEN];
	uint64_t x;

	if (parse_uint(v, &x)) {
		const char *what = "is not an integer";

		if (v[0] == '-')
			what = "is negative";
		else if (looks_fraction(v))
			what = "is not a whole number";
		job_yaml_err(y, m, path, "'%s' %s; expected %s", job_show(s, v), what,
			     range(r, min, max));
		return false;
	}
	if (x < min || x > max) {
		job_yaml_err(y, m, path, "%llu is out of range; expected %s", (unsigned long long)x,
			     range(r, min, max));
		return false;
	}
	*out = x;
	return true;
}

bool job_yaml_uint64(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned long long min,
		     unsigned long long max, unsigned long long *out)
{
	char r[64];
	const char *v = job_yaml_scalar(y, n, path, range(r, min, max));

	return v && job_yaml_text_uint(y, n->start_mark, path, v, min, max, out);
}

bool job_yaml_uint(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned int min,
		   unsigned int max, unsigned int *out)
{
	unsigned long long v;

	if (!job_yaml_uint64(y, n, path, min, max, &v))
		return false;
	*out = (unsigned int)v;
	return true;
}

bool job_yaml_size(struct job_yaml *y, yaml_node_t *n, const char *path, uint64_t *bytes)
{
	const char *want = "a size such as 512M (K/M/G/T = powers of 1024; bare = bytes)";
	const char *v = job_yaml_scalar(y, n, path, want);
	char s[SHOWLEN];

	if (!v)
		return false;
	if (parse_size(v, bytes)) {
		job_yaml_err(y, n->start_mark, path, "'%s' is not a size; expected %s",
			     job_show(s, v), want);
		return false;
	}
	return true;
}

int job_yaml_enum(struct job_yaml *y, yaml_node_t *n, const char *path, const char *const *choices)
{
	char list[256], s[SHOWLEN], want[300];
	const char *v;

	snprintf(want, sizeof(want), "one of: %s", job_join(list, sizeof(list), choices, ", "));
	v = job_yaml_scalar(y, n, path, want);
	if (!v)
		return -1;
	for (int i = 0; choices[i]; i++)
		if (!strcmp(v, choices[i]))
			return i;
	job_yaml_err(y, n->start_mark, path, "'%s' is not allowed; expected %s", job_show(s, v),
		     want);
	return -1;
}

bool job_yaml_duration(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned int max,
		       unsigned int *out)
{
	const char *want = "a duration such as 90, 90s, 10m or 2h";
	const char *v = job_yaml_scalar(y, n, path, want);
	unsigned long long mult = 1;
	uint64_t x;
	char *num, s[SHOWLEN];
	size_t len;
	int bad;

	if (!v)
		return false;
	len = strlen(v);
	if (!len) {
		/* a quoted "" gets past job_yaml_scalar(), which only rejects null */
		job_yaml_err(y, n->start_mark, path, "is empty; expected %s", want);
		return false;
	}
	switch (v[len - 1]) {
	case 's':
		len--;
		break;
	case 'm':
		mult = 60;
		len--;
		break;
	case 'h':
		mult = 3600;
		len--;
		break;
	default:
		break;
	}
	num = xstrndup(v, len);
	bad = parse_uint(num, &x);
	free(num);
	if (bad) {
		job_yaml_err(y, n->start_mark, path, "'%s' is not a duration; expected %s",
			     job_show(s, v), want);
		return false;
	}
	if (x == 0 || x > max / mult) {
		job_yaml_err(y, n->start_mark, path, "'%s' is out of range; expected 1s..%us",
			     job_show(s, v), max);
		return false;
	}
	*out = (unsigned int)(x * mult);
	return true;
}

static bool name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len < 1 || len > JOB_NAME_MAX)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == len;
}

char *job_yaml_name(struct job_yaml *y, yaml_node_t *n, const char *path)
{
	const char *want = "a name of 1..64 characters from A-Z a-z 0-9 . _ -";
	const char *v = job_yaml_scalar(y, n, path, want);
	char s[SHOWLEN];

	if (!v)
		return NULL;
	if (!name_ok(v)) {
		job_yaml_err(y, n->start_mark, path, "'%s' is not a valid name; expected %s",
			     job_show(s, v), want);
		return NULL;
	}
	return xstrdup(v);
}

/* ---- lists and mappings ---- */

void job_yaml_str_list(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want,
		       const char *dir, struct strlist *out)
{
	char p[PATHLEN];
	size_t len;

	if (n->type == YAML_SCALAR_NODE) {
		const char *s = job_yaml_scalar(y, n, path, want);

		if (s && !*s) {
			job_yaml_err(y, n->start_mark, path, "is empty; expected %s", want);
		} else if (s && dir) {
			char *a = job_path(dir, s);

			strlist_push(out, a);
			free(a);
		} else if (s) {
			strlist_push(out, s);
		}
		return;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, path, "got %s; expected %s or a list of them",
			     job_yaml_kind(n), want);
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > JOB_MAX_LIST) {
		job_yaml_err(y, n->start_mark, path, "has %zu entries; expected 1..%d", len,
			     JOB_MAX_LIST);
		return;
	}
	for (size_t i = 0; i < len; i++)
		job_yaml_str_list(y, job_yaml_seq_item(y, n, i), job_pidx(p, path, i), want, dir,
				  out);
}

/* " (did you mean 'x'?)" for a near miss among the nf keys of f, else "" */
static const char *suggest(char buf[SHOWLEN + 24], const char *key, const struct job_field *f,
			   size_t nf)
{
	size_t best = 3, d;
	const char *hit = NULL;

	for (size_t i = 0; i < nf; i++) {
		d = edit_distance(key, f[i].key);
		if (d < best) {
			best = d;
			hit = f[i].key;
		}
	}
	buf[0] = '\0';
	if (hit)
		snprintf(buf, SHOWLEN + 24, " (did you mean '%.*s'?)", SHOWLEN - 1, hit);
	return buf;
}

/* the keys of f, "a, b, c" */
static void key_list(struct strbuf *sb, const struct job_field *f, size_t nf)
{
	for (size_t i = 0; i < nf; i++)
		strbuf_addsep(sb, ", ", f[i].key);
}

/* the pair's key into its field of f, or an error */
static void map_key(struct job_yaml *y, yaml_node_pair_t *pr, const char *path, struct job_field *f,
		    size_t nf, struct strbuf *keys)
{
	yaml_node_t *k = job_yaml_node(y, pr->key);
	char p[PATHLEN], s[SHOWLEN], dym[SHOWLEN + 24];
	const char *key;
	size_t i;

	if (!keys->len)
		key_list(keys, f, nf);
	if (k->type != YAML_SCALAR_NODE) {
		job_yaml_err(y, k->start_mark, path,
			     "a key is %s; expected a key name (one of: %s)", job_yaml_kind(k),
			     keys->buf);
		return;
	}
	key = (const char *)k->data.scalar.value;
	if (strlen(key) != k->data.scalar.length) {
		/* "variants\0x" must not pass for variants */
		job_yaml_err(
			y, k->start_mark, path,
			"a key contains a NUL character (\\0); expected a key name (one of: %s)",
			keys->buf);
		return;
	}
	for (i = 0; i < nf; i++)
		if (!strcmp(f[i].key, key))
			break;
	if (i == nf) {
		job_yaml_err(y, k->start_mark, job_pkey(p, path, key),
			     "unknown key '%s'%s; allowed keys here: %s", job_show(s, key),
			     suggest(dym, key, f, nf), keys->buf);
		return;
	}
	if (f[i].val) {
		job_yaml_err(y, k->start_mark, job_pkey(p, path, key),
			     "duplicate key (first given at line %zu); give each key once",
			     f[i].key_node->start_mark.line + 1);
		return;
	}
	f[i].key_node = k;
	f[i].val = job_yaml_node(y, pr->value);
}

bool job_yaml_map(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want,
		  struct job_field *f, size_t nf)
{
	struct strbuf keys = STRBUF_INIT;

	for (size_t i = 0; i < nf; i++)
		f[i].key_node = f[i].val = NULL;
	if (n->type != YAML_MAPPING_NODE) {
		job_yaml_err(y, n->start_mark, path, "got %s; expected %s", job_yaml_kind(n), want);
		return false;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++)
		map_key(y, pr, path, f, nf, &keys);
	strbuf_release(&keys);
	return true;
}

void job_yaml_missing(struct job_yaml *y, yaml_node_t *map, const char *path, const char *key,
		      const char *example)
{
	char p[PATHLEN];

	job_yaml_err(y, map->start_mark, job_pkey(p, path, key),
		     "required key is missing; add it, e.g. '%s: %s'", key, example);
}
