// SPDX-License-Identifier: GPL-2.0
/*
 * parse_metrics.c - "workload.metrics:" of a command workload: one
 * extractor (a mapping) or a list of them (job_own.h, struct own_metric;
 * docs/job-format.md). Regexes are compiled here under the limits of
 * lib/regex_safe.h, so a job that loads never fails later on its regex,
 * and paths are parsed with lib/jpath.h.
 */
#include <stdlib.h>
#include <string.h>

#include "job/job_own.h"
#include "job/parse.h"
#include "lib/jpath.h"
#include "lib/regex_safe.h"
#include "lib/util.h"

#define UNIT_MAX 32
#define METRIC_FULL_MAX 200 /* <workload>.<metric>: guest/stream.h's bound */

enum { M_NAME, M_FROM, M_REGEX, M_FILE, M_PATH, M_VALUES, M_UNIT, M_DIRECTION, M_REDUCE, M_N };

static const char *const from_names[] = {
	"stdout", "stderr", "dmesg", "file", "json", "yaml", NULL
};
static const char *const dir_names[] = { "neutral", "lower", "higher", NULL };
static const char *const reduce_names[] = { "last", "first", "min",   "max",
					    "mean", "sum",   "count", NULL };

const char *own_from_name(enum own_from f)
{
	return f <= OWN_FROM_YAML ? from_names[f] : "?";
}

const char *own_dir_name(enum own_dir d)
{
	return d <= OWN_DIR_HIGHER ? dir_names[d] : "?";
}

const char *own_reduce_name(enum own_reduce r)
{
	return r <= OWN_REDUCE_COUNT ? reduce_names[r] : "?";
}

/* a metric name or, in a declaration, a pattern ('*' allowed) */
static bool metric_name_ok(const char *s, bool pattern)
{
	size_t len = strlen(s);

	return len && len < METRIC_FULL_MAX - OWN_NAME_MAX &&
	       strspn(s,
		      pattern ?
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-*" :
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-") ==
		       len;
}

/* a guest file an extractor reads: relative to the working dir, or absolute */
static bool read_path_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 200 || strstr(s, "..") || strstr(s, "//") || s[len - 1] == '/')
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("._-+/:", *c)))
			return false;
	return true;
}

static int add_read(struct job_own *o, const char *file)
{
	for (size_t i = 0; i < o->read.n; i++)
		if (!strcmp(o->read.v[i], file))
			return (int)i;
	if (o->read.n == OWN_MAX_READ)
		return -1;
	strlist_push(&o->read, file);
	return (int)o->read.n - 1;
}

static void check_regex(struct job_yaml *y, yaml_node_t *n, const char *path, const char *v)
{
	char err[256], s[SHOWLEN];
	regex_t re;

	if (regex_compile_safe(&re, v, REG_EXTENDED, err, sizeof(err))) {
		job_yaml_err(y, n->start_mark, path, "'%s' is not a usable regular expression: %s",
			     job_show(s, v), err);
		return;
	}
	if (re.re_nsub != 1)
		job_yaml_err(
			y, n->start_mark, path,
			"'%s' has %zu capture groups; expected exactly one pair of parentheses, around the number",
			job_show(s, v), re.re_nsub);
	regfree(&re);
}

static void check_path(struct job_yaml *y, yaml_node_t *n, const char *path, const char *v)
{
	char err[128], s[SHOWLEN];
	struct jpath jp;

	if (jpath_parse(v, &jp, err, sizeof(err)))
		job_yaml_err(
			y, n->start_mark, path,
			"'%s' is not a path: %s; expected keys and [N] or [*] such as metrics[*] or results.latency_us",
			job_show(s, v), err);
	else
		jpath_free(&jp);
}

static void parse_values(struct job_yaml *y, yaml_node_t *n, const char *path, struct own_metric *m)
{
	char p[PATHLEN], s[SHOWLEN];

	job_yaml_str_list(y, n, path, "a key of each element", NULL, &m->values);
	for (size_t i = 0; i < m->values.n; i++)
		if (!metric_name_ok(m->values.v[i], false))
			job_yaml_err(y, n->start_mark, job_pidx(p, path, i),
				     "'%s' cannot end a metric name; expected A-Z a-z 0-9 _ . : -",
				     job_show(s, m->values.v[i]));
}

/* the scalars of an entry into m (bad ones reported) */
static void entry_scalars(struct job_yaml *y, struct job_field *f, const char *path,
			  struct own_metric *m)
{
	char p[PATHLEN];
	const char *v;
	int e;

