// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - build a comparison: derive metrics, check that
 * the variants are comparable, test every metric against the baseline.
 * Inputs are read in compare_load.c; output formats live in compare_out.c
 * and report_html.c.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "analysis/expr.h"
#include "lib/strbuf.h"

#define CMP_CONF 0.95

/*
 * Built-in derived metrics, evaluated per iteration from counter deltas.
 * Per-operation costs are in cache-line touches (64 B): scanning one page
 * (migrate or free scanner) reads its struct page, 1; migrating a 4 KiB
 * page reads and writes 64 lines each, 128; updating one PTE for NUMA
 * hinting, 1; a NUMA hinting fault (trap, fault path, return) about 32.
 * Costs are divided by 1000. These are mmlab's estimates; unlike mmtests no
 * term is left out.
 */
static const struct {
	const char *name;
	const char *expr;
} builtin_derived[] = {
	{ "derived.compact_scan_efficiency",
	  "100 * vmstat.compact_migrate_scanned / vmstat.compact_free_scanned" },
	{ "derived.compaction_cost",
	  "(1 * vmstat.compact_migrate_scanned + 1 * vmstat.compact_free_scanned"
	  " + 128 * vmstat.pgmigrate_success) / 1000" },
	{ "derived.autonuma_cost", "(1 * vmstat.numa_pte_updates + 32 * vmstat.numa_hint_faults"
				   " + 128 * vmstat.numa_pages_migrated) / 1000" },
	{ "derived.numa_hint_local_pct",
	  "100 * vmstat.numa_hint_faults_local / vmstat.numa_hint_faults" },
	/* memory tiering: pages per second of the measured phase */
	{ "derived.promotion_rate", "vmstat.pgpromote_success / time.elapsed_s" },
	{ "derived.demotion_rate",
	  "(vmstat.pgdemote_kswapd + vmstat.pgdemote_direct) / time.elapsed_s" },
	{ "derived.hot_fast_pct", "100 * tiering.hot_fast_pages / tiering.hot_pages" },
};

/* metrics that measure the amount of work; see docs/compare.md */
static const char *const work_metrics[] = {
	"vmstat.compact_stall",
	"trace.compaction:mm_compaction_begin",
};

/* shown by default besides every non-counter metric */
static const char default_counters[] =
	"vmstat.compact_*,vmstat.pgmigrate_*,vmstat.thp_*,vmstat.numa_*,"
	"vmstat.pgfault,vmstat.pgmajfault,vmstat.allocstall*,vmstat.pgscan_*,"
	"vmstat.pgsteal_*,vmstat.oom_kill,vmstat.pgpromote_*,vmstat.pgdemote_*";

struct comparison *cmp_new(void)
{
	struct comparison *c = xcalloc(1, sizeof(*c));

	c->alpha = 0.05;
	return c;
}

static void metric_free(struct cmp_metric *m, size_t nvars)
{
	for (size_t j = 0; j < nvars; j++)
		free(m->cells[j].v);
	free(m->cells);
	free(m->name);
	free(m->formula);
}

void cmp_free(struct comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nmetrics; i++)
		metric_free(&c->metrics[i], c->nvars);
	free(c->metrics);
	for (size_t j = 0; j < c->nvars; j++) {
		free(c->vars[j].name);
		free(c->vars[j].run);
		free(c->vars[j].kernel);
		kvlist_free(&c->vars[j].config);
		cmp_setup_release(&c->vars[j].setup);
		for (size_t i = 0; i < c->vars[j].nts; i++)
			iter_timeseries_release(&c->vars[j].ts[i].ts);
		free(c->vars[j].ts);
	}
	free(c->vars);
	json_decref(c->metric_index);
	kvlist_free(&c->derived);
	strlist_free(&c->runs);
	for (size_t i = 0; i < c->nruninfo; i++)
		cmp_runinfo_release(&c->runinfo[i]);
	free(c->runinfo);
	strlist_free(&c->warnings);
	strlist_free(&c->notes);
	free(c);
}

/* by name through the index: a scan made loading cost metrics squared */
static struct cmp_metric *metric_find(const struct comparison *c, const char *name)
{
	json_t *pos = json_object_get(c->metric_index, name);

	return pos && c->metrics ? &c->metrics[json_integer_value(pos)] : NULL;
}

