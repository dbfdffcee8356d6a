// SPDX-License-Identifier: GPL-2.0
/*
 * job.c - load a job file (YAML, docs/job-format.md) and validate it into
 * struct job.
 *
 * Two passes over the text with libyaml: the event parser first, to report
 * syntax errors, aliases (not supported) and extra documents with their
 * marks; then the document loader, whose node tree is walked by one small
 * function per section. Every problem is reported as
 *
 *	FILE:LINE:COLUMN: error: <field path>: <what is wrong>; <what is allowed>
 *
 * and walking goes on after an error, so one run shows every mistake (up
 * to JOB_MAX_ERRORS of them).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "image/recipe.h"
#include "job/job.h"
#include "job/job_yaml.h"
#include "job/workload.h"

#define JOB_MAX_ERRORS 20
#define JOB_FILE_MAX (1u << 20)
#define JOB_MAX_CPUS 256
#define JOB_MAX_ITERATIONS 1000
#define JOB_MIN_NODE_BYTES (64ULL << 20)
#define JOB_MAX_NODE_BYTES (16ULL << 40)
#define JOB_MAX_LIST 64		/* entries of a workload list parameter */
#define JOB_STR_MAX 4096	/* any one string value */
#define JOB_SYSCTL_MAX 128	/* sysctl name length */
#define JOB_MAX_DEPTH 16	/* nesting of lists and mappings */
#define PATHLEN 160		/* field paths in messages */
#define SHOWLEN 48		/* user text quoted in messages */

struct ctx {
	const char *file;
	yaml_document_t *doc;
	unsigned int nerr;
	uint64_t total_mem;	/* bytes; 0 while the topology is invalid */
	const struct job_ext *ext;	/* extra top-level keys, or NULL */
};

/* one key of a mapping with a fixed set of keys */
struct field {
	const char *key;
	yaml_node_t *key_node;
	yaml_node_t *val;
};

static const char *const thp_enabled_choices[] = {
	"always", "madvise", "never", NULL,
};
static const char *const thp_defrag_choices[] = {
	"always", "defer", "defer+madvise", "madvise", "never", NULL,
};
static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };

