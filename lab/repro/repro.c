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

#include <gsl/gsl_randist.h>

#include "repro/repro.h"
#include "analysis/stats.h"
#include "guest/console.h"
#include "lib/util.h"

#define CONSOLE_MAX (16u << 20)
#define LINES_KEPT 5 /* matched console lines kept per run and expectation */
#define LINE_MAX_SHOWN 300

enum outcome { MET, NOT_MET, UNKNOWN };

static const char *const outcome_names[] = { "met", "not met", "unknown" };

enum verdict { V_REPRODUCED, V_NOT_REPRODUCED, V_INCONCLUSIVE };

static const char *const verdict_names[] = {
	"REPRODUCED",
	"NOT REPRODUCED",
	"INCONCLUSIVE",
};

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
static bool match_console(const char *console, const regex_t *re, json_t *lines)
{
	const char *p = console;
	bool any = false;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len);

		line[strcspn(line, "\r")] = '\0';
		if (!regexec(re, line, 0, NULL, 0)) {
			any = true;
			if (json_array_size(lines) < LINES_KEPT) {
				if (strlen(line) > LINE_MAX_SHOWN)
					line[LINE_MAX_SHOWN] = '\0';
				json_array_append_new(lines, console_json_text(line, strlen(line)));
			}
		}
		free(line);
		p += len + (p[len] == '\n');
	}
	return any;
}

static json_t *eval_one(const struct expectation *e, const char *status, json_t *metrics,
			const char *console, enum outcome *o)
{
	json_t *res = json_object();
	bool ok = !strcmp(status, "ok"), crashed = !strcmp(status, "crashed");
	bool timeout = !strcmp(status, "timeout");
	char err[256];
	double v;

	*o = UNKNOWN;
	switch (e->kind) {
	case EXPECT_METRIC:
		if (!ok) {
			json_object_set_new(res, "why",
					    json_sprintf("no metrics: the run %s", ended(status)));
		} else if (expr_eval(e->expr, lookup, metrics, &v, err, sizeof(err)) < 0) {
			json_object_set_new(res, "why", json_string(err));
		} else if (isnan(v)) {
			json_object_set_new(res, "why",
					    json_string("the expression is not a number"));
		} else {
			json_object_set_new(res, "value", json_real(v));
			*o = expect_op_holds(e->op, v, e->value) ? MET : NOT_MET;
		}
		break;
	case EXPECT_DMESG: {
		json_t *lines = json_array();

		if (!console)
			json_object_set_new(res, "why", json_string("no console.log stored"));
		else if (match_console(console, &e->re, lines))
			*o = MET;
		else if (ok || crashed)
			*o = NOT_MET;
		else
			json_object_set_new(res, "why",
					    json_sprintf("no match, but the run %s before its end",
							 ended(status)));
		json_object_set_new(res, "lines", lines);
		break;
	}
	case EXPECT_CRASH:
		*o = crashed ? MET : ok ? NOT_MET : UNKNOWN;
		break;
	case EXPECT_HANG:
		*o = timeout ? MET : (ok || crashed) ? NOT_MET : UNKNOWN;
		break;
	}
	if (*o == UNKNOWN && !json_object_get(res, "why"))
		json_object_set_new(res, "why", json_sprintf("the run %s", ended(status)));
	json_object_set_new(res, "outcome", json_string(outcome_names[*o]));
	return res;
}

static enum verdict expect_verdict(unsigned int met, unsigned int unknown, unsigned int k)
{
	if (met >= k)
		return V_REPRODUCED;
	if (!met && !unknown)
		return V_NOT_REPRODUCED;
	return V_INCONCLUSIVE;
}

static char *read_console(const char *run_dir, const char *variant, json_int_t idx)
{
	char *p = xasprintf("%s/%s/%lld/console.log", run_dir, variant, (long long)idx);
	char *text = NULL;

	if (path_exists(p))
		text = read_file(p, NULL, CONSOLE_MAX);
	free(p);
	return text;
}

int repro_eval_run(const struct expectation *e, const char *status, json_t *metrics,
		   const char *console, json_t **detail)
{
	enum outcome o;
	json_t *res = eval_one(e, status, metrics, console, &o);

	if (detail)
		*detail = res;
	else
		json_decref(res);
	return o == MET ? 1 : o == NOT_MET ? 0 : -1;
}