/* the index again, after the metrics moved */
static void metric_reindex(struct comparison *c)
{
	if (!c->metric_index)
		return;
	json_object_clear(c->metric_index);
	for (size_t i = 0; i < c->nmetrics; i++)
		json_object_set_new(c->metric_index, c->metrics[i].name,
				    json_integer((json_int_t)i));
}

/* drop the last metric (a built-in derived metric without samples) */
static void metric_drop_last(struct comparison *c)
{
	struct cmp_metric *m;

	if (!c->nmetrics || !c->metrics)
		return;
	m = &c->metrics[c->nmetrics - 1];
	json_object_del(c->metric_index, m->name);
	metric_free(m, c->nvars);
	c->nmetrics--;
}

/* iterations list metrics in the same order: try the one after the last */
static struct cmp_metric *metric_find_hinted(struct comparison *c, const char *name)
{
	struct cmp_metric *m;

	if (c->metrics && c->hint + 1 < c->nmetrics &&
	    !strcmp(c->metrics[c->hint + 1].name, name)) {
		c->hint++;
		return &c->metrics[c->hint];
	}
	m = metric_find(c, name);
	if (m)
		c->hint = (size_t)(m - c->metrics);
	return m;
}

struct cmp_metric *cmp_metric_get(struct comparison *c, const char *name)
{
	struct cmp_metric *m = metric_find_hinted(c, name);