static void err(struct ctx *c, yaml_mark_t m, const char *path,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void err(struct ctx *c, yaml_mark_t m, const char *path,
		const char *fmt, ...)
{
	va_list ap;

	c->nerr++;
	if (c->nerr > JOB_MAX_ERRORS) {
		if (c->nerr == JOB_MAX_ERRORS + 1)
			fprintf(stderr,
				"%s: error: too many errors, stopped after %d; fix these and load the job again\n",
				c->file, JOB_MAX_ERRORS);
		return;
	}
	fprintf(stderr, "%s:%zu:%zu: error: %s: ", c->file, m.line + 1,
		m.column + 1, *path ? path : "(top level)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* user text made safe to quote in a message: printable, bounded */
static const char *shown(char buf[SHOWLEN], const char *s)
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

static const char *pkey(char buf[PATHLEN], const char *path, const char *key)
{
	char s[SHOWLEN];

	if (*path)
		snprintf(buf, PATHLEN, "%s.%s", path, shown(s, key));
	else
		snprintf(buf, PATHLEN, "%s", shown(s, key));
	return buf;
}

static const char *pidx(char buf[PATHLEN], const char *path, size_t i)
{
	/* a path too long for buf is cut short: it only labels a message */
	if (snprintf(buf, PATHLEN, "%s[%zu]", path, i) >= PATHLEN)
		memcpy(buf + PATHLEN - 4, "...", 4);
	return buf;
}

static yaml_node_t *node(struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static const char *kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return is_null(n) ? "an empty value" : "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static size_t seq_len(const yaml_node_t *n)
{
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(struct ctx *c, const yaml_node_t *n, size_t i)
{
	return node(c, n->data.sequence.items.start[i]);
}

/* the text of a scalar, or NULL after an error; want says what is expected */
static const char *scalar(struct ctx *c, yaml_node_t *n, const char *path,
			  const char *want)
{
	const unsigned char *v = n->data.scalar.value;
	size_t i;

	if (n->type != YAML_SCALAR_NODE || is_null(n)) {
		err(c, n->start_mark, path, "got %s; expected %s", kind(n), want);
		return NULL;
	}
	if (n->data.scalar.length > JOB_STR_MAX) {
		err(c, n->start_mark, path, "value is %zu bytes long; at most %d allowed",
		    n->data.scalar.length, JOB_STR_MAX);
		return NULL;
	}
	for (i = 0; i < n->data.scalar.length; i++) {
		if (v[i] < 0x20 || v[i] == 0x7f) {
			err(c, n->start_mark, path,
			    "contains the control character 0x%02x; expected %s on one line",
			    v[i], want);
			return NULL;
		}
	}
	return (const char *)v;
}

static const char *range(char buf[64], unsigned long long min,
			 unsigned long long max)
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

static bool text_uint(struct ctx *c, yaml_mark_t m, const char *path,
		      const char *v, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	char r[64], s[SHOWLEN];
	uint64_t x;

	if (parse_uint(v, &x)) {
		const char *what = "is not an integer";

		if (v[0] == '-')
			what = "is negative";
		else if (looks_fraction(v))
			what = "is not a whole number";
		err(c, m, path, "'%s' %s; expected %s", shown(s, v), what,
		    range(r, min, max));
		return false;
	}
	if (x < min || x > max) {
		err(c, m, path, "%llu is out of range; expected %s",
		    (unsigned long long)x, range(r, min, max));
		return false;
	}
	*out = x;
	return true;
}

static bool get_uint(struct ctx *c, yaml_node_t *n, const char *path,
		     unsigned long long min, unsigned long long max,
		     unsigned long long *out)
{
	char r[64];
	const char *v = scalar(c, n, path, range(r, min, max));

	return v && text_uint(c, n->start_mark, path, v, min, max, out);
}

static bool get_uint32(struct ctx *c, yaml_node_t *n, const char *path,
		       unsigned int min, unsigned int max, unsigned int *out)
{
	unsigned long long v;

	if (!get_uint(c, n, path, min, max, &v))
		return false;
	*out = (unsigned int)v;
	return true;
}

static bool get_size(struct ctx *c, yaml_node_t *n, const char *path,
		     uint64_t *bytes)
{
	const char *want = "a size such as 512M (K/M/G/T = powers of 1024; bare = bytes)";
	const char *v = scalar(c, n, path, want);
	char s[SHOWLEN];

	if (!v)
		return false;
	if (parse_size(v, bytes)) {
		err(c, n->start_mark, path, "'%s' is not a size; expected %s",
		    shown(s, v), want);
		return false;
	}
	return true;
}

static const char *join(char *buf, size_t len, const char *const *words,
			const char *sep)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; words[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? sep : "", words[i]);
	return buf;
}

/* index of the choice, or -1 after an error */
static int get_enum(struct ctx *c, yaml_node_t *n, const char *path,
		    const char *const *choices)
{
	char list[256], s[SHOWLEN], want[300];
	const char *v;

	snprintf(want, sizeof(want), "one of: %s",
		 join(list, sizeof(list), choices, ", "));
	v = scalar(c, n, path, want);
	if (!v)
		return -1;
	for (int i = 0; choices[i]; i++)
		if (!strcmp(v, choices[i]))
			return i;
	err(c, n->start_mark, path, "'%s' is not allowed; expected %s",
	    shown(s, v), want);
	return -1;
}

/* a duration: bare seconds, or a number with an s, m or h suffix */
static bool get_duration(struct ctx *c, yaml_node_t *n, const char *path,
			 unsigned int max, unsigned int *out)
{
	const char *want = "a duration such as 90, 90s, 10m or 2h";
	const char *v = scalar(c, n, path, want);
	unsigned long long mult = 1;
	uint64_t x;
	char *num, s[SHOWLEN];
	size_t len;
	int bad;

	if (!v)
		return false;
	len = strlen(v);
	switch (v[len - 1]) {
	case 's': len--; break;
	case 'm': mult = 60; len--; break;
	case 'h': mult = 3600; len--; break;
	default: break;
	}
	num = xstrndup(v, len);
	bad = parse_uint(num, &x);
	free(num);
	if (bad) {
		err(c, n->start_mark, path, "'%s' is not a duration; expected %s",
		    shown(s, v), want);
		return false;
	}
	if (x == 0 || x > max / mult) {
		err(c, n->start_mark, path, "'%s' is out of range; expected 1s..%us",
		    shown(s, v), max);
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

static char *get_name(struct ctx *c, yaml_node_t *n, const char *path)
{
	const char *want = "a name of 1..64 characters from A-Z a-z 0-9 . _ -";
	const char *v = scalar(c, n, path, want);
	char s[SHOWLEN];

	if (!v)
		return NULL;
	if (!name_ok(v)) {
		err(c, n->start_mark, path, "'%s' is not a valid name; expected %s",
		    shown(s, v), want);
		return NULL;
	}
	return xstrdup(v);
}

/* edit distance of two short strings (longer ones count as far apart) */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[33], prev, tmp;

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

/* " (did you mean 'x'?)" for a near miss among keys, else "" */
static const char *suggest(char buf[SHOWLEN + 24], const char *key,
			   const char *const *keys)
{
	size_t best = 3, d;
	const char *hit = NULL;

	for (size_t i = 0; keys[i]; i++) {
		d = distance(key, keys[i]);
		if (d < best) {
			best = d;
			hit = keys[i];
		}
	}
	buf[0] = '\0';
	if (hit)
		snprintf(buf, SHOWLEN + 24, " (did you mean '%.*s'?)", SHOWLEN - 1, hit);
	return buf;
}

/*
 * Fill f[] from mapping n: unknown and duplicate keys are errors. Returns
 * false (after an error) when n is not a mapping.
 */
static bool get_map(struct ctx *c, yaml_node_t *n, const char *path,
		    const char *want, struct field *f, size_t nf)
{
	const char *keys[16];
	char list[256], p[PATHLEN], s[SHOWLEN], dym[SHOWLEN + 24];

	if (n->type != YAML_MAPPING_NODE) {
		err(c, n->start_mark, path, "got %s; expected %s", kind(n), want);
		return false;
	}
	for (size_t i = 0; i < nf && i < ARRAY_SIZE(keys) - 1; i++)
		keys[i] = f[i].key;
	keys[nf < ARRAY_SIZE(keys) - 1 ? nf : ARRAY_SIZE(keys) - 1] = NULL;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(c, pr->key);
		const char *key;
		size_t i;

		if (k->type != YAML_SCALAR_NODE) {
			err(c, k->start_mark, path, "a key is %s; expected a key name (one of: %s)",
			    kind(k), join(list, sizeof(list), keys, ", "));
			continue;
		}
		key = (const char *)k->data.scalar.value;
		for (i = 0; i < nf; i++)
			if (!strcmp(f[i].key, key))
				break;
		if (i == nf) {
			err(c, k->start_mark, pkey(p, path, key),
			    "unknown key '%s'%s; allowed keys here: %s", shown(s, key),
			    suggest(dym, key, keys), join(list, sizeof(list), keys, ", "));
			continue;
		}
		if (f[i].val) {
			err(c, k->start_mark, pkey(p, path, key),
			    "duplicate key (first given at line %zu); give each key once",
			    f[i].key_node->start_mark.line + 1);
			continue;
		}
		f[i].key_node = k;
		f[i].val = node(c, pr->value);
	}
	return true;
}

static void missing(struct ctx *c, yaml_node_t *map, const char *path,
		    const char *key, const char *example)
{
	char p[PATHLEN];

	err(c, map->start_mark, pkey(p, path, key),
	    "required key is missing; add it, e.g. '%s: %s'", key, example);
}

/* ---- topology ---- */

static bool get_node_memory(struct ctx *c, yaml_node_t *n, const char *path,
			    uint64_t *kib)
{
	uint64_t bytes;

	if (!get_size(c, n, path, &bytes))
		return false;
	if (bytes < JOB_MIN_NODE_BYTES || bytes > JOB_MAX_NODE_BYTES) {
		err(c, n->start_mark, path,
		    "%llu bytes is out of range; expected 64M..16T per node",
		    (unsigned long long)bytes);
		return false;
	}
	if (bytes % (1ULL << 20)) {
		err(c, n->start_mark, path,
		    "%llu bytes is not a whole number of MiB; expected a multiple of 1M",
		    (unsigned long long)bytes);
		return false;
	}
	*kib = bytes >> 10;
	return true;
}

enum { TN_CPUS, TN_MEMORY, TN_N };

static bool parse_node_entry(struct ctx *c, yaml_node_t *n, const char *path,
			     struct job_node *jn)
{
	struct field f[TN_N] = {
		[TN_CPUS] = { .key = "cpus" },
		[TN_MEMORY] = { .key = "memory" },
	};
	char p[PATHLEN];
	bool ok = true;

	if (!get_map(c, n, path, "a mapping such as {cpus: 1, memory: 256M}", f, TN_N))
		return false;
	jn->cpus = 1;
	if (f[TN_CPUS].val)
		ok &= get_uint32(c, f[TN_CPUS].val, pkey(p, path, "cpus"), 1,
				 JOB_MAX_CPUS, &jn->cpus);
	if (f[TN_MEMORY].val) {
		ok &= get_node_memory(c, f[TN_MEMORY].val, pkey(p, path, "memory"),
				      &jn->memory_kib);
	} else {
		missing(c, n, path, "memory", "256M");
		ok = false;
	}
	return ok;
}

enum { TP_NODES, TP_CPUS, TP_MEMORY, TP_DISTANCES, TP_N };

static bool parse_node_list(struct ctx *c, yaml_node_t *n, struct field *f,
			    struct job_topology *t)
{
	const char *path = "topology.nodes";
	size_t len = seq_len(n);
	char p[PATHLEN];
	bool ok = true;

	for (int i = TP_CPUS; i <= TP_MEMORY; i++) {
		if (!f[i].val)
			continue;
		err(c, f[i].key_node->start_mark, pkey(p, "topology", f[i].key),
		    "cannot be combined with a list of nodes; give cpus and memory in each node entry instead");
		ok = false;
	}
	if (len < 1 || len > JOB_MAX_NODES) {
		err(c, n->start_mark, path, "has %zu entries; expected 1..%d nodes",
		    len, JOB_MAX_NODES);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		ok &= parse_node_entry(c, seq_item(c, n, i), pidx(p, path, i),
				       &t->nodes[i]);
	t->nnodes = (unsigned int)len;
	return ok;
}

static bool parse_node_uniform(struct ctx *c, yaml_node_t *topo,
			       struct field *f, struct job_topology *t)
{
	unsigned int nnodes, cpus = 1;
	uint64_t kib = 0;
	bool ok;

	ok = get_uint32(c, f[TP_NODES].val, "topology.nodes", 1, JOB_MAX_NODES,
			&nnodes);
	if (f[TP_CPUS].val)
		ok &= get_uint32(c, f[TP_CPUS].val, "topology.cpus_per_node", 1,
				 JOB_MAX_CPUS, &cpus);
	if (f[TP_MEMORY].val) {
		ok &= get_node_memory(c, f[TP_MEMORY].val,
				      "topology.memory_per_node", &kib);
	} else {
		missing(c, topo, "topology", "memory_per_node", "256M");
		ok = false;
	}
	if (!ok)
		return false;
	t->nnodes = nnodes;
	for (unsigned int i = 0; i < nnodes; i++) {
		t->nodes[i].cpus = cpus;
		t->nodes[i].memory_kib = kib;
	}
	return true;
}

static void parse_distance_row(struct ctx *c, yaml_node_t *row, size_t i,
			       struct job_topology *t)
{
	unsigned int n = t->nnodes, d;
	char p[PATHLEN], q[PATHLEN];

	pidx(p, "topology.distances", i);
	if (row->type != YAML_SEQUENCE_NODE || seq_len(row) != n) {
		err(c, row->start_mark, p, "got %s%s; expected a list of %u distances (one per node)",
		    kind(row), row->type == YAML_SEQUENCE_NODE ? " of another length" : "",
		    n);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		yaml_node_t *e = seq_item(c, row, j);

		pidx(q, p, j);
		if (i == j) {
			if (!get_uint32(c, e, q, 0, 255, &d))
				continue;
			if (d != 10)
				err(c, e->start_mark, q,
				    "is %u; the distance of a node to itself must be 10", d);
			t->distances[i * n + j] = 10;
		} else if (get_uint32(c, e, q, 11, 255, &d)) {
			t->distances[i * n + j] = d;
		}
	}
}

static void parse_distances(struct ctx *c, yaml_node_t *n,
			    struct job_topology *t, bool nodes_ok)
{
	const char *path = "topology.distances";
	unsigned int d;

	if (n->type == YAML_SEQUENCE_NODE) {
		if (!nodes_ok)
			return;	/* shape unknown; the node error says why */
		if (seq_len(n) != t->nnodes) {
			err(c, n->start_mark, path,
			    "has %zu rows; expected a %ux%u matrix (one row per node)",
			    seq_len(n), t->nnodes, t->nnodes);
			return;
		}
		for (size_t i = 0; i < t->nnodes; i++)
			parse_distance_row(c, seq_item(c, n, i), i, t);
		return;
	}
	if (n->type == YAML_MAPPING_NODE) {
		err(c, n->start_mark, path,
		    "got a mapping; expected a remote distance 11..255 or an NxN list of lists");
		return;
	}
	if (!get_uint32(c, n, path, 11, 255, &d) || !nodes_ok)
		return;
	for (unsigned int i = 0; i < t->nnodes; i++)
		for (unsigned int j = 0; j < t->nnodes; j++)
			t->distances[i * t->nnodes + j] = i == j ? 10 : d;
}

static void parse_topology(struct ctx *c, yaml_node_t *n, struct job_topology *t)
{
	struct field f[TP_N] = {
		[TP_NODES] = { .key = "nodes" },
		[TP_CPUS] = { .key = "cpus_per_node" },
		[TP_MEMORY] = { .key = "memory_per_node" },
		[TP_DISTANCES] = { .key = "distances" },
	};
	bool ok;

	if (!get_map(c, n, "topology", "a mapping with nodes, cpus_per_node, memory_per_node, distances",
		     f, TP_N))
		return;
	if (!f[TP_NODES].val) {
		missing(c, n, "topology", "nodes", "2");
		return;
	}
	if (f[TP_NODES].val->type == YAML_SEQUENCE_NODE)
		ok = parse_node_list(c, f[TP_NODES].val, f, t);
	else
		ok = parse_node_uniform(c, n, f, t);
	if (ok && topology_total_cpus(t) > JOB_MAX_CPUS) {
		err(c, f[TP_NODES].val->start_mark, "topology",
		    "%u vCPUs in total; at most %d allowed", topology_total_cpus(t),
		    JOB_MAX_CPUS);
		ok = false;
	}
	if (ok)
		c->total_mem = topology_total_memory_kib(t) << 10;
	if (f[TP_DISTANCES].val)
		parse_distances(c, f[TP_DISTANCES].val, t, ok);
}

/* ---- variants ---- */

static bool sysctl_name_ok(const char *s)
{
	size_t len = strlen(s), seg = 0;
	bool dot = false;

	if (len < 3 || len > JOB_SYSCTL_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (s[i] == '.' || !s[i]) {
			if (!seg)
				return false;
			dot |= s[i] == '.';
			seg = 0;
		} else if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789_-", s[i])) {
			seg++;
		} else {
			return false;
		}
	}
	return dot;
}

static void parse_sysctl(struct ctx *c, yaml_node_t *n, const char *path,
			 struct kvlist *out)
{
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_MAPPING_NODE) {
		err(c, n->start_mark, path,
		    "got %s; expected a mapping of sysctl names to values, e.g. { vm.swappiness: 10 }",
		    kind(n));
		return;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
	     pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(c, pr->key);
		const char *key, *v;

		key = scalar(c, k, path, "a sysctl name such as vm.swappiness");
		if (!key)
			continue;
		pkey(p, path, key);
		if (!sysctl_name_ok(key)) {
			err(c, k->start_mark, p,
			    "'%s' is not a sysctl name; expected dotted words of A-Z a-z 0-9 _ - such as vm.compaction_proactiveness",
			    shown(s, key));
			continue;
		}
		if (kvlist_get(out, key)) {
			err(c, k->start_mark, p, "duplicate key; give each sysctl once");
			continue;
		}
		v = scalar(c, node(c, pr->value), p, "a value such as 20");
		if (v)
			kvlist_set(out, key, v);
	}
}

enum { TH_ENABLED, TH_DEFRAG, TH_N };

static void parse_thp(struct ctx *c, yaml_node_t *n, const char *path,
		      struct job_variant *v)
{
	struct field f[TH_N] = {
		[TH_ENABLED] = { .key = "enabled" },
		[TH_DEFRAG] = { .key = "defrag" },
	};
	char p[PATHLEN];
	int i;

	if (!get_map(c, n, path, "a mapping such as { enabled: always, defrag: madvise }",
		     f, TH_N))
		return;
	if (f[TH_ENABLED].val) {
		i = get_enum(c, f[TH_ENABLED].val, pkey(p, path, "enabled"),
			     thp_enabled_choices);
		if (i >= 0)
			v->thp_enabled = xstrdup(thp_enabled_choices[i]);
	}
	if (f[TH_DEFRAG].val) {
		i = get_enum(c, f[TH_DEFRAG].val, pkey(p, path, "defrag"),
			     thp_defrag_choices);
		if (i >= 0)
			v->thp_defrag = xstrdup(thp_defrag_choices[i]);
	}
}

static void parse_kernel(struct ctx *c, yaml_node_t *n, const char *path,
			 const char *dir, struct job_variant *v)
{
	const char *want = "'distro' or the path of a kernel image (bzImage)";
	const char *k = scalar(c, n, path, want);

	if (!k)
		return;
	if (!*k) {
		err(c, n->start_mark, path, "is empty; expected %s", want);
	} else if (!strcmp(k, "distro")) {
		v->kernel_kind = KERNEL_DISTRO;
	} else {
		v->kernel_kind = KERNEL_PATH;
		v->kernel_path = k[0] == '/' ? xstrdup(k) :
			xasprintf("%s/%s", dir, k);
	}
}

/* ~/x and relative paths (against the job's directory) made absolute */
static char *job_path(const char *dir, const char *p)
{
	const char *home = getenv("HOME");

	if (p[0] == '/')
		return xstrdup(p);
	if (p[0] == '~' && p[1] == '/' && home && *home)
		return xasprintf("%s/%s", home, p + 2);
	return xasprintf("%s/%s", dir, p);
}

/* a string or a list of 1..64 non-empty strings into out (paths if dir) */
static void parse_str_list(struct ctx *c, yaml_node_t *n, const char *path,
			   const char *want, const char *dir, struct strlist *out)
{
	char p[PATHLEN];
	size_t len;

	if (n->type == YAML_SCALAR_NODE) {
		const char *s = scalar(c, n, path, want);

		if (s && !*s)
			err(c, n->start_mark, path, "is empty; expected %s", want);
		else if (s && dir) {
			char *a = job_path(dir, s);

			strlist_push(out, a);
			free(a);
		} else if (s)
			strlist_push(out, s);
		return;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		err(c, n->start_mark, path, "got %s; expected %s or a list of them", kind(n),
		    want);
		return;
	}
	len = seq_len(n);
	if (len < 1 || len > JOB_MAX_LIST) {
		err(c, n->start_mark, path, "has %zu entries; expected 1..%d", len,
		    JOB_MAX_LIST);
		return;
	}
	for (size_t i = 0; i < len; i++)
		parse_str_list(c, seq_item(c, n, i), pidx(p, path, i), want, dir, out);
}

enum { V_NAME, V_KERNEL, V_CMDLINE, V_SYSCTL, V_THP, V_REF, V_REVERT, V_PICK, V_APPLY,
       V_N };

static yaml_node_t *parse_variant(struct ctx *c, yaml_node_t *n, const char *path,
				  const char *dir, struct job_variant *v)
{
	struct field f[V_N] = {
		[V_NAME] = { .key = "name" },
		[V_KERNEL] = { .key = "kernel" },
		[V_CMDLINE] = { .key = "cmdline" },
		[V_SYSCTL] = { .key = "sysctl" },
		[V_THP] = { .key = "thp" },
		[V_REF] = { .key = "ref" },
		[V_REVERT] = { .key = "revert" },
		[V_PICK] = { .key = "cherry_pick" },
		[V_APPLY] = { .key = "apply" },
	};
	char p[PATHLEN];
	const char *s;

	if (!get_map(c, n, path, "a mapping with name, kernel, cmdline, sysctl, thp, ref, ...",
		     f, V_N))
		return NULL;
	if (f[V_NAME].val)
		v->name = get_name(c, f[V_NAME].val, pkey(p, path, "name"));
	else
		missing(c, n, path, "name", "base");
	v->kernel_kind = KERNEL_DISTRO;
	if (f[V_KERNEL].val)
		parse_kernel(c, f[V_KERNEL].val, pkey(p, path, "kernel"), dir, v);
	if (f[V_CMDLINE].val) {
		s = scalar(c, f[V_CMDLINE].val, pkey(p, path, "cmdline"),
			   "a string of kernel arguments");
		if (s && *s)
			v->cmdline = xstrdup(s);
	}
	if (f[V_SYSCTL].val)
		parse_sysctl(c, f[V_SYSCTL].val, pkey(p, path, "sysctl"), &v->sysctl);
	if (f[V_THP].val)
		parse_thp(c, f[V_THP].val, pkey(p, path, "thp"), v);
	if (f[V_REF].val && f[V_KERNEL].val) {
		err(c, f[V_REF].key_node->start_mark, pkey(p, path, "ref"),
		    "a variant has either 'kernel:' (a prebuilt kernel) or 'ref:' (built from "
		    "kernels.tree), not both; remove one");
	} else if (f[V_REF].val) {
		s = scalar(c, f[V_REF].val, pkey(p, path, "ref"), "a git ref (tag, branch, commit)");
		if (s && !*s)
			err(c, f[V_REF].val->start_mark, p, "is empty; expected a git ref");
		else if (s && s[0] == '-')
			err(c, f[V_REF].val->start_mark, p,
			    "'%s' starts with '-'; expected a git ref (tag, branch, commit)", s);
		else if (s)
			v->ref = xstrdup(s);
		v->kernel_kind = KERNEL_SOURCE;
	}
	if (f[V_REVERT].val)
		parse_str_list(c, f[V_REVERT].val, pkey(p, path, "revert"), "a commit",
			       NULL, &v->revert);
	if (f[V_PICK].val)
		parse_str_list(c, f[V_PICK].val, pkey(p, path, "cherry_pick"), "a commit",
			       NULL, &v->cherry_pick);
	if (f[V_APPLY].val)
		parse_str_list(c, f[V_APPLY].val, pkey(p, path, "apply"),
			       "the path of a patch file", dir, &v->apply);
	for (int i = V_REVERT; i <= V_APPLY; i++)
		if (f[i].val && !f[V_REF].val)
			err(c, f[i].key_node->start_mark, pkey(p, path, f[i].key),
			    "needs 'ref:' in the same variant (the commit the operations start "
			    "from); add e.g. 'ref: v6.4-rc2'");
	return v->name ? f[V_NAME].val : NULL;
}

static void parse_variants(struct ctx *c, yaml_node_t *n, struct job *job)
{
	yaml_node_t **names;
	size_t len;
	char p[PATHLEN], q[PATHLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		err(c, n->start_mark, "variants",
		    "got %s; expected a list of 1..%d variants (- name: ...)",
		    kind(n), JOB_MAX_VARIANTS);
		return;
	}
	len = seq_len(n);
	if (len < 1 || len > JOB_MAX_VARIANTS) {
		err(c, n->start_mark, "variants", "has %zu entries; expected 1..%d variants",
		    len, JOB_MAX_VARIANTS);
		return;
	}
	job->variants = xcalloc(len, sizeof(*job->variants));
	job->nvariants = len;
	names = xcalloc(len, sizeof(*names));
	for (size_t i = 0; i < len; i++) {
		names[i] = parse_variant(c, seq_item(c, n, i), pidx(p, "variants", i),
					 job->dir, &job->variants[i]);
		for (size_t j = 0; names[i] && j < i; j++) {
			if (!names[j] ||
			    strcmp(job->variants[i].name, job->variants[j].name))
				continue;
			err(c, names[i]->start_mark, pkey(q, p, "name"),
			    "'%s' is already the name of variants[%zu]; give each variant a unique name",
			    job->variants[i].name, j);
			break;
		}
	}
	free(names);
}

/* ---- workload ---- */

static char *param_size(struct ctx *c, const struct wl_param *wp, const char *v,
			yaml_mark_t m, const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX;
	size_t len = strlen(v);
	char s[SHOWLEN], r[64];
	uint64_t bytes, pct;

	if (len && v[len - 1] == '%') {
		char *num = xstrndup(v, len - 1);
		int bad = parse_uint(num, &pct);

		free(num);
		if (!wp->allow_pct) {
			err(c, m, path, "'%s': a percentage is not allowed here; expected a size such as 64M",
			    shown(s, v));
			return NULL;
		}
		if (bad || pct < 1 || pct > 100) {
			err(c, m, path, "'%s' is not a percentage; expected 1%%..100%% of guest memory or a size such as 64M",
			    shown(s, v));
			return NULL;
		}
		if (!c->total_mem)
			return NULL;	/* the topology error says why */
		bytes = (c->total_mem * pct / 100) & ~4095ULL;
	} else if (parse_size(v, &bytes)) {
		err(c, m, path, "'%s' is not a size; expected a size such as 64M%s",
		    shown(s, v), wp->allow_pct ? " or a percentage of guest memory such as 25%" : "");
		return NULL;
	}
	if (bytes < wp->min || bytes > max) {
		if (max == ULLONG_MAX)
			snprintf(r, sizeof(r), "at least %llu bytes", wp->min);
		else
			snprintf(r, sizeof(r), "%llu..%llu bytes", wp->min, max);
		err(c, m, path, "'%s' (%llu bytes) is out of range; expected %s",
		    shown(s, v), (unsigned long long)bytes, r);
		return NULL;
	}
	return xasprintf("%llu", (unsigned long long)bytes);
}

static char *param_uint_list(struct ctx *c, const struct wl_param *wp,
			     const char *v, yaml_mark_t m, const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX, x;
	char *copy = xstrdup(v), *save = NULL, *out = NULL, *tmp;
	size_t n = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), n++) {
		if (!text_uint(c, m, path, tok, wp->min, max, &x))
			goto fail;
		tmp = out ? xasprintf("%s,%llu", out, x) : xasprintf("%llu", x);
		free(out);
		out = tmp;
	}
	if (!out)
		err(c, m, path, "is empty; expected an integer or a list of integers");
	free(copy);
	return out;
fail:
	free(copy);
	free(out);
	return NULL;
}

/* a parameter given as text (a scalar of the job, or the table's default) */
static char *param_text(struct ctx *c, const struct wl_param *wp, const char *v,
			yaml_mark_t m, const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX, x;
	char s[SHOWLEN], want[300];
	size_t len;

	switch (wp->type) {
	case WLP_UINT:
		if (!text_uint(c, m, path, v, wp->min, max, &x))
			return NULL;
		return xasprintf("%llu", x);
	case WLP_UINT_LIST:
		return param_uint_list(c, wp, v, m, path);
	case WLP_SIZE:
		return param_size(c, wp, v, m, path);
	case WLP_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
			return xstrdup("1");
		if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
			return xstrdup("0");
		err(c, m, path, "'%s' is not a boolean; expected true or false",
		    shown(s, v));
		return NULL;
	case WLP_ENUM:
		len = strlen(v);
		for (const char *p = wp->choices; p && *p;) {
			size_t l = strcspn(p, "|");

			if (l == len && !strncmp(p, v, len))
				return xstrdup(v);
			p += l + (p[l] == '|');
		}
		snprintf(want, sizeof(want), "%s", wp->choices ? wp->choices : "");
		for (char *p = want; *p; p++)
			if (*p == '|')
				*p = ',';
		err(c, m, path, "'%s' is not allowed; expected one of: %s",
		    shown(s, v), want);
		return NULL;
	}
	return NULL;
}

static char *param_node(struct ctx *c, const struct wl_param *wp, yaml_node_t *n,
			const char *path)
{
	const char *v;
	char *out = NULL, *one, *tmp, p[PATHLEN], s[SHOWLEN];
	size_t len;

	if (wp->type != WLP_UINT_LIST || n->type != YAML_SEQUENCE_NODE) {
		v = scalar(c, n, path, wp->type == WLP_UINT_LIST ?
			   "an integer or a list of integers" : "a scalar value");
		return v ? param_text(c, wp, v, n->start_mark, path) : NULL;
	}
	len = seq_len(n);
	if (len < 1 || len > JOB_MAX_LIST) {
		err(c, n->start_mark, path, "has %zu entries; expected a list of 1..%d integers",
		    len, JOB_MAX_LIST);
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *e = seq_item(c, n, i);

		pidx(p, path, i);
		v = scalar(c, e, p, "an integer");
		one = v && !strchr(v, ',') ? param_text(c, wp, v, e->start_mark, p) : NULL;
		if (v && strchr(v, ','))
			err(c, e->start_mark, p, "'%s' is not an integer; expected one integer per list entry",
			    shown(s, v));
		if (!one) {
			free(out);
			return NULL;
		}
		tmp = out ? xasprintf("%s,%s", out, one) : xstrdup(one);
		free(out);
		free(one);
		out = tmp;
	}
	return out;
}

static void parse_params(struct ctx *c, yaml_node_t *n, const struct workload_def *wd,
			 struct kvlist *out, yaml_mark_t wl_mark)
{
	const char *path = "workload.params";
	size_t np = 0;
	char **vals, list[256] = "", p[PATHLEN], s[SHOWLEN];
	yaml_node_t **keys;
	bool ok = true;

	while (wd->params[np].name)
		np++;
	for (size_t i = 0; i < np; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", wd->params[i].name);
	vals = xcalloc(np + 1, sizeof(*vals));
	keys = xcalloc(np + 1, sizeof(*keys));
	if (n && n->type != YAML_MAPPING_NODE) {
		err(c, n->start_mark, path, "got %s; expected a mapping of parameter names to values",
		    kind(n));
		n = NULL;
		ok = false;
	}
	for (yaml_node_pair_t *pr = n ? n->data.mapping.pairs.start : NULL;
	     n && pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = node(c, pr->key);
		const char *key = scalar(c, k, path, "a parameter name");
		size_t i;

		if (!key) {
			ok = false;
			continue;
		}
		for (i = 0; i < np && strcmp(wd->params[i].name, key); i++)
			;
		pkey(p, path, key);
		if (i == np) {
			err(c, k->start_mark, p, "unknown parameter '%s' of workload %s; %s%s",
			    shown(s, key), wd->name,
			    np ? "allowed parameters: " : "this workload takes no parameters",
			    list);
			ok = false;
		} else if (keys[i]) {
			err(c, k->start_mark, p, "duplicate key (first given at line %zu); give each parameter once",
			    keys[i]->start_mark.line + 1);
			ok = false;
		} else {
			keys[i] = k;
			vals[i] = param_node(c, &wd->params[i], node(c, pr->value), p);
			ok &= vals[i] != NULL;
		}
	}
	for (size_t i = 0; ok && i < np; i++) {
		if (!vals[i])
			vals[i] = param_text(c, &wd->params[i], wd->params[i].def, wl_mark,
					     pkey(p, path, wd->params[i].name));
		ok &= vals[i] != NULL;
	}
	for (size_t i = 0; ok && i < np; i++)
		kvlist_set(out, wd->params[i].name, vals[i]);
	for (size_t i = 0; i < np; i++)
		free(vals[i]);
	free(vals);
	free(keys);
}

enum { W_NAME, W_PARAMS, W_N };

static void parse_workload(struct ctx *c, yaml_node_t *n, struct job_workload *w)
{
	struct field f[W_N] = {
		[W_NAME] = { .key = "name" },
		[W_PARAMS] = { .key = "params" },
	};
	const struct workload_def *const *all = workload_all();
	const struct workload_def *wd;
	const char *names[32];
	char list[256], s[SHOWLEN];
	const char *v;
	size_t i;

	if (!get_map(c, n, "workload", "a mapping such as { name: usemem, params: { size: 25% } }",
		     f, W_N))
		return;
	if (!f[W_NAME].val) {
		missing(c, n, "workload", "name", "usemem");
		return;
	}
	v = scalar(c, f[W_NAME].val, "workload.name", "a workload name");
	if (!v)
		return;
	wd = workload_find(v);
	if (!wd) {
		for (i = 0; i < ARRAY_SIZE(names) - 1 && all[i]; i++)
			names[i] = all[i]->name;
		names[i] = NULL;
		err(c, f[W_NAME].val->start_mark, "workload.name",
		    "unknown workload '%s'; expected one of: %s", shown(s, v),
		    join(list, sizeof(list), names, ", "));
		return;
	}
	w->name = xstrdup(wd->name);
	parse_params(c, f[W_PARAMS].val, wd, &w->params, n->start_mark);
}

/* ---- collectors ---- */

static bool tracepoint_ok(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon && colon != s && colon[1] && !strchr(colon + 1, ':') &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_:*?[]-") == strlen(s) && strlen(s) <= 128;
}

enum { CL_TRACEPOINTS, CL_ENABLED, CL_N };

static void parse_collectors(struct ctx *c, yaml_node_t *n, struct job_collectors *jc)
{
	struct field f[CL_N] = {
		[CL_TRACEPOINTS] = { .key = "tracepoints" },
		[CL_ENABLED] = { .key = "enabled" },
	};
	const char *want = "a tracepoint pattern \"system:event\" such as compaction:* or migrate:mm_migrate_pages";
	char p[PATHLEN], s[SHOWLEN];
	yaml_node_t *tp;

	if (!get_map(c, n, "collectors",
		     "a mapping such as { tracepoints: [\"compaction:*\"] }", f, CL_N))
		return;
	if (f[CL_ENABLED].val) {
		static const char *const bools[] = { "true", "false", NULL };
		int b = get_enum(c, f[CL_ENABLED].val, "collectors.enabled", bools);

		jc->disabled = b == 1;
	}
	tp = f[CL_TRACEPOINTS].val;
	if (!tp)
		return;
	if (tp->type == YAML_SCALAR_NODE) {
		const char *v = scalar(c, tp, "collectors.tracepoints", want);

		if (v && !tracepoint_ok(v))
			err(c, tp->start_mark, "collectors.tracepoints",
			    "'%s' is not a tracepoint pattern; expected %s", shown(s, v), want);
		else if (v)
			strlist_push(&jc->tracepoints, v);
		return;
	}
	if (tp->type != YAML_SEQUENCE_NODE) {
		err(c, tp->start_mark, "collectors.tracepoints", "got %s; expected a list of %s",
		    kind(tp), want);
		return;
	}
	if (seq_len(tp) > JOB_MAX_TRACEPOINTS) {
		err(c, tp->start_mark, "collectors.tracepoints",
		    "has %zu entries; at most %d patterns", seq_len(tp), JOB_MAX_TRACEPOINTS);
		return;
	}
	for (size_t i = 0; i < seq_len(tp); i++) {
		yaml_node_t *it = seq_item(c, tp, i);
		const char *path = pidx(p, "collectors.tracepoints", i);
		const char *v = scalar(c, it, path, want);

		if (v && !tracepoint_ok(v))
			err(c, it->start_mark, path,
			    "'%s' is not a tracepoint pattern; expected %s", shown(s, v), want);
		else if (v)
			strlist_push(&jc->tracepoints, v);
	}
}

/* ---- extra top-level keys (job_yaml.h): repro recipes ---- */

/* fill f[] with the extension's keys; returns how many */
static size_t ext_keys(struct ctx *c, struct field *f)
{
	size_t n = 0;

	for (; c->ext && c->ext->keys && c->ext->keys[n] && n < JOB_EXT_MAX; n++)
		f[n] = (struct field){ .key = c->ext->keys[n] };
	return n;
}

/* hand each extra key (given or not) to the extension, then its check */
static void ext_parse(struct ctx *c, yaml_node_t *root, struct field *f, size_t n,
		      struct job *job)
{
	if (!c->ext)
		return;
	for (size_t i = 0; i < n; i++)
		if (c->ext->parse)
			c->ext->parse((struct job_yaml *)c, f[i].key, root, f[i].key_node,
				      f[i].val, c->ext->arg);
	if (c->ext->check)
		c->ext->check((struct job_yaml *)c, job, c->ext->arg);
}

static struct ctx *yctx(struct job_yaml *y)
{
	return (struct ctx *)y;
}

void job_yaml_err(struct job_yaml *y, yaml_mark_t m, const char *path,
		  const char *fmt, ...)
{
	struct ctx *c = yctx(y);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err(c, m, path, "%s", msg);
}

yaml_node_t *job_yaml_node(struct job_yaml *y, int id)
{
	return node(yctx(y), id);
}

bool job_yaml_is_null(const yaml_node_t *n)
{
	return is_null(n);
}

const char *job_yaml_kind(const yaml_node_t *n)
{
	return kind(n);
}

size_t job_yaml_seq_len(const yaml_node_t *n)
{
	return seq_len(n);
}

yaml_node_t *job_yaml_seq_item(struct job_yaml *y, const yaml_node_t *n, size_t i)
{
	return seq_item(yctx(y), n, i);
}

const char *job_yaml_scalar(struct job_yaml *y, yaml_node_t *n, const char *path,
			    const char *want)
{
	return scalar(yctx(y), n, path, want);
}

bool job_yaml_uint(struct job_yaml *y, yaml_node_t *n, const char *path,
		   unsigned int min, unsigned int max, unsigned int *out)
{
	return get_uint32(yctx(y), n, path, min, max, out);
}

int job_yaml_enum(struct job_yaml *y, yaml_node_t *n, const char *path,
		  const char *const *choices)
{
	return get_enum(yctx(y), n, path, choices);
}

bool job_yaml_map(struct job_yaml *y, yaml_node_t *n, const char *path,
		  const char *want, struct job_field *jf, size_t nf)
{
	struct field f[15];
	bool ok;

	if (nf > ARRAY_SIZE(f))
		nf = ARRAY_SIZE(f);
	for (size_t i = 0; i < nf; i++)
		f[i] = (struct field){ .key = jf[i].key };
	ok = get_map(yctx(y), n, path, want, f, nf);
	for (size_t i = 0; i < nf; i++) {
		jf[i].key_node = f[i].key_node;
		jf[i].val = f[i].val;
	}
	return ok;
}

void job_yaml_missing(struct job_yaml *y, yaml_node_t *map, const char *path,
		      const char *key, const char *example)
{
	missing(yctx(y), map, path, key, example);
}

unsigned int job_yaml_errors(struct job_yaml *y)
{
	return yctx(y)->nerr;
}

/* ---- image and collect_files ---- */

static const char *const image_kind_choices[] = { "initramfs", "debootstrap", NULL };

/* Debian package and suite names: [a-z0-9][a-z0-9+.-]* */
static bool debian_name_ok(const char *s, bool plus)
{
	if (!*s || strlen(s) > 100 || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '.' || (plus && *s == '+')))
			return false;
	return true;
}

static void parse_packages(struct ctx *c, yaml_node_t *n, struct strlist *out)
{
	const char *want = "a Debian package name such as numactl";
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		err(c, n->start_mark, "image.packages", "got %s; expected a list such as [numactl, linux-perf]",
		    kind(n));
		return;
	}
	if (seq_len(n) > JOB_MAX_PACKAGES) {
		err(c, n->start_mark, "image.packages", "%zu packages; at most %d allowed",
		    seq_len(n), JOB_MAX_PACKAGES);
		return;
	}
	for (size_t i = 0; i < seq_len(n); i++) {
		yaml_node_t *it = seq_item(c, n, i);
		const char *v = scalar(c, it, pidx(p, "image.packages", i), want);

		if (!v)
			continue;
		if (!debian_name_ok(v, true))
			err(c, it->start_mark, p, "'%s' is not a Debian package name; expected %s "
			    "(lowercase letters, digits, '+', '-', '.')", shown(s, v), want);
		else
			strlist_push(out, v);
	}
}

enum { IM_KIND, IM_RECIPE, IM_SUITE, IM_PACKAGES, IM_SIZE, IM_N };

static enum image_kind kind_of_recipe(const struct image_recipe *r)
{
	return r->kind == RECIPE_DEBOOTSTRAP ? IMAGE_DEBOOTSTRAP : IMAGE_INITRAMFS;
}

/*
 * image.recipe: the recipe file it names (images/NAME.yaml, or a path
 * relative to the job) loaded into r; its kind, or -1 after an error.
 */
static int named_recipe(struct ctx *c, struct field *f, const char *dir, int k,
			struct image_recipe *r, struct job_image *im)
{
	yaml_node_t *n = f[IM_RECIPE].val;
	const char *v = scalar(c, n, "image.recipe",
			       "a recipe name such as debootstrap or the path of a .yaml file");
	char *path, s[SHOWLEN];

	if (!v)
		return -1;
	path = image_recipe_path(v, dir);
	if (!path || image_recipe_load(path, r)) {
		err(c, n->start_mark, "image.recipe", "cannot use the image recipe '%s' (see the "
		    "message above); name one in %s or give the path of a .yaml file",
		    shown(s, v), image_recipe_dir());
		free(path);
		return -1;
	}
	im->recipe = path;
	if (k >= 0 && (enum image_kind)k != kind_of_recipe(r))
		err(c, f[IM_KIND].val->start_mark, "image.kind", "is %s, but the recipe %s is of "
		    "kind %s; leave out image.kind or make them agree", image_kind_choices[k],
		    r->path, image_recipe_kind_name(r->kind));
	return (int)kind_of_recipe(r);
}

/* the image's recipe: the one image.recipe names, else the kind's default */
static int image_recipe_of(struct ctx *c, yaml_node_t *n, struct field *f, const char *dir,
			   struct image_recipe *r, struct job_image *im)
{
	int k = -1;

	if (!f[IM_KIND].val && !f[IM_RECIPE].val)
		missing(c, n, "image", "kind", "debootstrap");
	else if (f[IM_KIND].val)
		k = get_enum(c, f[IM_KIND].val, "image.kind", image_kind_choices);
	if (f[IM_RECIPE].val)
		return named_recipe(c, f, dir, k, r, im);
	/* a disk takes the suite and size it does not give from the default recipe */
	if (k == IMAGE_DEBOOTSTRAP && image_recipe_load_default(RECIPE_DEBOOTSTRAP, r))
		err(c, f[IM_KIND].val->start_mark, "image.kind", "the default disk image recipe "
		    "cannot be used (see the message above)");
	return k;
}

static void parse_image(struct ctx *c, yaml_node_t *n, const char *dir, struct job_image *im)
{
	struct field f[IM_N] = {
		[IM_KIND] = { .key = "kind" },
		[IM_RECIPE] = { .key = "recipe" },
		[IM_SUITE] = { .key = "suite" },
		[IM_PACKAGES] = { .key = "packages" },
		[IM_SIZE] = { .key = "size" },
	};
	struct image_recipe r = { 0 };
	char s[SHOWLEN];
	int k;

	if (!get_map(c, n, "image", "a mapping such as { kind: debootstrap, packages: [numactl] }",
		     f, IM_N))
		return;
	k = image_recipe_of(c, n, f, dir, &r, im);
	if (k >= 0)
		im->kind = (enum image_kind)k;
	if (k == IMAGE_INITRAMFS) {
		for (int i = IM_SUITE; i < IM_N; i++)
			if (f[i].val)
				err(c, f[i].key_node->start_mark, f[i].key,
				    "applies to 'kind: debootstrap' only; remove it or set image.kind: debootstrap");
		image_recipe_release(&r);
		return;
	}
	if (f[IM_SUITE].val) {
		const char *v = scalar(c, f[IM_SUITE].val, "image.suite", "a Debian suite such as bookworm");

		if (v && !debian_name_ok(v, false))
			err(c, f[IM_SUITE].val->start_mark, "image.suite",
			    "'%s' is not a suite name; expected a Debian suite such as bookworm", shown(s, v));
		else if (v)
			im->suite = xstrdup(v);
	}
	if (f[IM_PACKAGES].val)
		parse_packages(c, f[IM_PACKAGES].val, &im->packages);
	if (f[IM_SIZE].val && get_size(c, f[IM_SIZE].val, "image.size", &im->size_bytes) &&
	    (im->size_bytes < (512ULL << 20) || im->size_bytes > (1ULL << 40) ||
	     im->size_bytes % (1ULL << 20)))
		err(c, f[IM_SIZE].val->start_mark, "image.size",
		    "%llu bytes; expected a whole number of MiB from 512M to 1T",
		    (unsigned long long)im->size_bytes);
	if (k == IMAGE_DEBOOTSTRAP && r.suite && !im->suite)
		im->suite = xstrdup(r.suite);
	if (k == IMAGE_DEBOOTSTRAP && !im->size_bytes)
		im->size_bytes = r.size_bytes;
	image_recipe_release(&r);
}

static bool guest_path_ok(const char *v)
{
	size_t n = strlen(v);

	if (v[0] != '/' || n < 2 || n > 1024 || strstr(v, "//") || strstr(v, "/../") ||
	    (n >= 3 && !strcmp(v + n - 3, "/..")))
		return false;
	return true;
}

static void parse_collect(struct ctx *c, yaml_node_t *n, struct strlist *out)
{
	const char *want = "an absolute path in the guest such as /var/log/syslog";
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		err(c, n->start_mark, "collect_files", "got %s; expected a list such as [/var/log/dpkg.log]",
		    kind(n));
		return;
	}
	if (seq_len(n) > JOB_MAX_COLLECT) {
		err(c, n->start_mark, "collect_files", "%zu paths; at most %d allowed",
		    seq_len(n), JOB_MAX_COLLECT);
		return;
	}
	for (size_t i = 0; i < seq_len(n); i++) {
		yaml_node_t *it = seq_item(c, n, i);
		const char *v = scalar(c, it, pidx(p, "collect_files", i), want);

		if (!v)
			continue;
		if (!guest_path_ok(v))
			err(c, it->start_mark, p, "'%s' is not a usable path; expected %s "
			    "(no '..', no '//')", shown(s, v), want);
		else
			strlist_push(out, v);
	}
}