	if (f[M_FROM].val &&
	    (e = job_yaml_enum(y, f[M_FROM].val, job_pkey(p, path, "from"), from_names)) >= 0)
		m->from = (enum own_from)e;
	if (f[M_DIRECTION].val &&
	    (e = job_yaml_enum(y, f[M_DIRECTION].val, job_pkey(p, path, "direction"), dir_names)) >=
		    0)
		m->dir = (enum own_dir)e;
	if (f[M_REDUCE].val &&
	    (e = job_yaml_enum(y, f[M_REDUCE].val, job_pkey(p, path, "reduce"), reduce_names)) >= 0)
		m->reduce = (enum own_reduce)e;
	if (f[M_UNIT].val && (v = job_yaml_scalar(y, f[M_UNIT].val, job_pkey(p, path, "unit"),
						  "a unit such as us or ops/s"))) {
		if (strlen(v) > UNIT_MAX)
			job_yaml_err(y, f[M_UNIT].val->start_mark, p, "at most %d characters",
				     UNIT_MAX);
		else
			m->unit = xstrdup(v);
	}
	if (f[M_NAME].val &&
	    (v = job_yaml_scalar(y, f[M_NAME].val, job_pkey(p, path, "name"), "a metric name")))
		m->name = xstrdup(v);
	if (f[M_REGEX].val &&
	    (v = job_yaml_scalar(y, f[M_REGEX].val, job_pkey(p, path, "regex"),
				 "a regular expression with one capture group"))) {
		m->regex = xstrdup(v);
		check_regex(y, f[M_REGEX].val, p, v);
	}
	if (f[M_PATH].val && (v = job_yaml_scalar(y, f[M_PATH].val, job_pkey(p, path, "path"),
						  "a path such as metrics[*]"))) {
		m->path = xstrdup(v);
		check_path(y, f[M_PATH].val, p, v);
	}
	if (f[M_VALUES].val)
		parse_values(y, f[M_VALUES].val, job_pkey(p, path, "values"), m);
}

/* a key given where this kind of extractor has no use for it */
static void not_here(struct job_yaml *y, struct job_field *f, int k, const char *path,
		     const char *why)
{
	char p[PATHLEN];

	if (f[k].val)
		job_yaml_err(y, f[k].key_node->start_mark, job_pkey(p, path, f[k].key), "%s", why);
}

static void entry_file(struct job_yaml *y, struct job_field *f, const char *path, struct job_own *o,
		       struct own_metric *m)
{
	char p[PATHLEN], s[SHOWLEN];
	const char *v =
		job_yaml_scalar(y, f[M_FILE].val, job_pkey(p, path, "file"), "a file in the guest");

	if (!v)
		return;
	if (!read_path_ok(v)) {
		job_yaml_err(
			y, f[M_FILE].val->start_mark, p,
			"'%s' is not a usable guest path; expected a path relative to the working directory (or absolute), without '..'",
			job_show(s, v));
		return;
	}
	m->file = xstrdup(v);
	m->file_index = add_read(o, v);
	if (m->file_index < 0)
		job_yaml_err(y, f[M_FILE].val->start_mark, p,
			     "more than %d different files to read; read fewer", OWN_MAX_READ);
}

/* the combinations of keys that make sense, per kind of extractor */
static void entry_rules(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *path,
			struct own_metric *m)
{
	bool doc = m->from == OWN_FROM_JSON || m->from == OWN_FROM_YAML;
	char p[PATHLEN];

	if (!f[M_FROM].val && !f[M_REGEX].val && !f[M_FILE].val && !f[M_PATH].val &&
	    !f[M_VALUES].val) {
		m->declare_only = true;
		if (!f[M_NAME].val)
			job_yaml_missing(y, n, path, "name",
					 "alloc_us, regex: \"alloc: ([0-9.]+) us\"");
		not_here(y, f, M_REDUCE, path, "reduce needs a regex");
		return;
	}
	if (m->from == OWN_FROM_FILE && !f[M_FILE].val)
		job_yaml_missing(y, n, path, "file", "results.txt");
	if (f[M_FILE].val && (m->from == OWN_FROM_STDERR || m->from == OWN_FROM_DMESG ||
			      (f[M_FROM].val && m->from == OWN_FROM_STDOUT)))
		job_yaml_err(
			y, f[M_FILE].key_node->start_mark, job_pkey(p, path, "file"),
			"from: %s reads no file; leave from: out to read the text of file:, or say from: json or yaml",
			own_from_name(m->from));
	if (!f[M_FROM].val && f[M_FILE].val)
		m->from = OWN_FROM_FILE;
	if (doc) {
		not_here(y, f, M_REGEX, path,
			 "a regex reads text; from: json and yaml read a document with path:");
		not_here(y, f, M_REDUCE, path, "reduce is for regex matches");
		if (!f[M_NAME].val && !f[M_VALUES].val)
			job_yaml_missing(y, n, path, "name", "latency_us");
		return;
	}
	not_here(y, f, M_PATH, path, "path: is for from: json or yaml");
	not_here(y, f, M_VALUES, path, "values: is for from: json or yaml");
	if (f[M_REGEX].val) {
		if (!f[M_NAME].val)
			job_yaml_missing(y, n, path, "name", "latency_us");
		return;
	}
	not_here(y, f, M_REDUCE, path, "reduce is for regex matches");
	not_here(
		y, f, M_NAME, path,
		"a \"name value\" lines extractor takes the names from the lines; name: is for regex, json and yaml extractors (or an entry of its own declaring unit and direction)");
}

