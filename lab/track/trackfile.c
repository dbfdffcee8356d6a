// SPDX-License-Identifier: GPL-2.0
/*
 * trackfile.c - a track file (docs/track.md, "The track file") checked into
 * a struct track_def, with every problem reported as job files report
 * theirs: FILE:LINE:COLUMN: error: FIELD: what; what is allowed.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "lib/yamlfile.h"
#include "track/internal.h"

#define TRACK_FILE_MAX (1u << 20)

struct tf {
	struct yfile *y;
	struct track_def *d;
	const char *dir; /* the track file's directory */
};

/* a path as a JSON string, resolved against dir */
static json_t *json_path(const char *dir, const char *p)
{
	char *a = job_path(dir, p);
	json_t *j = json_string(a);

	free(a);
	return j;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > TRACK_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

static const char *get_name(struct tf *c, yaml_node_t *n, const char *field)
{
	char s[YF_SHOWLEN];
	const char *v = yf_scalar(c->y, n, field, "a name such as mm-unstable");

	if (v && !name_ok(v)) {
		yf_err(c->y, n->start_mark, field,
		       "'%s' is not a name; use 1 to %d of A-Z a-z 0-9 . _ - (not first . or -)",
		       yf_shown(s, v), TRACK_NAME_MAX);
		return NULL;
	}
	return v;
}

/* "2%", "0.5%" or "0.02" into a fraction */
static bool get_rel(struct tf *c, yaml_node_t *n, const char *field, double *out)
{
	char s[YF_SHOWLEN], *end;
	const char *v = yf_scalar(c->y, n, field, "a change such as 2%");
	double x;

	if (!v)
		return false;
	x = strtod(v, &end);
	if (end != v && *end == '%' && !end[1])
		x /= 100.0;
	else if (end == v || *end)
		x = NAN;
	if (!isfinite(x) || x < 0 || x > 10) {
		yf_err(c->y, n->start_mark, field,
		       "'%s' is not a change; expected a percentage from 0%% to 1000%% such as 2%%",
		       yf_shown(s, v));
		return false;
	}
	*out = x;
	return true;
}

static bool get_prob(struct tf *c, yaml_node_t *n, const char *field, double *out)
{
	char s[YF_SHOWLEN], *end;
	const char *v = yf_scalar(c->y, n, field, "a level such as 0.05");
	double x = v ? strtod(v, &end) : NAN;

	if (!v)
		return false;
	if (end == v || *end || !(x > 0 && x < 0.5)) {
		yf_err(c->y, n->start_mark, field,
		       "'%s' is not a level; expected a number above 0 and below 0.5 such as 0.05",
		       yf_shown(s, v));
		return false;
	}
	*out = x;
	return true;
}

/* a YAML node as JSON: scalars as strings (a kernel: mapping, a sysctl map) */
static json_t *node_json(struct yfile *y, yaml_node_t *n, int depth)
{
	json_t *j;

	if (!n || depth > 8)
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return json_stringn((const char *)n->data.scalar.value, n->data.scalar.length);
	if (n->type == YAML_SEQUENCE_NODE) {
		j = json_array();
		for (size_t i = 0; i < yf_seq_len(n); i++)
			json_array_append_new(j, node_json(y, yf_seq_item(y, n, i), depth + 1));
		return j;
	}
	if (n->type != YAML_MAPPING_NODE)
		return NULL;
	j = json_object();
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
		json_t *v = node_json(y, yaml_document_get_node(&y->doc, p->value), depth + 1);

		if (k && k->type == YAML_SCALAR_NODE && v)
			json_object_set_new(j, (const char *)k->data.scalar.value, v);
		else
			json_decref(v);
	}
	return j;
}

/* a list point: a kernel as a scalar, or a mapping */
enum { PT_NAME, PT_KERNEL, PT_REF, PT_CMDLINE, PT_SYSCTL, PT_THP, PT_N };