	if (m)
		return m;
	if (c->nmetrics >= CMP_MAX_METRICS ||
	    (c->nmetrics + 1) * (c->nvars ? c->nvars : 1) > CMP_MAX_CELLS)
		return NULL;
	if (!c->metric_index)
		c->metric_index = json_object();
	if (c->nmetrics == c->alloc || !c->metrics) {
		c->alloc = c->alloc ? 2 * c->alloc : 64;
		c->metrics = xrealloc(c->metrics, c->alloc * sizeof(*c->metrics));
	}
	c->hint = c->nmetrics;
	m = &c->metrics[c->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	json_object_set_new(c->metric_index, name, json_integer((json_int_t)(c->nmetrics - 1)));
	m->dir = metric_direction(name);
	m->kind = metric_kind(name);
	m->cells = xcalloc(c->nvars ? c->nvars : 1, sizeof(*m->cells));
	return m;
}

void cmp_cell_set(struct cmp_cell *cell, size_t i, double v)
{
	if (i >= cell->alloc) {
		size_t na = cell->alloc ? cell->alloc : 4;

		while (na <= i)
			na *= 2;
		cell->v = xrealloc(cell->v, na * sizeof(*cell->v));
		cell->alloc = na;
	}
	while (cell->n <= i)
		cell->v[cell->n++] = NAN;
	cell->v[i] = v;
}

static double cell_get(const struct cmp_cell *cell, size_t i)
{
	return i < cell->n ? cell->v[i] : NAN;
}

size_t cmp_variant_add(struct comparison *c, const char *name, const char *run)
{
	struct cmp_variant *v;
	bool taken = false;

	if (c->nvars >= CMP_MAX_VARIANTS || (c->nvars + 1) * c->nmetrics > CMP_MAX_CELLS) {
		return (size_t)-1;
	}
	for (size_t j = 0; j < c->nvars; j++)
		taken |= !strcmp(c->vars[j].name, name);
	c->vars = xrealloc(c->vars, (c->nvars + 1) * sizeof(*c->vars));
	v = &c->vars[c->nvars];
	memset(v, 0, sizeof(*v));
	v->name = taken ? xasprintf("%s.r%zu", name, c->runs.n) : xstrdup(name);
	v->run = run ? xstrdup(run) : NULL;
	for (size_t i = 0; i < c->nmetrics; i++) {
		struct cmp_metric *m = &c->metrics[i];

		m->cells = xrealloc(m->cells, (c->nvars + 1) * sizeof(*m->cells));
		memset(&m->cells[c->nvars], 0, sizeof(*m->cells));
	}
	return c->nvars++;
}

void cmp_full_err(const struct comparison *c, const char *where)
{
	lab_err("%s: the comparison is full with %zu variants and %zu metrics: it holds at most "
		"%d variants, %d metrics and %d metric-variant cells; compare fewer runs or "
		"variants at a time",
		where, c->nvars, c->nmetrics, CMP_MAX_VARIANTS, CMP_MAX_METRICS, CMP_MAX_CELLS);
}

size_t cmp_variant_find(const struct comparison *c, const char *name)
{
	for (size_t j = 0; j < c->nvars; j++)
		if (!strcmp(c->vars[j].name, name))
			return j;
	return (size_t)-1;
}

/* ---- derived metrics ---- */

int cmp_add_derived(struct comparison *c, const char *name, const char *src)
{
	char err[256];
	struct expr *e = expr_parse(src, err, sizeof(err));

	if (!e) {
		lab_err("derived metric %s: %s", name, err);
		return -1;
	}
	expr_free(e);
	if (!kvlist_get(&c->derived, name) && c->derived.n >= CMP_MAX_DERIVED) {
		lab_err("derived metric %s: more than %d derived metrics; a comparison takes at most %d",
			name, CMP_MAX_DERIVED, CMP_MAX_DERIVED);
		return -1;
	}
	kvlist_set(&c->derived, name, src);
	return 0;
}

struct eval_ctx {
	const struct comparison *c;
	size_t var, iter;
};

static int lookup(void *arg, const char *name, double *val)
{
	struct eval_ctx *x = arg;
	struct cmp_metric *m = metric_find(x->c, name);

	if (!m)
		return -1;
	*val = cell_get(&m->cells[x->var], x->iter);
	return 0;
}

static bool has_samples(const struct comparison *c, const struct cmp_metric *m)
{
	for (size_t j = 0; j < c->nvars; j++)
		for (size_t i = 0; i < m->cells[j].n; i++)
			if (isfinite(m->cells[j].v[i]))
				return true;
	return false;
}

/*
 * Evaluate src for every iteration of every variant into metric name.
 * user: unknown names are an error and divisions by zero a warning;
 * builtin: the metric is skipped when an input is missing.
 */
static int derive(struct comparison *c, const char *name, const char *src, bool user)
{
	char err[256], first[256] = "";
	struct expr *e = expr_parse(src, err, sizeof(err));
	struct strlist names = { 0 };
	struct cmp_metric *m;
	size_t nerr = 0, total = 0;
	bool fresh;
	int rc = 0;

	if (!e) {
		lab_err("derived metric %s: %s", name, err);
		return -1;
	}
	expr_names(e, &names);
	for (size_t i = 0; i < names.n; i++) {
		if (metric_find(c, names.v[i]))
			continue;
		if (user) {
			lab_err("derived metric %s: unknown metric \"%s\" in \"%s\"; "
				"list the run's metrics with `mmlab compare RUN "
				"--format csv --metrics '*'`",
				name, names.v[i], src);
			rc = -1;
		}
		goto out;
	}
	fresh = !metric_find(c, name);
	m = cmp_metric_get(c, name);
	if (!m) {
		char *where = xasprintf("derived metric %s", name);

		cmp_full_err(c, where);
		free(where);
		rc = -1;
		goto out;
	}
	m->formula = xstrdup(src);
	if (user)
		m->kind = KIND_MAIN;
	for (size_t j = 0; j < c->nvars; j++) {
		for (size_t i = 0; i < c->vars[j].niter; i++) {
			struct eval_ctx x = { c, j, i };
			double v = NAN;

			total++;
			if (expr_eval(e, lookup, &x, &v, err, sizeof(err)) < 0) {
				if (!nerr++)
					snprintf(first, sizeof(first), "%s", err);
				v = NAN;
			}
			cmp_cell_set(&m->cells[j], i, v);
		}
	}
	if (!user && fresh && !has_samples(c, m))
		metric_drop_last(c); /* m, the metric added last */
	if (user && nerr)
		strlist_pushf(&c->warnings,
			      "derived metric %s: %s in %zu of %zu "
			      "samples; those samples are left out",
			      name, first, nerr, total);
out:
	strlist_free(&names);
	expr_free(e);
	return rc;
}

static int derive_all(struct comparison *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin_derived); i++)
		derive(c, builtin_derived[i].name, builtin_derived[i].expr, false);
	for (size_t i = 0; i < c->derived.n; i++)
		if (derive(c, c->derived.v[i].key, c->derived.v[i].value, true) < 0)
			return -1;
	return 0;
}

/* ---- selection ---- */

char *cmp_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static bool match_globs(const char *name, const char *globs)
{
	char *copy = xstrdup(globs), *save = NULL;
	bool hit = false;

	for (char *g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save))
		hit = !fnmatch(cmp_trim(g), name, 0);
	free(copy);
	return hit;
}

