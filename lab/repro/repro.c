// SPDX-License-Identifier: GPL-2.0
/*
 * repro.c - evaluate a recipe's expectations on a stored run and say
 * REPRODUCED, NOT REPRODUCED or INCONCLUSIVE per variant (docs/repro.md).
 *
 * Each run (iteration) meets an expectation, does not, or cannot tell:
 *
 *   status     metric          dmesg              crash     hang
 *   ok         value op value  matched / not      not met   not met
 *   crashed    unknown         matched / not      met       not met
 *   timeout    unknown         matched / unknown  unknown   met
 *   failed     unknown         matched / unknown  unknown   unknown
 *
 * An expectation is REPRODUCED when met in at least k runs, NOT
 * REPRODUCED when met in none and ruled out in all, INCONCLUSIVE
 * otherwise; a variant is REPRODUCED when any expectation is, NOT
 * REPRODUCED when every one is, INCONCLUSIVE otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <dirent.h>

#include <gsl/gsl_randist.h>

#include "repro/repro.h"
#include "repro/repro_json.h"
#include "analysis/stats.h"
#include "guest/console.h"
#include "store/store.h"
#include "store/run_record.h"
#include "lib/util.h"

#define CONSOLE_MAX (16u << 20)
#define ITERATION_MAX (16u << 20) /* the largest iteration.json read */
#define LINES_KEPT 5 /* matched console lines kept per run and expectation */
#define LINE_MAX_SHOWN 300

/* "the run crashed", "the run timed out" */
static const char *ended(const char *status)
{
	if (!strcmp(status, "crashed"))
		return "crashed";
	if (!strcmp(status, "timeout"))
		return "timed out";
	if (!strcmp(status, "failed"))
		return "failed";
	return status;
}

static int lookup(void *ctx, const char *name, double *val)
{
	json_t *v = json_object_get(ctx, name);

	if (!json_is_number(v))
		return -1;
	*val = json_number_value(v);
	return 0;
}

/* append console lines matching re (at most LINES_KEPT) to lines; true if any */
static bool match_console(const char *console, const regex_t *re, struct strlist *lines)
{
	const char *p = console;
	bool any = false;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len);

		line[strcspn(line, "\r")] = '\0';
		if (!regexec(re, line, 0, NULL, 0)) {
			any = true;
			if (lines->n < LINES_KEPT) {
				json_t *t;

				if (strlen(line) > LINE_MAX_SHOWN)
					line[LINE_MAX_SHOWN] = '\0';
				t = console_json_text(line, strlen(line));
				strlist_push(lines, json_string_value(t));
				json_decref(t);
			}
		}
		free(line);
		p += len + (p[len] == '\n');
	}
	return any;
}

static enum repro_outcome eval_metric(const struct expectation *e, bool ok, const char *status,
				      json_t *metrics, struct repro_cell *c)
{
	char err[256];
	double v;

	if (!ok) {
		c->why = xasprintf("no metrics: the run %s", ended(status));
	} else if (expr_eval(e->expr, lookup, metrics, &v, err, sizeof(err)) < 0) {
		c->why = xstrdup(err);
	} else if (isnan(v)) {
		c->why = xstrdup("the expression is not a number");
	} else {
		c->has_value = true;
		c->value = v;
		return expect_op_holds(e->op, v, e->value) ? REPRO_MET : REPRO_NOT_MET;
	}
	return REPRO_UNKNOWN;
}

static void eval_one(const struct expectation *e, const char *status, json_t *metrics,
		     const char *console, struct repro_cell *c)
{
	bool ok = !strcmp(status, "ok"), crashed = !strcmp(status, "crashed");
	bool timeout = !strcmp(status, "timeout");
	enum repro_outcome o = REPRO_UNKNOWN;

	memset(c, 0, sizeof(*c));
	switch (e->kind) {
	case EXPECT_METRIC:
		o = eval_metric(e, ok, status, metrics, c);
		break;
	case EXPECT_DMESG:
		c->has_lines = true;
		if (!console)
			c->why = xstrdup("no console.log stored");
		else if (match_console(console, &e->re, &c->lines))
			o = REPRO_MET;
		else if (ok || crashed)
			o = REPRO_NOT_MET;
		else
			c->why =
				xasprintf("no match, but the run %s before its end", ended(status));
		break;
	case EXPECT_CRASH:
		o = crashed ? REPRO_MET : ok ? REPRO_NOT_MET : REPRO_UNKNOWN;
		break;
	case EXPECT_HANG:
		o = timeout ? REPRO_MET : (ok || crashed) ? REPRO_NOT_MET : REPRO_UNKNOWN;
		break;
	}
	if (o == REPRO_UNKNOWN && !c->why)
		c->why = xasprintf("the run %s", ended(status));
	c->outcome = o;
}