char *repro_read_console(const char *run_dir, const char *variant, long long index)
{
	return read_console(run_dir, variant, index);
}

static json_t *eval_variant(const struct recipe *r, json_t *var, unsigned int runs,
			    const char *run_dir)
{
	const char *name = json_string_value(json_object_get(var, "name"));
	json_t *iters = json_object_get(var, "iterations"), *it, *runs_j = json_array();
	json_t *ex = json_array();
	unsigned int *met = xcalloc(r->nexpect, sizeof(*met));
	unsigned int *unk = xcalloc(r->nexpect, sizeof(*unk));
	unsigned int *no = xcalloc(r->nexpect, sizeof(*no));
	unsigned int seen = 0;
	bool any_rep = false, all_not = true;
	size_t i;

	json_array_foreach(iters, i, it) {
		const char *status = json_string_value(json_object_get(it, "status"));
		json_int_t idx = json_integer_value(json_object_get(it, "index"));
		char *console = NULL;
		json_t *results = json_array();

		if (!status)
			status = "failed";
		for (size_t j = 0; j < r->nexpect; j++)
			if (r->expect[j].kind == EXPECT_DMESG && !console)
				console = read_console(run_dir, name, idx);
		for (size_t j = 0; j < r->nexpect; j++) {
			enum outcome o;

			json_array_append_new(results, eval_one(&r->expect[j], status,
								json_object_get(it, "metrics"),
								console, &o));
			met[j] += o == MET;
			no[j] += o == NOT_MET;
			unk[j] += o == UNKNOWN;
		}
		json_array_append_new(runs_j, json_pack("{s:I, s:s, s:o}", "index", idx, "status",
							status, "results", results));
		free(console);
		seen++;
	}
	for (size_t j = 0; j < r->nexpect; j++) {
		char *d = expect_describe(&r->expect[j]);
		enum verdict v;

		/* runs never stored count as unknown */
		if (seen < runs)
			unk[j] += runs - seen;
		v = expect_verdict(met[j], unk[j], r->expect[j].k);
		any_rep |= v == V_REPRODUCED;
		all_not &= v == V_NOT_REPRODUCED;
		json_array_append_new(ex, json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:s}", "index",
						    (int)j, "describe", d, "k", (int)r->expect[j].k,
						    "met", (int)met[j], "not_met", (int)no[j],
						    "unknown", (int)unk[j], "verdict",
						    verdict_names[v]));
		free(d);
	}
	free(met);
	free(unk);
	free(no);
	return json_pack(
		"{s:s, s:s?, s:s, s:i, s:s, s:o, s:o}", "name", name, "kernel",
		json_string_value(json_object_get(json_object_get(var, "kernel"), "release")),
		"role", r->good && !strcmp(r->good, name) ? "good" : "test", "runs",
		(int)(seen > runs ? seen : runs), "verdict",
		verdict_names[any_rep ? V_REPRODUCED :
			      all_not ? V_NOT_REPRODUCED :
					V_INCONCLUSIVE],
		"expect", ex, "runs_table", runs_j);
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