static json_t *parse_point(struct tf *c, yaml_node_t *n, const char *field, size_t i,
			   struct track_list_point *lp)
{
	struct yfield f[PT_N] = { { .key = "name" },	{ .key = "kernel" }, { .key = "ref" },
				  { .key = "cmdline" }, { .key = "sysctl" }, { .key = "thp" } };
	char p[YF_PATHLEN];
	json_t *pt = json_object();
	const char *name;

	if (n && n->type == YAML_SCALAR_NODE) {
		const char *k = yf_scalar(c->y, n, field, "a kernel: distro or a path");

		if (k)
			json_object_set_new(pt, "kernel",
					    strcmp(k, "distro") ? json_path(c->dir, k) :
								  json_string("distro"));
		lp->name = xasprintf("p%02zu", i + 1);
		return pt;
	}
	if (!yf_map(c->y, n, field, "a point such as { kernel: distro, sysctl: { ... } }", f,
		    PT_N)) {
		json_decref(pt);
		return NULL;
	}
	name = f[PT_NAME].val ? get_name(c, f[PT_NAME].val, yf_pkey(p, field, "name")) : NULL;
	lp->name = name ? xstrdup(name) : xasprintf("p%02zu", i + 1);
	if (f[PT_KERNEL].val && f[PT_REF].val)
		yf_err(c->y, f[PT_REF].key_node->start_mark, yf_pkey(p, field, "ref"),
		       "give kernel: or ref:, not both");
	if (f[PT_KERNEL].val) {
		yaml_node_t *k = f[PT_KERNEL].val;
		const char *s =
			k->type == YAML_SCALAR_NODE ?
				yf_scalar(c->y, k, yf_pkey(p, field, "kernel"), "a kernel") :
				NULL;

		if (s && strcmp(s, "distro"))
			json_object_set_new(pt, "kernel", json_path(c->dir, s));
		else
			json_object_set_new(pt, "kernel", node_json(c->y, k, 0));
	}
	if (f[PT_REF].val) {
		const char *r =
			yf_scalar(c->y, f[PT_REF].val, yf_pkey(p, field, "ref"), "a git ref");

		if (r) {
			json_object_set_new(pt, "ref", json_string(r));
			lp->ref = xstrdup(r);
		}
	}
	if (f[PT_CMDLINE].val) {
		const char *s = yf_scalar(c->y, f[PT_CMDLINE].val, yf_pkey(p, field, "cmdline"),
					  "kernel arguments");

		if (s)
			json_object_set_new(pt, "cmdline", json_string(s));
	}
	for (int k = PT_SYSCTL; k <= PT_THP; k++) {
		if (!f[k].val)
			continue;
		if (f[k].val->type != YAML_MAPPING_NODE)
			yf_err(c->y, f[k].val->start_mark, yf_pkey(p, field, f[k].key),
			       "%s given; expected a mapping such as { %s }", yf_kind(f[k].val),
			       k == PT_SYSCTL ? "vm.compaction_proactiveness: 20" :
						"defrag: always");
		else
			json_object_set_new(pt, f[k].key, node_json(c->y, f[k].val, 0));
	}
	return pt;
}

static void parse_list(struct tf *c, yaml_node_t *n)
{
	char p[YF_PATHLEN];

	if (!yf_seq(c->y, n, "kernels.list", "[distro, { kernel: distro, cmdline: ... }]",
		    TRACK_MAX_POINTS))
		return;
	c->d->list = xcalloc(yf_seq_len(n) + 1, sizeof(*c->d->list));
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		yaml_node_t *it = yf_seq_item(c->y, n, i);
		struct track_list_point *lp = &c->d->list[c->d->nlist];
		json_t *set = parse_point(c, it, yf_pidx(p, "kernels.list", i), i, lp);

		if (!set) {
			free(lp->name);
			free(lp->ref);
			memset(lp, 0, sizeof(*lp));
			continue;
		}
		lp->set = set;
		for (size_t k = 0; k < c->d->nlist; k++) {
			if (!strcmp(c->d->list[k].name, lp->name)) {
				yf_err(c->y, it->start_mark, p,
				       "the name '%s' is given twice; name each point once",
				       lp->name);
				break;
			}
		}
		c->d->nlist++;
	}
	if (yf_seq_len(n) < 4)
		yf_err(c->y, n->start_mark, "kernels.list",
		       "%zu points; a series needs at least 4 (2 on each side of a change)",
		       yf_seq_len(n));
}