static enum repro_verdict expect_verdict(unsigned int met, unsigned int unknown, unsigned int k)
{
	if (met >= k)
		return REPRO_REPRODUCED;
	if (!met && !unknown)
		return REPRO_NOT_REPRODUCED;
	return REPRO_INCONCLUSIVE;
}

char *repro_read_console(const char *run_dir, const char *variant, long long index)
{
	char *p = xasprintf("%s/%s/%lld/console.log", run_dir, variant, index);
	char *text = NULL;

	if (path_exists(p))
		text = read_file(p, NULL, CONSOLE_MAX);
	free(p);
	return text;
}

enum repro_outcome repro_eval_run(const struct expectation *e, const char *status, json_t *metrics,
				  const char *console, struct repro_cell *cell)
{
	struct repro_cell c;
	enum repro_outcome o;

	eval_one(e, status, metrics, console, &c);
	o = c.outcome;
	if (cell)
		*cell = c;
	else
		repro_cell_release(&c);
	return o;
}

/* the rows of a variant's runs; the counts per expectation */
static unsigned int eval_rows(const struct recipe *r, const struct repro_run_variant *rv,
			      const char *run_dir, struct repro_variant *v, unsigned int *met,
			      unsigned int *no, unsigned int *unk)
{
	v->rows = xcalloc(rv->niters + 1, sizeof(*v->rows));
	for (size_t i = 0; i < rv->niters; i++) {
		const struct repro_iter *it = &rv->iters[i];
		struct repro_row *row = &v->rows[v->nrows++];
		char *console = NULL;

		row->index = it->index;
		row->status = xstrdup(it->status ? it->status : "failed");
		row->cells = xcalloc(r->nexpect + 1, sizeof(*row->cells));
		row->ncells = r->nexpect;
		for (size_t j = 0; j < r->nexpect; j++)
			if (r->expect[j].kind == EXPECT_DMESG && !console)
				console = repro_read_console(run_dir, rv->name, it->index);
		for (size_t j = 0; j < r->nexpect; j++) {
			struct repro_cell *c = &row->cells[j];

			eval_one(&r->expect[j], row->status, it->metrics, console, c);
			met[j] += c->outcome == REPRO_MET;
			no[j] += c->outcome == REPRO_NOT_MET;
			unk[j] += c->outcome == REPRO_UNKNOWN;
		}
		free(console);
	}
	return (unsigned int)v->nrows;
}

static void eval_variant(const struct recipe *r, const struct repro_run_variant *rv,
			 unsigned int runs, const char *run_dir, struct repro_variant *v)
{
	unsigned int *met = xcalloc(r->nexpect + 1, sizeof(*met));
	unsigned int *unk = xcalloc(r->nexpect + 1, sizeof(*unk));
	unsigned int *no = xcalloc(r->nexpect + 1, sizeof(*no));
	unsigned int seen = eval_rows(r, rv, run_dir, v, met, no, unk);
	bool any_rep = false, all_not = true;

	v->name = xstrdup(rv->name);
	v->kernel = rv->kernel ? xstrdup(rv->kernel) : NULL;
	v->good = r->good && !strcmp(r->good, rv->name);
	v->runs = seen > runs ? seen : runs;
	v->expect = xcalloc(r->nexpect + 1, sizeof(*v->expect));
	v->nexpect = r->nexpect;
	for (size_t j = 0; j < r->nexpect; j++) {
		struct repro_expect_row *e = &v->expect[j];

		/* runs never stored count as unknown */
		if (seen < runs)
			unk[j] += runs - seen;
		e->index = (unsigned int)j;
		e->describe = expect_describe(&r->expect[j]);
		e->k = r->expect[j].k;
		e->met = met[j];
		e->not_met = no[j];
		e->unknown = unk[j];
		e->verdict = expect_verdict(met[j], unk[j], r->expect[j].k);
		any_rep |= e->verdict == REPRO_REPRODUCED;
		all_not &= e->verdict == REPRO_NOT_REPRODUCED;
	}
	v->verdict = any_rep ? REPRO_REPRODUCED :
		     all_not ? REPRO_NOT_REPRODUCED :
			       REPRO_INCONCLUSIVE;
	free(met);
	free(unk);
	free(no);
}