/* the finite values of expectation j in a variant's ok runs */
static size_t metric_values(json_t *var, size_t j, double **out)
{
	json_t *it, *res;
	size_t i, n = 0;

	*out = xcalloc(json_array_size(json_object_get(var, "runs_table")) + 1, sizeof(double));
	json_array_foreach(json_object_get(var, "runs_table"), i, it) {
		res = json_array_get(json_object_get(it, "results"), j);
		if (json_is_number(json_object_get(res, "value")))
			(*out)[n++] = json_number_value(json_object_get(res, "value"));
	}
	return n;
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *compare_metric(json_t *bad, json_t *good, size_t j)
{
	struct stats_summary sb, sg;
	struct stats_test t;
	double *vb, *vg;
	size_t nb = metric_values(bad, j, &vb), ng = metric_values(good, j, &vg);
	json_t *o;

	stats_summarize(vb, nb, false, &sb);
	stats_summarize(vg, ng, false, &sg);
	stats_welch(&sg, &sb, 0.95, &t);
	o = json_pack("{s:s, s:{s:i, s:o, s:o}, s:{s:i, s:o, s:o}}", "test", "welch", "bad", "n",
		      (int)sb.n, "mean", num_or_null(sb.mean), "stddev", num_or_null(sb.stddev),
		      "good", "n", (int)sg.n, "mean", num_or_null(sg.mean), "stddev",
		      num_or_null(sg.stddev));
	if (t.valid) {
		json_object_set_new(o, "p", json_real(t.p));
		if (isfinite(t.rel))
			json_object_set_new(o, "rel", json_real(t.rel));
		json_object_set_new(o, "significant", json_boolean(t.p < 0.05));
	} else {
		json_object_set_new(o, "significant", json_false());
		json_object_set_new(o, "why", json_string(t.why ? t.why : "no test possible"));
	}
	free(vb);
	free(vg);
	return o;
}

static json_t *compare_counts(json_t *bad, json_t *good, size_t j)
{
	json_t *eb = json_array_get(json_object_get(bad, "expect"), j);
	json_t *eg = json_array_get(json_object_get(good, "expect"), j);
	unsigned int a = (unsigned int)json_integer_value(json_object_get(eb, "met"));
	unsigned int b = (unsigned int)json_integer_value(json_object_get(eb, "not_met"));
	unsigned int c = (unsigned int)json_integer_value(json_object_get(eg, "met"));
	unsigned int d = (unsigned int)json_integer_value(json_object_get(eg, "not_met"));
	double p = repro_fisher(a, b, c, d);
	json_t *o = json_pack("{s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:b}", "test", "fisher", "bad",
			      "met", (int)a, "not_met", (int)b, "good", "met", (int)c, "not_met",
			      (int)d, "significant", a + b && c + d && p < 0.05);

	if (a + b && c + d)
		json_object_set_new(o, "p", json_real(p));
	else
		json_object_set_new(o, "why", json_string("no run that tells on one side"));
	return o;
}

static void add_comparisons(const struct recipe *r, json_t *vars, json_t *out)
{
	json_t *good = NULL, *v;
	size_t i;

	json_array_foreach(vars, i, v) {
		if (!strcmp(json_string_value(json_object_get(v, "role")), "good"))
			good = v;
	}
	if (!good)
		return;
	json_array_foreach(vars, i, v) {
		if (v == good)
			continue;
		for (size_t j = 0; j < r->nexpect; j++) {
			json_t *c = r->expect[j].kind == EXPECT_METRIC ?
					    compare_metric(v, good, j) :
					    compare_counts(v, good, j);
			char *d = expect_describe(&r->expect[j]);

			json_object_set_new(c, "variant",
					    json_object_get(v, "name") ?
						    json_copy(json_object_get(v, "name")) :
						    json_null());
			json_object_set(c, "good", json_object_get(good, "name"));
			json_object_set_new(c, "expect", json_integer((json_int_t)j));
			json_object_set_new(c, "describe", json_string(d));
			json_array_append_new(out, c);
			free(d);
		}
	}
}

json_t *repro_evaluate(const struct recipe *r, json_t *run, const char *run_dir)
{
	json_t *vars = json_array(), *v, *cmp = json_array(), *notes = json_array();
	unsigned int runs = (unsigned int)json_integer_value(
		json_object_get(json_object_get(run, "job_resolved"), "iterations"));
	bool rep = false, inc = false, tested = false, good_rep = false;
	int code;
	size_t i;

	json_array_foreach(json_object_get(run, "variants"), i, v) {
		if (!json_string_value(json_object_get(v, "name")))
			continue;
		json_array_append_new(vars, eval_variant(r, v, runs, run_dir));
	}
	/* the verdict is the tested variants'; the known-good one alone only if it is all */
	for (int pass = 0; pass < 2 && !tested; pass++) {
		json_array_foreach(vars, i, v) {
			const char *role = json_string_value(json_object_get(v, "role"));
			const char *vd = json_string_value(json_object_get(v, "verdict"));

			if (!pass && !strcmp(role, "good")) {
				good_rep |= !strcmp(vd, verdict_names[V_REPRODUCED]);
				continue;
			}
			tested = true;
			rep |= !strcmp(vd, verdict_names[V_REPRODUCED]);
			inc |= !strcmp(vd, verdict_names[V_INCONCLUSIVE]);
		}
	}
	if (!tested)
		inc = true;
	if (good_rep)
		json_array_append_new(
			notes,
			json_sprintf(
				"the known-good variant '%s' reproduces too: the recipe does not tell the kernels apart",
				r->good));
	add_comparisons(r, vars, cmp);
	code = rep ? REPRO_EXIT_REPRODUCED :
	       inc ? REPRO_EXIT_INCONCLUSIVE :
		     REPRO_EXIT_NOT_REPRODUCED;
	return json_pack("{s:s, s:i, s:s?, s:o, s:o, s:o}", "verdict",
			 verdict_names[rep ? V_REPRODUCED :
				       inc ? V_INCONCLUSIVE :
					     V_NOT_REPRODUCED],
			 "exit", code, "run", json_string_value(json_object_get(run, "run")),
			 "notes", notes, "variants", vars, "comparisons", cmp);
}

/* ---- text ---- */

static void cell(char *buf, size_t len, json_t *res)
{
	const char *o = json_string_value(json_object_get(res, "outcome"));
	json_t *val = json_object_get(res, "value");

	if (json_is_number(val))
		snprintf(buf, len, "%s (%.4g)", !strcmp(o, "met") ? "yes" : "no",
			 json_number_value(val));
	else
		snprintf(buf, len, "%s",
			 !strcmp(o, "met")     ? "yes" :
			 !strcmp(o, "not met") ? "no" :
						 "?");
}

static void print_variant(FILE *f, json_t *v)
{
	json_t *e, *it, *res, *line;
	size_t i, j, k;
	bool any_lines = false, any_why = false;
	char c[64];

	fprintf(f, "\nvariant %s%s (kernel %s): %s\n",
		json_string_value(json_object_get(v, "name")),
		!strcmp(json_string_value(json_object_get(v, "role")), "good") ? " [known good]" :
										 "",
		json_string_value(json_object_get(v, "kernel")) ?: "?",
		json_string_value(json_object_get(v, "verdict")));
	fprintf(f, "  %-4s %-44s %4s %5s %7s %7s  %s\n", "", "expectation", "k", "met", "not met",
		"unknown", "verdict");
	json_array_foreach(json_object_get(v, "expect"), i, e) {
		fprintf(f, "  [%zu]  %-44.44s %4lld %5lld %7lld %7lld  %s\n", i,
			json_string_value(json_object_get(e, "describe")),
			json_integer_value(json_object_get(e, "k")),
			json_integer_value(json_object_get(e, "met")),
			json_integer_value(json_object_get(e, "not_met")),
			json_integer_value(json_object_get(e, "unknown")),
			json_string_value(json_object_get(e, "verdict")));
	}
	fprintf(f, "  %-4s %-9s", "run", "status");
	json_array_foreach(json_object_get(v, "expect"), i, e) {
		snprintf(c, sizeof(c), "[%zu]", i);
		fprintf(f, " %-16s", c);
	}
	fputc('\n', f);
	json_array_foreach(json_object_get(v, "runs_table"), i, it) {
		fprintf(f, "  %-4lld %-9s", json_integer_value(json_object_get(it, "index")),
			json_string_value(json_object_get(it, "status")));
		json_array_foreach(json_object_get(it, "results"), j, res) {
			cell(c, sizeof(c), res);
			fprintf(f, " %-16s", c);
			any_lines |= json_array_size(json_object_get(res, "lines")) > 0;
			any_why |= json_string_value(json_object_get(res, "why")) != NULL;
		}
		fputc('\n', f);
	}
	if (any_why) {
		fprintf(f, "  ? = cannot tell:\n");
		json_array_foreach(json_object_get(v, "runs_table"), i, it) {
			json_array_foreach(json_object_get(it, "results"), j, res) {
				if (json_string_value(json_object_get(res, "why")))
					fprintf(f, "    run %lld [%zu]: %s\n",
						json_integer_value(json_object_get(it, "index")), j,
						json_string_value(json_object_get(res, "why")));
			}
		}
	}
	if (!any_lines)
		return;
	fprintf(f, "  console lines that matched:\n");
	json_array_foreach(json_object_get(v, "runs_table"), i, it) {
		json_array_foreach(json_object_get(it, "results"), j, res) {
			json_array_foreach(json_object_get(res, "lines"), k, line) {
				fprintf(f, "    run %lld [%zu]: %s\n",
					json_integer_value(json_object_get(it, "index")), j,
					json_string_value(line));
			}
		}
	}
}

static const char *fmt_num(char *buf, size_t len, json_t *v)
{
	if (json_is_number(v))
		snprintf(buf, len, "%.4g", json_number_value(v));
	else
		snprintf(buf, len, "-");
	return buf;
}

static void print_comparison(FILE *f, json_t *c)
{
	const char *test = json_string_value(json_object_get(c, "test"));
	json_t *b = json_object_get(c, "bad"), *g = json_object_get(c, "good");
	json_t *p = json_object_get(c, "p");
	char pbuf[32] = "-", bm[32], gm[32];

	if (json_is_number(p))
		snprintf(pbuf, sizeof(pbuf), "%.3g", json_number_value(p));
	fprintf(f, "  %s vs %s, [%lld] %s: ", json_string_value(json_object_get(c, "variant")),
		json_string_value(json_object_get(c, "good")),
		json_integer_value(json_object_get(c, "expect")),
		json_string_value(json_object_get(c, "describe")));
	if (!strcmp(test, "welch"))
		fprintf(f, "mean %s (n=%lld) vs %s (n=%lld), Welch p = %s",
			fmt_num(bm, sizeof(bm), json_object_get(b, "mean")),
			json_integer_value(json_object_get(b, "n")),
			fmt_num(gm, sizeof(gm), json_object_get(g, "mean")),
			json_integer_value(json_object_get(g, "n")), pbuf);
	else
		fprintf(f, "met %lld/%lld vs %lld/%lld, Fisher p = %s",
			json_integer_value(json_object_get(b, "met")),
			json_integer_value(json_object_get(b, "met")) +
				json_integer_value(json_object_get(b, "not_met")),
			json_integer_value(json_object_get(g, "met")),
			json_integer_value(json_object_get(g, "met")) +
				json_integer_value(json_object_get(g, "not_met")),
			pbuf);
	if (json_string_value(json_object_get(c, "why")))
		fprintf(f, " (no test: %s)\n", json_string_value(json_object_get(c, "why")));
	else
		fprintf(f, ": %s\n",
			json_is_true(json_object_get(c, "significant")) ?
				"differs significantly (alpha 0.05)" :
				"no significant difference");
}

void repro_print(FILE *f, json_t *eval, json_t *recipe)
{
	json_t *bug = json_object_get(recipe, "bug"), *v, *n;
	size_t i;

	fprintf(f, "recipe %s: %s %s\n", json_string_value(json_object_get(recipe, "file")),
		json_string_value(json_object_get(bug, "id")),
		json_string_value(json_object_get(bug, "title")));
	if (json_string_value(json_object_get(bug, "url")))
		fprintf(f, "  %s\n", json_string_value(json_object_get(bug, "url")));
	if (json_string_value(json_object_get(eval, "run")))
		fprintf(f, "run %s ('mmlab results show --json %s' has every metric)\n",
			json_string_value(json_object_get(eval, "run")),
			json_string_value(json_object_get(eval, "run")));
	json_array_foreach(json_object_get(eval, "variants"), i, v) {
		print_variant(f, v);
	}
	if (json_array_size(json_object_get(eval, "comparisons"))) {
		fprintf(f, "\nagainst the known-good variant:\n");
		json_array_foreach(json_object_get(eval, "comparisons"), i, v) {
			print_comparison(f, v);
		}
	}
	json_array_foreach(json_object_get(eval, "notes"), i, n) {
		fprintf(f, "note: %s\n", json_string_value(n));
	}
	fprintf(f, "\nverdict: %s\n", json_string_value(json_object_get(eval, "verdict")));
}