enum { CF_BASE, CF_FRAGMENTS, CF_N };

static void parse_config(struct tf *c, yaml_node_t *n)
{
	struct yfield f[CF_N] = { { .key = "base" }, { .key = "fragments" } };
	json_t *cfg = json_object(), *frags;
	char p[YF_PATHLEN];
	const char *base;

	c->d->config = cfg;
	if (!yf_map(c->y, n, "kernels.config", "a mapping such as { base: defconfig }", f, CF_N))
		return;
	frags = json_array();
	if (f[CF_BASE].val && (base = yf_scalar(c->y, f[CF_BASE].val, "kernels.config.base",
						"tinyconfig, defconfig, distro or a path"))) {
		bool named = !strcmp(base, "tinyconfig") || !strcmp(base, "defconfig") ||
			     !strcmp(base, "distro");

		json_t *b = named ? json_string(base) : json_path(c->dir, base);

		c->d->config_base = b ? xstrdup(json_string_value(b)) : NULL;
		json_object_set_new(cfg, "base", b);
	}
	if (f[CF_FRAGMENTS].val && yf_seq(c->y, f[CF_FRAGMENTS].val, "kernels.config.fragments",
					  "[kernels/lab.config]", 64)) {
		for (size_t i = 0; i < yf_seq_len(f[CF_FRAGMENTS].val); i++) {
			yaml_node_t *it = yf_seq_item(c->y, f[CF_FRAGMENTS].val, i);
			const char *v = yf_scalar(
				c->y, it, yf_pidx(p, "kernels.config.fragments", i), "a path");

			json_t *fp = v ? json_path(c->dir, v) : NULL;

			if (!fp)
				continue;
			strlist_push(&c->d->config_fragments, json_string_value(fp));
			json_array_append_new(frags, fp);
		}
	}
	json_object_set_new(cfg, "fragments", frags);
}

enum { KS_TREE, KS_BRANCH, KS_SINCE, KS_EVERY, KS_TAGS, KS_CONFIG, KS_LIST, KS_N };

static void parse_kernels(struct tf *c, yaml_node_t *root, yaml_node_t *n)
{
	struct yfield f[KS_N] = { { .key = "tree" },  { .key = "branch" }, { .key = "since" },
				  { .key = "every" }, { .key = "tags" },   { .key = "config" },
				  { .key = "list" } };
	struct track_def *d = c->d;
	unsigned long long every = 1;
	const char *v;

	if (!n) {
		yf_missing(c->y, root, "", "kernels", "{ tree: ~/src/linux, branch: mm-unstable }");
		return;
	}
	if (!yf_map(c->y, n, "kernels", "a mapping such as { list: [...] }", f, KS_N))
		return;
	if (f[KS_TREE].val && (v = yf_scalar(c->y, f[KS_TREE].val, "kernels.tree", "a git tree")))
		d->tree = job_path(c->dir, v);
	if (f[KS_BRANCH].val &&
	    (v = yf_scalar(c->y, f[KS_BRANCH].val, "kernels.branch", "a branch")))
		d->branch = xstrdup(v);
	if (f[KS_SINCE].val && (v = yf_scalar(c->y, f[KS_SINCE].val, "kernels.since", "a ref")))
		d->since = xstrdup(v);
	if (f[KS_TAGS].val && (v = yf_scalar(c->y, f[KS_TAGS].val, "kernels.tags", "a glob")))
		d->tags = xstrdup(v);
	if (f[KS_EVERY].val && yf_uint(c->y, f[KS_EVERY].val, "kernels.every", 1, 1000, &every))
		d->every = (unsigned int)every;
	if (f[KS_CONFIG].val)
		parse_config(c, f[KS_CONFIG].val);
	if (f[KS_LIST].val)
		parse_list(c, f[KS_LIST].val);
	if (f[KS_LIST].val && (f[KS_BRANCH].val || f[KS_TAGS].val))
		yf_err(c->y, f[KS_LIST].key_node->start_mark, "kernels.list",
		       "give a list, or a branch or tags of a tree, not both");
	else if (!f[KS_LIST].val && !f[KS_BRANCH].val && !f[KS_TAGS].val)
		yf_err(c->y, n->start_mark, "kernels",
		       "no kernels to track; give list: [...], or tree: with branch: or tags:");
	if ((f[KS_BRANCH].val || f[KS_TAGS].val) && !d->tree)
		yf_missing(c->y, n, "kernels", "tree", "~/src/linux");
	if (f[KS_BRANCH].val && f[KS_TAGS].val)
		yf_err(c->y, f[KS_TAGS].key_node->start_mark, "kernels.tags",
		       "give branch: or tags:, not both");
	if (f[KS_BRANCH].val && !f[KS_SINCE].val)
		yf_missing(c->y, n, "kernels", "since", "v6.12");
}