static bool selected(const struct cmp_metric *m, const char *globs)
{
	if (globs)
		return match_globs(m->name, globs);
	if (!strncmp(m->name, "vmstat.", 7))
		return match_globs(m->name, default_counters);
	return m->kind != KIND_OPS || m->formula || !strncmp(m->name, "trace.", 6) ||
	       !strncmp(m->name, "rate.", 5);
}

/* a counter that stayed 0 in every sample of every variant says nothing */
static bool all_zero(const struct comparison *c, const struct cmp_metric *m)
{
	for (size_t j = 0; j < c->nvars; j++)
		for (size_t i = 0; i < m->cells[j].n; i++)
			if (isfinite(m->cells[j].v[i]) && m->cells[j].v[i] != 0)
				return false;
	return true;
}

static void select_metrics(struct comparison *c, const char *globs)
{
	size_t k = 0, zero = 0;

	for (size_t i = 0; i < c->nmetrics; i++) {
		struct cmp_metric *m = &c->metrics[i];
		bool keep = selected(m, globs);

		/* the default set leaves out Ops rows that are 0 everywhere */
		if (keep && !globs && m->kind == KIND_OPS && all_zero(c, m)) {
			keep = false;
			zero++;
		}
		if (keep)
			c->metrics[k++] = *m;
		else
			metric_free(m, c->nvars);
	}
	c->nmetrics = k;
	metric_reindex(c);
	if (zero)
		strlist_pushf(&c->notes,
			      "%zu Ops row%s 0 in every sample of every "
			      "variant %s not shown (--metrics '*' shows every "
			      "metric)",
			      zero, zero == 1 ? "" : "s", zero == 1 ? "is" : "are");
}

static int metric_rank(const struct cmp_metric *m)
{
	if (m->kind == KIND_MAIN)
		return m->formula ? 1 : 0;
	if (m->kind == KIND_DURATION)
		return 2;
	if (!strncmp(m->name, "derived.", 8))
		return 4;
	return !strncmp(m->name, "rate.", 5) ? 5 : 3;
}

static int metric_cmp(const void *a, const void *b)
{
	const struct cmp_metric *x = a, *y = b;
	int rx = metric_rank(x), ry = metric_rank(y);

	if (rx != ry)
		return rx - ry;
	if (rx == 2) /* Duration: User, System, Elapsed as mmtests */
		return strcmp(y->name, x->name);
	return strcmp(x->name, y->name);
}

/* ---- statistics ---- */

double cmp_pct(double base, double new, enum metric_dir dir)
{
	if (!isfinite(base) || !isfinite(new))
		return NAN;
	if (base == 0)
		return new == 0 ? 0 : NAN;
	if (dir == DIR_LOWER)
		return 100.0 * (base - new) / fabs(base);
	return 100.0 * (new - base) / fabs(base);
}

static void test_cell(const struct cmp_metric *m, const struct cmp_cell *base,
		      struct cmp_cell *cell)
{
	double lo, hi, sign = base->s.mean < 0 ? -1 : 1;

	stats_welch(&base->s, &cell->s, CMP_CONF, &cell->t);
	cell->pct = cmp_pct(base->s.mean, cell->s.mean, m->dir);
	/* rel CI is of new/base - 1; scale to percent and orient like pct */
	lo = 100.0 * sign * cell->t.ci_low;
	hi = 100.0 * sign * cell->t.ci_high;
	if (m->dir == DIR_LOWER) {
		cell->ci_low = -hi;
		cell->ci_high = -lo;
	} else {
		cell->ci_low = lo;
		cell->ci_high = hi;
	}
}