/* ---- the job ---- */

enum { TM_BOOT, TM_ITERATION, TM_N };

static void parse_timeouts(struct ctx *c, yaml_node_t *n, struct job_timeouts *t)
{
	struct field f[TM_N] = {
		[TM_BOOT] = { .key = "boot" },
		[TM_ITERATION] = { .key = "iteration" },
	};

	if (!get_map(c, n, "timeouts", "a mapping such as { boot: 120s, iteration: 10m }",
		     f, TM_N))
		return;
	if (f[TM_BOOT].val)
		get_duration(c, f[TM_BOOT].val, "timeouts.boot", 3600, &t->boot_s);
	if (f[TM_ITERATION].val)
		get_duration(c, f[TM_ITERATION].val, "timeouts.iteration", 7 * 86400,
			     &t->iteration_s);
}

enum { J_NAME, J_VARIANTS, J_TOPOLOGY, J_WORKLOAD, J_ITERATIONS, J_IPB,
       J_TIMEOUTS, J_ACCEL, J_COLLECTORS, J_KERNELS, J_IMAGE, J_COLLECT,
       J_N };

static const char *const config_bases[] = { "tinyconfig", "defconfig", "distro", NULL };

static void parse_kconfig(struct ctx *c, yaml_node_t *n, const char *dir,
			  struct job_kernels *k)
{
	struct field f[] = { { .key = "base" }, { .key = "fragments" } };
	const char *want = "tinyconfig, defconfig, distro or the path of a .config";
	const char *s;