static void parse_jobs(struct tf *c, yaml_node_t *root, yaml_node_t *n)
{
	struct track_def *d = c->d;
	char p[YF_PATHLEN], p2[YF_PATHLEN];

	if (!n) {
		yf_missing(c->y, root, "", "jobs", "[jobs/thp-compaction.yaml]");
		return;
	}
	if (!yf_seq(c->y, n, "jobs", "[jobs/thp-compaction.yaml]", TRACK_MAX_JOBS))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		yaml_node_t *it = yf_seq_item(c->y, n, i);
		struct yfield f[2] = { { .key = "job" }, { .key = "variant" } };
		yaml_node_t *path = it;
		const char *v, *variant = NULL;

		yf_pidx(p, "jobs", i);
		if (it && it->type == YAML_MAPPING_NODE) {
			if (!yf_map(c->y, it, p, "{ job: FILE, variant: NAME }", f, 2))
				continue;
			if (!f[0].val) {
				yf_missing(c->y, it, p, "job", "jobs/thp-compaction.yaml");
				continue;
			}
			path = f[0].val;
			if (f[1].val &&
			    !(variant = yf_scalar(c->y, f[1].val, yf_pkey(p2, p, "variant"),
						  "a variant's name")))
				continue;
		}
		v = path ? yf_scalar(c->y, path, p, "a job file") : NULL;
		if (!v)
			continue;
		d->jobs[d->njobs].path = job_path(c->dir, v);
		d->jobs[d->njobs].variant = variant ? xstrdup(variant) : NULL;
		d->jobs[d->njobs].line = path->start_mark.line + 1;
		d->jobs[d->njobs].col = path->start_mark.column + 1;
		d->njobs++;
	}
	if (!yf_seq_len(n))
		yf_err(c->y, n->start_mark, "jobs", "no job; name at least one job file");
}

static void parse_watch(struct tf *c, yaml_node_t *n)
{
	struct track_def *d = c->d;
	char p[YF_PATHLEN], p2[YF_PATHLEN];

	if (!yf_seq(c->y, n, "watch", "['vmstat.compact_*', 'time.*']", TRACK_MAX_WATCH))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		yaml_node_t *it = yf_seq_item(c->y, n, i), *g = it;
		struct yfield f[3] = { { .key = "metric" },
				       { .key = "min_change" },
				       { .key = "better" } };
		struct track_watch *w = &d->watch[d->nwatch];
		const char *v;

		yf_pidx(p, "watch", i);
		w->min_rel = NAN;
		w->better = 0;
		if (it && it->type == YAML_MAPPING_NODE) {
			if (!yf_map(c->y, it, p,
				    "{ metric: 'time.*', min_change: 5%, better: lower }", f, 3))
				continue;
			if (!f[0].val) {
				yf_missing(c->y, it, p, "metric", "'vmstat.compact_*'");
				continue;
			}
			g = f[0].val;
			if (f[1].val)
				get_rel(c, f[1].val, yf_pkey(p2, p, "min_change"), &w->min_rel);
			if (f[2].val) {
				static const char *const dirs[] = { "lower", "higher", NULL };
				int b = yf_enum(c->y, f[2].val, yf_pkey(p2, p, "better"), dirs);

				w->better = b < 0 ? 0 : b ? 1 : -1;
			}
		}
		v = yf_scalar(c->y, g, p, "a metric glob such as 'vmstat.compact_*'");
		if (v) {
			w->glob = xstrdup(v);
			d->nwatch++;
		}
	}
}