double repro_fisher(unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	unsigned int n1 = a + b, k = a + c, n = a + b + c + d;
	unsigned int lo = n1 > n - k ? n1 - (n - k) : 0, hi = k < n1 ? k : n1;
	double p0, p = 0;

	if (!n)
		return 1;
	p0 = gsl_ran_hypergeometric_pdf(a, k, n - k, n1);
	for (unsigned int x = lo; x <= hi; x++) {
		double px = gsl_ran_hypergeometric_pdf(x, k, n - k, n1);

		if (px <= p0 * (1 + 1e-7))
			p += px;
	}
	return p > 1 ? 1 : p;
}

/* the values of expectation j in a variant's runs */
static size_t metric_values(const struct repro_variant *v, size_t j, double **out)
{
	size_t n = 0;

	*out = xcalloc(v->nrows + 1, sizeof(double));
	for (size_t i = 0; i < v->nrows; i++)
		if (j < v->rows[i].ncells && v->rows[i].cells[j].has_value)
			(*out)[n++] = v->rows[i].cells[j].value;
	return n;
}

static double finite_or_nan(double x)
{
	return isfinite(x) ? x : NAN;
}

static void compare_metric(const struct repro_variant *bad, const struct repro_variant *good,
			   size_t j, struct repro_comparison *c)
{
	struct stats_summary sb, sg;
	struct stats_test t;
	double *vb, *vg;
	size_t nb = metric_values(bad, j, &vb), ng = metric_values(good, j, &vg);

	stats_summarize(vb, nb, false, &sb);
	stats_summarize(vg, ng, false, &sg);
	stats_welch(&sg, &sb, 0.95, &t);
	c->welch = true;
	c->n = (unsigned int)sb.n;
	c->mean = finite_or_nan(sb.mean);
	c->stddev = finite_or_nan(sb.stddev);
	if (t.valid) {
		c->has_p = true;
		c->p = t.p;
		c->has_rel = isfinite(t.rel);
		c->rel = t.rel;
		c->significant = t.p < 0.05;
	} else {
		c->why = xstrdup(t.why ? t.why : "no test possible");
	}
	free(vb);
	free(vg);
}

static void compare_counts(const struct repro_variant *bad, const struct repro_variant *good,
			   size_t j, struct repro_comparison *c)
{
	unsigned int a = bad->expect[j].met, b = bad->expect[j].not_met;
	unsigned int gm = good->expect[j].met, gn = good->expect[j].not_met;
	double p = repro_fisher(a, b, gm, gn);

	c->met = a;
	c->not_met = b;
	c->significant = a + b && gm + gn && p < 0.05;
	if (a + b && gm + gn) {
		c->has_p = true;
		c->p = p;
	} else {
		c->why = xstrdup("no run that tells on one side");
	}
}

static void add_comparisons(const struct recipe *r, struct repro_eval *ev)
{
	const struct repro_variant *good = NULL;

	for (size_t i = 0; i < ev->nvariants; i++)
		if (ev->variants[i].good)
			good = &ev->variants[i];
	if (!good)
		return;
	ev->cmp = xcalloc(ev->nvariants * r->nexpect + 1, sizeof(*ev->cmp));
	for (size_t i = 0; i < ev->nvariants; i++) {
		const struct repro_variant *v = &ev->variants[i];

		if (v == good)
			continue;
		for (size_t j = 0; j < r->nexpect; j++) {
			struct repro_comparison *c = &ev->cmp[ev->ncmp++];

			c->mean = c->stddev = NAN;
			if (r->expect[j].kind == EXPECT_METRIC)
				compare_metric(v, good, j, c);
			else
				compare_counts(v, good, j, c);
			c->variant = xstrdup(v->name);
			c->good = xstrdup(good->name);
			c->expect = (unsigned int)j;
			c->describe = expect_describe(&r->expect[j]);
		}
	}
}

void repro_evaluate(const struct recipe *r, const struct repro_run *run, const char *run_dir,
		    struct repro_eval *ev)
{
	bool rep = false, inc = false, tested = false, good_rep = false;