	if (!get_map(c, n, "kernels.config", "a mapping with base, fragments", f, 2))
		return;
	if (f[0].val && (s = scalar(c, f[0].val, "kernels.config.base", want))) {
		bool named = false;

		for (size_t i = 0; config_bases[i]; i++)
			named |= !strcmp(s, config_bases[i]);
		if (!*s)
			err(c, f[0].val->start_mark, "kernels.config.base", "is empty; expected %s",
			    want);
		else
			k->config_base = named ? xstrdup(s) : job_path(dir, s);
	}
	if (f[1].val)
		parse_str_list(c, f[1].val, "kernels.config.fragments",
			       "the path of a config fragment", dir, &k->fragments);
}

static void parse_kernels(struct ctx *c, yaml_node_t *n, const char *dir,
			  struct job_kernels *k)
{
	struct field f[] = { { .key = "tree" }, { .key = "config" } };
	const char *s;

	if (!get_map(c, n, "kernels", "a mapping with tree, config", f, 2))
		return;
	if (!f[0].val)
		missing(c, n, "kernels", "tree", "~/src/linux");
	else if ((s = scalar(c, f[0].val, "kernels.tree", "the path of a git kernel tree"))) {
		if (!*s)
			err(c, f[0].val->start_mark, "kernels.tree",
			    "is empty; expected the path of a git kernel tree");
		else
			k->tree = job_path(dir, s);
	}
	if (f[1].val)
		parse_kconfig(c, f[1].val, dir, k);
	if (!k->config_base)
		k->config_base = xstrdup("tinyconfig");
}