enum { DT_Q, DT_MIN, DT_SEED, DT_SEG, DT_N };

static void parse_detect(struct tf *c, yaml_node_t *n)
{
	struct yfield f[DT_N] = {
		{ .key = "q" }, { .key = "min_change" }, { .key = "seed" }, { .key = "min_segment" }
	};
	unsigned long long v;

	if (!yf_map(c->y, n, "detect", "a mapping such as { q: 0.05, min_change: 2% }", f, DT_N))
		return;
	if (f[DT_Q].val)
		get_prob(c, f[DT_Q].val, "detect.q", &c->d->q);
	if (f[DT_MIN].val)
		get_rel(c, f[DT_MIN].val, "detect.min_change", &c->d->min_rel);
	if (f[DT_SEED].val && yf_uint(c->y, f[DT_SEED].val, "detect.seed", 0, ~0ULL, &v))
		c->d->seed = v;
	if (f[DT_SEG].val && yf_uint(c->y, f[DT_SEG].val, "detect.min_segment", 2, 100, &v))
		c->d->min_segment = (unsigned int)v;
}

static void parse_confirm(struct tf *c, yaml_node_t *n)
{
	struct yfield f[2] = { { .key = "max_iterations" }, { .key = "alpha" } };
	unsigned long long v;

	if (!yf_map(c->y, n, "confirm", "a mapping such as { max_iterations: 12 }", f, 2))
		return;
	if (f[0].val && yf_uint(c->y, f[0].val, "confirm.max_iterations", 2, 1000, &v))
		c->d->confirm_max = (unsigned int)v;
	if (f[1].val)
		get_prob(c, f[1].val, "confirm.alpha", &c->d->alpha);
}

enum { TK_NAME, TK_KERNELS, TK_JOBS, TK_ITER, TK_WATCH, TK_DETECT, TK_CONFIRM, TK_BISECT, TK_N };

static void parse_root(struct tf *c, yaml_node_t *root)
{
	struct yfield f[TK_N] = { { .key = "name" },	{ .key = "kernels" },
				  { .key = "jobs" },	{ .key = "iterations" },
				  { .key = "watch" },	{ .key = "detect" },
				  { .key = "confirm" }, { .key = "bisect" } };
	struct track_def *d = c->d;
	unsigned long long v;
	const char *s;

	if (!yf_map(c->y, root, "", "a mapping (the track file)", f, TK_N))
		return;
	if (!f[TK_NAME].val)
		yf_missing(c->y, root, "", "name", "mm-unstable-compaction");
	else if ((s = get_name(c, f[TK_NAME].val, "name")))
		d->name = xstrdup(s);
	parse_kernels(c, root, f[TK_KERNELS].val);
	parse_jobs(c, root, f[TK_JOBS].val);
	if (f[TK_ITER].val && yf_uint(c->y, f[TK_ITER].val, "iterations", 1, 1000, &v))
		d->iterations = (unsigned int)v;
	if (f[TK_WATCH].val)
		parse_watch(c, f[TK_WATCH].val);
	if (f[TK_DETECT].val)
		parse_detect(c, f[TK_DETECT].val);
	if (f[TK_CONFIRM].val)
		parse_confirm(c, f[TK_CONFIRM].val);
	if (f[TK_BISECT].val) {
		static const char *const yn[] = { "false", "true", NULL };
		int b = yf_enum(c->y, f[TK_BISECT].val, "bisect", yn);

		if (b >= 0)
			d->bisect = b;
	}
}