	memset(ev, 0, sizeof(*ev));
	ev->variants = xcalloc(run->nvariants + 1, sizeof(*ev->variants));
	for (size_t i = 0; i < run->nvariants; i++)
		eval_variant(r, &run->variants[i], run->iterations, run_dir,
			     &ev->variants[ev->nvariants++]);
	/* the verdict is the tested variants'; the known-good one alone only if it is all */
	for (int pass = 0; pass < 2 && !tested; pass++) {
		for (size_t i = 0; i < ev->nvariants; i++) {
			const struct repro_variant *v = &ev->variants[i];

			if (!pass && v->good) {
				good_rep |= v->verdict == REPRO_REPRODUCED;
				continue;
			}
			tested = true;
			rep |= v->verdict == REPRO_REPRODUCED;
			inc |= v->verdict == REPRO_INCONCLUSIVE;
		}
	}
	if (!tested)
		inc = true;
	if (good_rep)
		strlist_pushf(
			&ev->notes,
			"the known-good variant '%s' reproduces too: the recipe does not tell the kernels apart",
			r->good);
	add_comparisons(r, ev);
	ev->verdict = rep ? REPRO_REPRODUCED : inc ? REPRO_INCONCLUSIVE : REPRO_NOT_REPRODUCED;
	ev->run = run->run ? xstrdup(run->run) : NULL;
}

/* ---- the stored run, typed ---- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* the iteration directories of a variant (numbers), sorted */
static long long *iteration_indices(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long long *idx = NULL;
	size_t cap = 0;

	*n = 0;
	while (d && (e = readdir(d))) {
		char *end;
		unsigned long long v = strtoull(e->d_name, &end, 10);

		if (!*e->d_name || *end || *e->d_name < '0' || *e->d_name > '9' ||
		    v >= STORE_MAX_ITERATIONS)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			idx = xrealloc(idx, cap * sizeof(*idx));
		}
		idx[(*n)++] = (long long)v;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(idx, *n, sizeof(*idx), cmp_ll);
	return idx;
}

/* a name that is one directory below the run's */
static bool plain_name(const char *s)
{
	return s && *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

static void load_iters(struct store *s, const char *run, struct repro_run_variant *v)
{
	char *run_dir = store_run_path(s, run), *vdir = xasprintf("%s/%s", run_dir, v->name);
	size_t n;
	long long *idx = iteration_indices(vdir, &n);

	v->iters = xcalloc(n + 1, sizeof(*v->iters));
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%lld/iteration.json", vdir, idx[i]), *text;
		size_t len = 0;
		json_t *j = NULL;

		text = path_exists(p) ? read_file(p, &len, ITERATION_MAX) : NULL;
		if (text)
			j = json_loadb(text, len, 0, NULL);
		free(text);

		if (j && !repro_iter_from_json(j, idx[i], &v->iters[v->niters]))
			v->niters++;
		json_decref(j);
		free(p);
	}
	free(idx);
	free(vdir);
	free(run_dir);
}

void repro_run_from_record(struct store *s, const struct run_record *rec, const char *run,
			   struct repro_run *out)
{
	memset(out, 0, sizeof(*out));
	out->run = xstrdup(rec->run ? rec->run : run);
	out->iterations = repro_job_iterations(rec->job_resolved);
	out->variants = xcalloc(rec->nvariants + 1, sizeof(*out->variants));
	for (size_t i = 0; i < rec->nvariants; i++) {
		struct repro_run_variant *v = &out->variants[out->nvariants];
		const char *rel = rec->variants[i].has_kernel ?
					  repro_kernel_release(&rec->variants[i].kernel) :
					  NULL;

		if (!plain_name(rec->variants[i].name))
			continue;
		v->name = xstrdup(rec->variants[i].name);
		v->kernel = rel ? xstrdup(rel) : NULL;
		load_iters(s, out->run, v);
		out->nvariants++;
	}
}

int repro_run_load(struct store *s, const char *run, struct repro_run *out)
{
	struct run_record rec;

	memset(out, 0, sizeof(*out));
	if (store_record_read(s, run, &rec))
		return -1;
	repro_run_from_record(s, &rec, run, out);
	run_record_release(&rec);
	return 0;
}

/* ---- text ---- */

static void cell(char *buf, size_t len, const struct repro_cell *c)
{
	if (c->has_value)
		snprintf(buf, len, "%s (%.4g)", c->outcome == REPRO_MET ? "yes" : "no", c->value);
	else
		snprintf(buf, len, "%s",
			 c->outcome == REPRO_MET     ? "yes" :
			 c->outcome == REPRO_NOT_MET ? "no" :
						       "?");
}