static void parse_job(struct ctx *c, yaml_node_t *root, struct job *job)
{
	struct field f[J_N + JOB_EXT_MAX] = {
		[J_NAME] = { .key = "name" },
		[J_VARIANTS] = { .key = "variants" },
		[J_TOPOLOGY] = { .key = "topology" },
		[J_WORKLOAD] = { .key = "workload" },
		[J_ITERATIONS] = { .key = "iterations" },
		[J_IPB] = { .key = "iterations_per_boot" },
		[J_TIMEOUTS] = { .key = "timeouts" },
		[J_ACCEL] = { .key = "accel" },
		[J_COLLECTORS] = { .key = "collectors" },
		[J_KERNELS] = { .key = "kernels" },
		[J_IMAGE] = { .key = "image" },
		[J_COLLECT] = { .key = "collect_files" },
	};
	static const char *const examples[] = {
		[J_NAME] = "demo", [J_VARIANTS] = "[ { name: base } ]",
		[J_TOPOLOGY] = "{ nodes: 2, memory_per_node: 256M }",
		[J_WORKLOAD] = "{ name: usemem }",
	};
	bool ipb_ok = true, it_ok = true;
	size_t nf = J_N + ext_keys(c, f + J_N);
	int a;

	if (c->ext && c->ext->iterations_key)
		f[J_ITERATIONS].key = c->ext->iterations_key;

	if (!get_map(c, root, "", "a mapping with name, variants, topology, workload, ...",
		     f, nf))
		return;
	for (int i = J_NAME; i <= J_WORKLOAD; i++)
		if (!f[i].val && !(i == J_NAME && c->ext && c->ext->default_name))
			missing(c, root, "", f[i].key, examples[i]);
	if (f[J_NAME].val)
		job->name = get_name(c, f[J_NAME].val, "name");
	else if (c->ext && c->ext->default_name)
		job->name = xstrdup(c->ext->default_name);
	if (f[J_TOPOLOGY].val)
		parse_topology(c, f[J_TOPOLOGY].val, &job->topo);
	if (f[J_VARIANTS].val)
		parse_variants(c, f[J_VARIANTS].val, job);
	if (f[J_WORKLOAD].val)
		parse_workload(c, f[J_WORKLOAD].val, &job->workload);
	if (f[J_ITERATIONS].val)
		it_ok = get_uint32(c, f[J_ITERATIONS].val, f[J_ITERATIONS].key, 1,
				   JOB_MAX_ITERATIONS, &job->iterations);
	if (f[J_IPB].val)
		ipb_ok = get_uint32(c, f[J_IPB].val, "iterations_per_boot", 1,
				    JOB_MAX_ITERATIONS, &job->iterations_per_boot);
	if (it_ok && ipb_ok && job->iterations_per_boot > job->iterations)
		err(c, f[J_IPB].val->start_mark, "iterations_per_boot",
		    "%u is more than iterations (%u); expected 1..%u",
		    job->iterations_per_boot, job->iterations, job->iterations);
	if (f[J_TIMEOUTS].val)
		parse_timeouts(c, f[J_TIMEOUTS].val, &job->timeouts);
	if (f[J_COLLECTORS].val)
		parse_collectors(c, f[J_COLLECTORS].val, &job->collectors);
	if (f[J_ACCEL].val) {
		a = get_enum(c, f[J_ACCEL].val, "accel", accel_choices);
		if (a >= 0)
			job->accel = (enum accel_mode)a;
	}
	ext_parse(c, root, f + J_N, nf - J_N, job);
	if (f[J_KERNELS].val)
		parse_kernels(c, f[J_KERNELS].val, job->dir, &job->kernels);
	for (size_t i = 0; i < job->nvariants && !f[J_KERNELS].val; i++) {
		char p[PATHLEN];

		if (job->variants[i].kernel_kind == KERNEL_SOURCE)
			err(c, root->start_mark, pidx(p, "variants", i),
			    "variant '%s' has 'ref:' but the job has no 'kernels:' mapping; add "
			    "'kernels: { tree: PATH-OF-A-GIT-KERNEL-TREE }'",
			    job->variants[i].name ? job->variants[i].name : "?");
	}
	if (f[J_IMAGE].val)
		parse_image(c, f[J_IMAGE].val, job->dir, &job->image);
	if (f[J_COLLECT].val) {
		parse_collect(c, f[J_COLLECT].val, &job->collect_files);
		if (job->image.kind != IMAGE_DEBOOTSTRAP && job->collect_files.n)
			err(c, f[J_COLLECT].key_node->start_mark, "collect_files",
			    "needs a disk image; add 'image: { kind: debootstrap }' or remove collect_files");
	}
}