static void parse_entry(struct job_yaml *y, yaml_node_t *n, const char *path,
			struct job_workload *w, struct own_metric *m)
{
	struct job_field f[M_N] = {
		[M_NAME] = { .key = "name" },	  [M_FROM] = { .key = "from" },
		[M_REGEX] = { .key = "regex" },	  [M_FILE] = { .key = "file" },
		[M_PATH] = { .key = "path" },	  [M_VALUES] = { .key = "values" },
		[M_UNIT] = { .key = "unit" },	  [M_DIRECTION] = { .key = "direction" },
		[M_REDUCE] = { .key = "reduce" },
	};
	char p[PATHLEN], s[SHOWLEN];

	m->file_index = -1;
	if (!job_yaml_map(
		    y, n, path,
		    "a mapping such as { name: alloc_us, regex: \"alloc: ([0-9.]+) us\", unit: us, direction: lower }",
		    f, M_N))
		return;
	entry_scalars(y, f, path, m);
	if (f[M_FILE].val)
		entry_file(y, f, path, w->own, m);
	if (m->from == OWN_FROM_DMESG)
		w->own->read_dmesg = true;
	entry_rules(y, n, f, path, m);
	if (m->name && !metric_name_ok(m->name, m->declare_only))
		job_yaml_err(
			y, f[M_NAME].val->start_mark, job_pkey(p, path, "name"),
			"'%s' is not a metric name; expected A-Z a-z 0-9 _ . : -%s (mmlab adds the prefix '%s.')",
			job_show(s, m->name), m->declare_only ? " and * patterns" : "",
			w->name ? w->name : "<workload>");
}

void job_parse_metrics(struct job_yaml *y, yaml_node_t *n, struct job_workload *w)
{
	struct job_own *o = w->own;
	size_t len = 1;
	char p[PATHLEN];

	if (n->type == YAML_SEQUENCE_NODE) {
		len = job_yaml_seq_len(n);
		if (len < 1 || len > OWN_MAX_METRICS) {
			job_yaml_err(y, n->start_mark, "workload.metrics",
				     "has %zu entries; expected 1..%d", len, OWN_MAX_METRICS);
			return;
		}
	}
	o->metrics = xcalloc(len, sizeof(*o->metrics));
	o->nmetrics = len;
	if (n->type != YAML_SEQUENCE_NODE) {
		parse_entry(y, n, "workload.metrics", w, &o->metrics[0]);
		return;
	}
	for (size_t i = 0; i < len; i++)
		parse_entry(y, job_yaml_seq_item(y, n, i), job_pidx(p, "workload.metrics", i), w,
			    &o->metrics[i]);
}

size_t own_metric_patterns(const char *wl, const struct own_metric *m, char *out[OWN_PATTERNS_MAX])
{
	bool doc = m->from == OWN_FROM_JSON || m->from == OWN_FROM_YAML;
	size_t n = 0;

	if (m->declare_only || m->regex) {
		out[n++] = xasprintf("%s.%s", wl, m->name);
	} else if (doc && !m->values.n) {
		out[n++] = xasprintf("%s.%s", wl, m->name);
		out[n++] = xasprintf("%s.%s.*", wl, m->name);
	} else if (doc) {
		for (size_t i = 0; i < m->values.n && n + 2 <= OWN_PATTERNS_MAX; i++) {
			out[n++] = xasprintf("%s.%s", wl, m->values.v[i]);
			out[n++] = xasprintf("%s.*.%s", wl, m->values.v[i]);
		}
	} else {
		out[n++] = xasprintf("%s.*", wl); /* "name value" lines: any name */
	}
	return n;
}