static void compute_stats(struct comparison *c)
{
	double *p = xmalloc((c->nmetrics ? c->nmetrics : 1) * sizeof(*p));
	double *q = xmalloc((c->nmetrics ? c->nmetrics : 1) * sizeof(*q));

	for (size_t i = 0; i < c->nmetrics; i++) {
		struct cmp_metric *m = &c->metrics[i];
		struct cmp_cell *base = &m->cells[c->baseline];

		m->hmean = m->kind == KIND_MAIN && m->dir == DIR_HIGHER;
		for (size_t j = 0; j < c->nvars; j++) {
			stats_summarize(m->cells[j].v, m->cells[j].n, m->dir == DIR_HIGHER,
					&m->cells[j].s);
			if (m->cells[j].s.n && isnan(m->cells[j].s.hmean))
				m->hmean = false; /* a value <= 0 */
		}
		for (size_t j = 0; j < c->nvars; j++) {
			struct cmp_cell *cell = &m->cells[j];

			if (j == c->baseline) {
				memset(&cell->t, 0, sizeof(cell->t));
				cell->t.p = cell->t.rel = NAN;
				cell->pct = base->s.n ? 0 : NAN;
				cell->ci_low = cell->ci_high = NAN;
				continue;
			}
			test_cell(m, base, cell);
		}
	}
	/* one Benjamini-Hochberg family per variant against the baseline */
	for (size_t j = 0; j < c->nvars; j++) {
		for (size_t i = 0; i < c->nmetrics; i++)
			p[i] = c->metrics[i].cells[j].t.valid ? c->metrics[i].cells[j].t.p : NAN;
		stats_bh(p, c->nmetrics, c->alpha, q);
		for (size_t i = 0; i < c->nmetrics; i++) {
			struct cmp_cell *cell = &c->metrics[i].cells[j];

			cell->q = q[i];
			cell->significant = cell->t.valid && q[i] < c->alpha;
		}
	}
	free(p);
	free(q);
}

/* the work done differs: warn and add per-unit-of-work rates */
static bool check_work(struct comparison *c)
{
	bool added = false;

	for (size_t w = 0; w < ARRAY_SIZE(work_metrics); w++) {
		struct cmp_metric *wm = metric_find(c, work_metrics[w]);
		size_t nm = c->nmetrics;
		bool differs = false;

		for (size_t j = 0; wm && j < c->nvars; j++) {
			struct stats_test *t = &wm->cells[j].t;

			if (t->valid && t->p < c->alpha) {
				differs = true;
				strlist_pushf(&c->warnings,
					      "the work done differs: %s "
					      "of %s vs %s has p = %.3g; rows rate.* "
					      "show results per unit of it",
					      work_metrics[w], c->vars[j].name,
					      c->vars[c->baseline].name, t->p);
			}
		}
		for (size_t i = 0; differs && i < nm; i++) {
			struct cmp_metric *m = &c->metrics[i];
			char *name, *src;

			if (m->kind == KIND_OPS || !strcmp(m->name, work_metrics[w]))
				continue;
			name = xasprintf("rate.%s/%s", m->name, work_metrics[w]);
			src = xasprintf("%s / %s", m->name, work_metrics[w]);
			derive(c, name, src, false);
			m = metric_find(c, name);
			if (m) {
				m->kind = KIND_OPS;
				m->dir = c->metrics[i].dir;
				added = true;
			}
			free(name);
			free(src);
		}
	}
	return added;
}

static void check_config(struct comparison *c)
{
	const struct cmp_variant *b = &c->vars[c->baseline];

	for (size_t j = 0; j < c->nvars; j++) {
		const struct cmp_variant *v = &c->vars[j];
		struct strlist diff = { 0 };
		char *msg;

		for (size_t k = 0; k < v->config.n; k++) {
			const char *bv = kvlist_get(&b->config, v->config.v[k].key);

			if (!bv || strcmp(bv, v->config.v[k].value))
				strlist_pushf(&diff, "%s (%s vs %s)", v->config.v[k].key,
					      v->config.v[k].value, bv ? bv : "unset");
		}
		for (size_t k = 0; k < b->config.n; k++)
			if (!kvlist_get(&v->config, b->config.v[k].key))
				strlist_pushf(&diff, "%s (unset vs %s)", b->config.v[k].key,
					      b->config.v[k].value);
		if (!diff.n)
			continue;
		msg = strlist_join(&diff, ", ");
		strlist_pushf(&c->warnings,
			      "variant %s differs from baseline %s "
			      "in more than the kernel: %s",
			      v->name, b->name, msg);
		free(msg);
		strlist_free(&diff);
	}
}

/*
 * The note naming the metrics that got no test for one reason: few (a side
 * with fewer than 2 samples, stats_welch's "n < 2..."), or !few: any other
 * why (the variance overflowed), told as stats_test.why says it (the first
 * such metric's). Up to 8 names, then a count.
 */