/* ---- libyaml passes ---- */

static void syntax_error(struct ctx *c, const yaml_parser_t *p, const char *buf,
			 size_t len)
{
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_READER_ERROR) {
		/* the reader gives a byte offset, not a mark */
		m.line = m.column = 0;
		for (size_t i = 0; i < p->problem_offset && i < len; i++) {
			if (buf[i] == '\n') {
				m.line++;
				m.column = 0;
			} else {
				m.column++;
			}
		}
	}
	if (p->error == YAML_READER_ERROR)
		err(c, m, "YAML", "%s (byte 0x%02x); save the file as UTF-8 text without control characters",
		    p->problem ? p->problem : "unreadable text", (unsigned int)p->problem_value & 0xff);
	else if (p->error == YAML_MEMORY_ERROR)
		err(c, m, "YAML", "out of memory while parsing; make the file smaller");
	else if (p->context)
		err(c, m, "YAML", "%s %s started at line %zu column %zu; fix the YAML syntax (indentation, quoting, brackets)",
		    p->problem ? p->problem : "syntax error", p->context,
		    p->context_mark.line + 1, p->context_mark.column + 1);
	else
		err(c, m, "YAML", "%s; fix the YAML syntax (indentation, quoting, brackets)",
		    p->problem ? p->problem : "syntax error");
}