static void defaults(struct track_def *d)
{
	memset(d, 0, sizeof(*d));
	d->every = 1;
	d->iterations = 3;
	d->q = 0.05;
	d->min_rel = 0.02;
	d->min_segment = 2;
	d->seed = 1;
	d->alpha = 0.05;
	d->bisect = true;
}

/* each job loads, and names the variant the track asks for */
static int check_jobs(struct track_def *d)
{
	int bad = 0;

	for (size_t i = 0; i < d->njobs; i++) {
		struct track_job *tj = &d->jobs[i];
		struct job *job = NULL;

		if (job_load(tj->path, &job)) {
			lab_err("%s:%u:%u: jobs[%zu]: the job %s does not load (above)", d->file,
				tj->line, tj->col, i, tj->path);
			bad = -1;
			continue;
		}
		tj->from = 0;
		if (tj->variant) {
			for (tj->from = 0; tj->from < job->nvariants; tj->from++)
				if (!strcmp(job->variants[tj->from].name, tj->variant))
					break;
			if (tj->from == job->nvariants) {
				lab_err("%s:%u:%u: jobs[%zu].variant: %s has no variant '%s'",
					d->file, tj->line, tj->col, i, tj->path, tj->variant);
				bad = -1;
			}
		}
		tj->name = xstrdup(job->name);
		for (size_t k = 0; k < i && !bad; k++)
			if (!strcmp(d->jobs[k].name, tj->name)) {
				lab_err("%s:%u:%u: jobs[%zu]: two jobs are named '%s'; a track "
					"tells its series apart by the job's name",
					d->file, tj->line, tj->col, i, tj->name);
				bad = -1;
			}
		job_free(job);
	}
	return bad;
}

int trackfile_parse(const char *name, const char *buf, size_t len, const char *dir,
		    struct track_def *d)
{
	struct yfile y;
	struct tf c = { .y = &y, .d = d, .dir = dir };
	yaml_node_t *root;

	defaults(d);
	d->file = xstrdup(name);
	root = yf_load(&y, name, buf, len);
	if (root)
		parse_root(&c, root);
	yf_close(&y);
	if (!y.nerr)
		return 0;
	lab_err("%s: %u error%s in the track file; fix %s and try again (format: docs/track.md)",
		name, y.nerr, y.nerr == 1 ? "" : "s", y.nerr == 1 ? "it" : "them");
	trackfile_release(d);
	return -1;
}

int trackfile_load(const char *path, const char *as_file, struct track_def *d)
{
	char *file = path_abs(as_file ? as_file : path), *dir = xstrdup(file);
	char *slash = strrchr(dir, '/'), *buf;
	size_t len;
	int ret = -1;

	if (slash)
		*slash = '\0';
	memset(d, 0, sizeof(*d));
	buf = read_file(path, &len, TRACK_FILE_MAX);
	if (buf && !trackfile_parse(path, buf, len, dir, d)) {
		free(d->file);
		d->file = file;
		file = NULL;
		ret = check_jobs(d);
		if (ret)
			trackfile_release(d);
	}
	free(buf);
	free(dir);
	free(file);
	return ret;
}

void trackfile_release(struct track_def *d)
{
	free(d->name);
	free(d->file);
	free(d->tree);
	free(d->branch);
	free(d->since);
	free(d->tags);
	json_decref(d->config);
	free(d->config_base);
	strlist_free(&d->config_fragments);
	for (size_t i = 0; i < d->nlist; i++) {
		free(d->list[i].name);
		free(d->list[i].ref);
		json_decref(d->list[i].set);
	}
	free(d->list);
	for (size_t i = 0; i < d->njobs; i++) {
		free(d->jobs[i].path);
		free(d->jobs[i].variant);
		free(d->jobs[i].name);
	}
	for (size_t i = 0; i < d->nwatch; i++)
		free(d->watch[i].glob);
	memset(d, 0, sizeof(*d));
}