static void note_untested_by(struct comparison *c, bool few)
{
	struct strlist names = { 0 };
	const char *why = NULL;
	char *list;
	size_t count = 0;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		const char *mwhy = NULL;

		for (size_t j = 0; j < c->nvars && !mwhy; j++) {
			const struct stats_test *t = &m->cells[j].t;

			if (j == c->baseline || t->valid)
				continue;
			if (few == (!t->why || !strncmp(t->why, "n < 2", 5)))
				mwhy = t->why ? t->why : "n < 2";
		}
		if (!mwhy || c->nvars < 2)
			continue;
		why = why ? why : mwhy;
		if (count++ < 8)
			strlist_push(&names, m->name);
	}
	list = strlist_join(&names, ", ");
	strlist_free(&names);
	if (few && count > 8)
		strlist_pushf(&c->notes,
			      "no significance test (n < 2 in a variant) for %s and %zu more", list,
			      count - 8);
	else if (few && count)
		strlist_pushf(&c->notes, "no significance test (n < 2 in a variant) for %s", list);
	else if (count > 8)
		strlist_pushf(&c->notes, "no significance test for %s and %zu more: %s", list,
			      count - 8, why);
	else if (count)
		strlist_pushf(&c->notes, "no significance test for %s: %s", list, why);
	free(list);
}

/* name the metrics that got no test, by why: a side has n < 2, or another reason */
static void note_untested(struct comparison *c)
{
	note_untested_by(c, true);
	note_untested_by(c, false);
}

/* one finite value in every sample of every variant (each has some) */
static bool is_constant(const struct comparison *c, const struct cmp_metric *m)
{
	double first = m->cells[0].s.min;

	for (size_t j = 0; j < c->nvars; j++) {
		const struct stats_summary *s = &m->cells[j].s;

		if (!s->n || s->min != first || s->max != first)
			return false;
	}
	return true;
}

/* the table group and constancy of every metric, after compute_stats() */
static void classify(struct comparison *c)
{
	for (size_t i = 0; i < c->nmetrics; i++) {
		struct cmp_metric *m = &c->metrics[i];

		m->group = m->formula && m->kind == KIND_MAIN ? GROUP_WORKLOAD :
								metric_group(m->name, m->kind);
		m->constant = is_constant(c, m);
	}
}

static int pick_baseline(struct comparison *c, const char *baseline)
{
	char *names;

	if (!c->nvars) {
		lab_err("nothing to compare: no variants were loaded");
		return -1;
	}
	c->baseline = 0;
	if (!baseline)
		return 0;
	c->baseline = cmp_variant_find(c, baseline);
	if (c->baseline != (size_t)-1)
		return 0;
	names = xstrdup(c->vars[0].name);
	for (size_t j = 1; j < c->nvars; j++) {
		char *n2 = xasprintf("%s, %s", names, c->vars[j].name);

		free(names);
		names = n2;
	}
	lab_err("baseline \"%s\" is not one of the variants; pick one of: %s", baseline, names);
	free(names);
	c->baseline = 0;
	return -1;
}

int cmp_compute(struct comparison *c, const char *baseline, double alpha, const char *globs)
{
	if (pick_baseline(c, baseline) < 0)
		return -1;
	c->alpha = alpha;
	if (derive_all(c) < 0)
		return -1;
	select_metrics(c, globs);
	check_config(c);
	compute_stats(c);
	if (check_work(c))
		compute_stats(c);
	qsort(c->metrics, c->nmetrics, sizeof(*c->metrics), metric_cmp);
	metric_reindex(c);
	classify(c);
	note_untested(c);
	for (size_t j = 0; j < c->nvars; j++)
		if (c->vars[j].niter < 2)
			strlist_pushf(&c->notes,
				      "variant %s has %zu sample%s: no "
				      "significance test (needs n >= 2)",
				      c->vars[j].name, c->vars[j].niter,
				      c->vars[j].niter == 1 ? "" : "s");
	return 0;
}

int cmp_parse_format(const char *s, enum cmp_format *fmt)
{
	static const char *const names[] = { "text", "markdown", "csv", "json", "html" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum cmp_format)i;
			return 0;
		}
	}
	return -1;
}

const char *cmp_mean_label(const struct cmp_metric *m)
{
	if (m->kind == KIND_OPS)
		return "Ops";
	if (m->kind == KIND_DURATION)
		return "Duration";
	return m->hmean ? "Hmean" : "Amean";
}

double cmp_mean_value(const struct cmp_metric *m, const struct cmp_cell *cell)
{
	if (m->hmean)
		return cell->s.hmean;
	return cell->s.mean;
}