/* first pass: syntax, aliases, document count. Returns the document count. */
static int scan_events(struct ctx *c, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0, depth = 0;
	bool done = false;
	char s[SHOWLEN];

	if (!yaml_parser_initialize(&p)) {
		lab_err("cannot initialise the YAML parser for %s: out of memory", c->file);
		c->nerr++;
		return 0;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(c, &p, buf, len);
			break;
		}
		if (ev.type == YAML_ALIAS_EVENT)
			err(c, ev.start_mark, "YAML",
			    "alias '*%s' is not supported; write the value out in full instead of using anchors and aliases",
			    shown(s, (const char *)ev.data.alias.anchor));
		else if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs == 2)
			err(c, ev.start_mark, "YAML",
			    "a second YAML document; a job file holds exactly one (remove the extra '---')");
		else if (ev.type == YAML_STREAM_END_EVENT)
			done = true;
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			 ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > JOB_MAX_DEPTH) {
			/* libyaml slows down quadratically with nesting */
			err(c, ev.start_mark, "YAML",
			    "nested more than %d levels deep; a job file needs at most 5",
			    JOB_MAX_DEPTH);
			done = true;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return docs;
}

static void load_doc(struct ctx *c, const char *buf, size_t len, struct job *job)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_mark_t m = { 0 };

	if (!yaml_parser_initialize(&p)) {
		lab_err("cannot initialise the YAML parser for %s: out of memory", c->file);
		c->nerr++;
		return;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &doc)) {
		syntax_error(c, &p, buf, len);
		yaml_parser_delete(&p);
		return;
	}
	c->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		err(c, m, "", "the file holds no job; expected a mapping with name, variants, topology and workload");
	else
		parse_job(c, root, job);
	c->doc = NULL;
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
}