static void print_expect(FILE *f, const struct repro_variant *v)
{
	char c[64];

	fprintf(f, "  %-4s %-44s %4s %5s %7s %7s  %s\n", "", "expectation", "k", "met", "not met",
		"unknown", "verdict");
	for (size_t i = 0; i < v->nexpect; i++) {
		const struct repro_expect_row *e = &v->expect[i];

		fprintf(f, "  [%zu]  %-44.44s %4u %5u %7u %7u  %s\n", i, e->describe, e->k, e->met,
			e->not_met, e->unknown, repro_verdict_name(e->verdict));
	}
	fprintf(f, "  %-4s %-9s", "run", "status");
	for (size_t i = 0; i < v->nexpect; i++) {
		snprintf(c, sizeof(c), "[%zu]", i);
		fprintf(f, " %-16s", c);
	}
	fputc('\n', f);
}

static void print_variant(FILE *f, const struct repro_variant *v)
{
	bool any_lines = false, any_why = false;
	char c[64];

	fprintf(f, "\nvariant %s%s (kernel %s): %s\n", v->name, v->good ? " [known good]" : "",
		v->kernel ?: "?", repro_verdict_name(v->verdict));
	print_expect(f, v);
	for (size_t i = 0; i < v->nrows; i++) {
		fprintf(f, "  %-4lld %-9s", v->rows[i].index, v->rows[i].status);
		for (size_t j = 0; j < v->rows[i].ncells; j++) {
			cell(c, sizeof(c), &v->rows[i].cells[j]);
			fprintf(f, " %-16s", c);
			any_lines |= v->rows[i].cells[j].lines.n > 0;
			any_why |= v->rows[i].cells[j].why != NULL;
		}
		fputc('\n', f);
	}
	if (any_why) {
		fprintf(f, "  ? = cannot tell:\n");
		for (size_t i = 0; i < v->nrows; i++)
			for (size_t j = 0; j < v->rows[i].ncells; j++)
				if (v->rows[i].cells[j].why)
					fprintf(f, "    run %lld [%zu]: %s\n", v->rows[i].index, j,
						v->rows[i].cells[j].why);
	}
	if (!any_lines)
		return;
	fprintf(f, "  console lines that matched:\n");
	for (size_t i = 0; i < v->nrows; i++)
		for (size_t j = 0; j < v->rows[i].ncells; j++)
			for (size_t k = 0; k < v->rows[i].cells[j].lines.n; k++)
				fprintf(f, "    run %lld [%zu]: %s\n", v->rows[i].index, j,
					v->rows[i].cells[j].lines.v[k]);
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	if (!isnan(v))
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/*
 * The known-good side of a comparison is not kept (its "good" is the
 * variant's name), so it shows as "-" (n=0) and 0/0, as it always has.
 */
static void print_comparison(FILE *f, const struct repro_comparison *c)
{
	char pbuf[32] = "-", bm[32], gm[32];

	if (c->has_p)
		snprintf(pbuf, sizeof(pbuf), "%.3g", c->p);
	fprintf(f, "  %s vs %s, [%u] %s: ", c->variant ?: "(null)", c->good ?: "(null)", c->expect,
		c->describe ?: "(null)");
	if (c->welch)
		fprintf(f, "mean %s (n=%u) vs %s (n=%d), Welch p = %s",
			fmt_num(bm, sizeof(bm), c->mean), c->n, fmt_num(gm, sizeof(gm), NAN), 0,
			pbuf);
	else
		fprintf(f, "met %u/%u vs %d/%d, Fisher p = %s", c->met, c->met + c->not_met, 0, 0,
			pbuf);
	if (c->why)
		fprintf(f, " (no test: %s)\n", c->why);
	else
		fprintf(f, ": %s\n",
			c->significant ? "differs significantly (alpha 0.05)" :
					 "no significant difference");
}

void repro_print(FILE *f, const struct repro_report *rep)
{
	const struct repro_recipe_info *in = &rep->info;
	const struct repro_eval *ev = &rep->eval;

	fprintf(f, "recipe %s: %s %s\n", in->file ?: "(null)", in->bug_id ?: "(null)",
		in->bug_title ?: "(null)");
	if (in->bug_url)
		fprintf(f, "  %s\n", in->bug_url);
	if (ev->run)
		fprintf(f, "run %s ('mmlab results show --json %s' has every metric)\n", ev->run,
			ev->run);
	for (size_t i = 0; i < ev->nvariants; i++)
		print_variant(f, &ev->variants[i]);
	if (ev->ncmp) {
		fprintf(f, "\nagainst the known-good variant:\n");
		for (size_t i = 0; i < ev->ncmp; i++)
			print_comparison(f, &ev->cmp[i]);
	}
	for (size_t i = 0; i < ev->notes.n; i++)
		fprintf(f, "note: %s\n", ev->notes.v[i]);
	fprintf(f, "\nverdict: %s\n", repro_verdict_name(ev->verdict));
}