static char *abs_dir(const char *dir)
{
	char *r, *cwd;

	if (!dir || !*dir)
		dir = ".";
	r = realpath(dir, NULL);
	if (r)
		return r;
	if (dir[0] == '/')
		return xstrdup(dir);
	cwd = getcwd(NULL, 0);
	r = xasprintf("%s/%s", cwd ? cwd : ".", dir);
	free(cwd);
	return r;
}

int job_load_buffer(const char *name, const char *buf, size_t len,
		    const char *dir, struct job **out)
{
	return job_load_buffer_ext(name, buf, len, dir, NULL, out);
}

int job_load_buffer_ext(const char *name, const char *buf, size_t len,
			const char *dir, const struct job_ext *ext, struct job **out)
{
	struct ctx c = { .file = name, .ext = ext };
	struct job *job;
	yaml_mark_t m = { 0 };

	*out = NULL;
	job = xcalloc(1, sizeof(*job));
	job->path = xstrdup(name);
	job->dir = abs_dir(dir);
	job->iterations = ext && ext->iterations_def ? ext->iterations_def : 3;
	job->iterations_per_boot = 1;
	job->timeouts.boot_s = 120;
	job->timeouts.iteration_s = 600;
	job->accel = ACCEL_AUTO;

	if (len > JOB_FILE_MAX)
		err(&c, m, "", "the file is %zu bytes; at most %u allowed", len,
		    JOB_FILE_MAX);
	else if (scan_events(&c, buf, len) == 0 && !c.nerr)
		err(&c, m, "", "the file is empty; expected a mapping with name, variants, topology and workload");
	if (!c.nerr)
		load_doc(&c, buf, len, job);
	if (c.nerr) {
		lab_err("%s: %u error%s in the %s; fix %s and try again (format: %s)",
			name, c.nerr, c.nerr == 1 ? "" : "s",
			ext && ext->what ? ext->what : "job file",
			c.nerr == 1 ? "it" : "them",
			ext && ext->doc ? ext->doc : "docs/job-format.md");
		job_free(job);
		return -1;
	}
	*out = job;
	return 0;
}

int job_load(const char *path, struct job **out)
{
	return job_load_ext(path, NULL, out);
}

char *job_read_file(const char *path, size_t *len, char **dir)
{
	char *buf = read_file(path, len, JOB_FILE_MAX), *slash;

	if (!buf)
		return NULL;
	*dir = xstrdup(path);
	slash = strrchr(*dir, '/');
	if (!slash)
		strcpy(*dir, ".");
	else if (slash == *dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return buf;
}

int job_load_ext(const char *path, const struct job_ext *ext, struct job **out)
{
	char *buf, *dir;
	size_t len;
	int ret;

	*out = NULL;
	buf = job_read_file(path, &len, &dir);
	if (!buf)
		return -1;
	ret = job_load_buffer_ext(path, buf, len, dir, ext, out);
	free(dir);
	free(buf);
	return ret;
}

void job_free(struct job *job)
{
	if (!job)
		return;
	for (size_t i = 0; i < job->nvariants; i++) {
		struct job_variant *v = &job->variants[i];

		free(v->name);
		free(v->kernel_path);
		free(v->cmdline);
		kvlist_free(&v->sysctl);
		free(v->thp_enabled);
		free(v->thp_defrag);
		free(v->ref);
		strlist_free(&v->revert);
		strlist_free(&v->cherry_pick);
		strlist_free(&v->apply);
	}
	free(job->kernels.tree);
	free(job->kernels.config_base);
	strlist_free(&job->kernels.fragments);
	free(job->variants);
	free(job->workload.name);
	kvlist_free(&job->workload.params);
	strlist_free(&job->collectors.tracepoints);
	free(job->image.suite);
	free(job->image.recipe);
	strlist_free(&job->image.packages);
	strlist_free(&job->collect_files);
	free(job->path);
	free(job->dir);
	free(job->name);
	free(job);
}

const char *accel_mode_name(enum accel_mode m)
{
	switch (m) {
	case ACCEL_AUTO:
		return "auto";
	case ACCEL_KVM:
		return "kvm";
	case ACCEL_TCG:
		return "tcg";
	}
	return "unknown";
}

unsigned int topology_total_cpus(const struct job_topology *t)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->nnodes; i++)
		n += t->nodes[i].cpus;
	return n;
}

uint64_t topology_total_memory_kib(const struct job_topology *t)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < t->nnodes; i++)
		n += t->nodes[i].memory_kib;
	return n;
}
