// SPDX-License-Identifier: GPL-2.0
/*
 * compare_json.c - the forms of a comparison tools read: csv and json
 * (stable: json only ever gains fields), and the --power table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "analysis/summary.h"

#define CONF_PCT 95

/* ---- csv ---- */

static void csv_str(FILE *out, const char *s, const char *sep)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputs(sep, out);
}

static void csv_num(FILE *out, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", out);
	fputs(sep, out);
}

static const char *kind_name(enum metric_kind k)
{
	return k == KIND_OPS ? "ops" : k == KIND_DURATION ? "duration" : "main";
}

int cmp_write_csv(const struct comparison *c, FILE *out)
{
	fputs("metric,kind,direction,variant,baseline,n,mean,stddev,coeffvar,"
	      "min,max,bamean95,hmean,pct,p,q,ci_low,ci_high,significant\n",
	      out);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		for (size_t j = 0; j < c->nvars; j++) {
			const struct cmp_cell *e = &m->cells[j];

			csv_str(out, m->name, ",");
			fprintf(out, "%s,%s,", kind_name(m->kind), metric_dir_name(m->dir));
			csv_str(out, c->vars[j].name, ",");
			fprintf(out, "%d,%zu,", j == c->baseline, e->s.n);
			csv_num(out, e->s.mean, ",");
			csv_num(out, e->s.stddev, ",");
			csv_num(out, e->s.cov, ",");
			csv_num(out, e->s.min, ",");
			csv_num(out, e->s.max, ",");
			csv_num(out, e->s.bamean95, ",");
			csv_num(out, e->s.hmean, ",");
			csv_num(out, e->pct, ",");
			csv_num(out, e->t.valid ? e->t.p : NAN, ",");
			csv_num(out, e->t.valid ? e->q : NAN, ",");
			csv_num(out, e->ci_low, ",");
			csv_num(out, e->ci_high, ",");
			fprintf(out, "%d\n", e->significant);
		}
	}
	return 0;
}

/* ---- json ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_strlist(const struct strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

static json_t *json_cell(const struct comparison *c, size_t j, const struct cmp_cell *e)
{
	json_t *o = json_pack("{s:s, s:I}", "variant", c->vars[j].name, "n", (json_int_t)e->s.n);
	const struct {
		const char *k;
		double v;
	} f[] = {
		{ "mean", e->s.mean },
		{ "stddev", e->s.stddev },
		{ "cov", e->s.cov },
		{ "min", e->s.min },
		{ "max", e->s.max },
		{ "bamean95", e->s.bamean95 },
		{ "hmean", e->s.hmean },
		{ "pct", e->pct },
		{ "p", e->t.valid ? e->t.p : NAN },
		{ "q", e->t.valid ? e->q : NAN },
		{ "df", e->t.valid ? e->t.df : NAN },
		{ "ci_low", e->ci_low },
		{ "ci_high", e->ci_high },
	};

	for (size_t k = 0; k < ARRAY_SIZE(f); k++)
		json_object_set_new(o, f[k].k, jnum(f[k].v));
	json_object_set_new(o, "significant", json_boolean(e->significant));
	if (j != c->baseline && !e->t.valid)
		json_object_set_new(o, "why", json_string(e->t.why));
	return o;
}

static json_t *json_metric(const struct comparison *c, const struct cmp_metric *m)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", m->name, "kind", kind_name(m->kind),
			      "direction", metric_dir_name(m->dir), "label", cmp_mean_label(m));
	json_t *vars = json_array();

	if (m->formula)
		json_object_set_new(o, "formula", json_string(m->formula));
	json_object_set_new(o, "group", json_string(metric_group_name(m->group)));
	json_object_set_new(o, "constant", json_boolean(m->constant));
	for (size_t j = 0; j < c->nvars; j++)
		json_array_append_new(vars, json_cell(c, j, &m->cells[j]));
	json_object_set_new(o, "variants", vars);
	return o;
}

static json_t *json_variants(const struct comparison *c)
{
	json_t *a = json_array();

	for (size_t j = 0; j < c->nvars; j++) {
		const struct cmp_variant *v = &c->vars[j];
		json_t *o = json_pack("{s:s, s:I}", "name", v->name, "n", (json_int_t)v->niter);

		json_object_set_new(o, "run", v->run ? json_string(v->run) : json_null());
		json_object_set_new(o, "kernel", v->kernel ? json_string(v->kernel) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static int dump(json_t *root, FILE *out)
{
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

	json_decref(root);
	fputc('\n', out);
	if (rc < 0)
		lab_err("cannot write the comparison as JSON (out of space?)");
	return rc < 0 ? -1 : 0;
}

/*
 * "summary": the significant cells largest change first (change in percent
 * of the baseline mean, null from a zero baseline) and, for each variant
 * with none, the smallest change it could have detected.
 */
static json_t *json_summary(const struct comparison *c)
{
	json_t *rows = json_array(), *quiet = json_array();
	struct cmp_summary s;

	cmp_summarize(c, &s);
	for (size_t k = 0; k < s.nsig; k++) {
		const struct cmp_sig *r = &s.sig[k];

		json_array_append_new(
			rows, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s}", "metric",
					c->metrics[r->metric].name, "variant",
					c->vars[r->variant].name, "change_pct", jnum(r->change),
					"ci_low_pct", jnum(r->lo), "ci_high_pct", jnum(r->hi), "q",
					jnum(c->metrics[r->metric].cells[r->variant].q), "verdict",
					cmp_verdict_name(r->verdict)));
	}
	for (size_t k = 0; k < s.nquiet; k++) {
		const struct cmp_quiet *q = &s.quiet[k];
		bool have = q->metric != (size_t)-1;

		json_array_append_new(
			quiet,
			json_pack("{s:s, s:I, s:o, s:o, s:o, s:I, s:I}", "variant",
				  c->vars[q->variant].name, "tested", (json_int_t)q->tested,
				  "detectable_pct", jnum(q->mde), "metric",
				  have ? json_string(c->metrics[q->metric].name) : json_null(),
				  "cov", jnum(q->cov), "n_baseline", (json_int_t)q->n_base, "n",
				  (json_int_t)q->n_new));
	}
	cmp_summary_release(&s);
	return json_pack("{s:I, s:f, s:o, s:o}", "significant", (json_int_t)json_array_size(rows),
			 "power", SUMMARY_POWER, "changes", rows, "no_change", quiet);
}

int cmp_write_json(const struct comparison *c, FILE *out)
{
	json_t *metrics = json_array();
	json_t *root;

	for (size_t i = 0; i < c->nmetrics; i++)
		json_array_append_new(metrics, json_metric(c, &c->metrics[i]));
	root = json_pack("{s:i, s:o, s:s, s:f, s:f, s:s, s:o, s:o, s:o, s:o}", "schema", 1, "runs",
			 json_strlist(&c->runs), "baseline", c->vars[c->baseline].name, "alpha",
			 c->alpha, "confidence", CONF_PCT / 100.0, "correction",
			 "benjamini-hochberg per variant", "variants", json_variants(c), "warnings",
			 json_strlist(&c->warnings), "notes", json_strlist(&c->notes), "metrics",
			 metrics);
	json_object_set_new(root, "summary", json_summary(c));
	return dump(root, out);
}

/* ---- power ---- */

/* the largest CoV (a fraction) among variants with n >= 2 */
static double worst_cov(const struct comparison *c, const struct cmp_metric *m, size_t *nmin)
{
	double cov = NAN;

	*nmin = (size_t)-1;
	for (size_t j = 0; j < c->nvars; j++) {
		const struct stats_summary *s = &m->cells[j].s;

		if (s->n < *nmin)
			*nmin = s->n;
		if (s->n >= 2 && s->mean != 0 && (isnan(cov) || s->cov / 100 > cov))
			cov = s->cov / 100;
	}
	return cov;
}

int cmp_write_power(const struct comparison *c, double effect, enum cmp_format fmt, FILE *out)
{
	json_t *arr = json_array();
	int w = 12;

	for (size_t i = 0; i < c->nmetrics; i++)
		if ((int)strlen(c->metrics[i].name) + 2 > w)
			w = (int)strlen(c->metrics[i].name) + 2;

	if (fmt != CMP_JSON) {
		fprintf(out,
			"Iterations per variant to detect a %.2f%% change "
			"(alpha %.3g, power 0.80, Welch's t-test)\n",
			100 * effect, c->alpha);
		fprintf(out, "%-*s%10s%8s%10s%12s\n", w, "Metric", "CoV%", "n now", "n needed",
			"detectable");
	}
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		size_t nmin, need;
		double cov = worst_cov(c, m, &nmin);
		double mde = 100 * stats_mde(cov, nmin, nmin, c->alpha, SUMMARY_POWER);
		char det[32];

		need = isnan(cov) ? 0 : stats_power_n(cov, effect, c->alpha, 0.8);
		if (fmt == CMP_JSON) {
			json_t *o = json_pack("{s:s, s:o, s:I, s:o}", "name", m->name, "cov",
					      jnum(100 * cov), "n", (json_int_t)nmin,
					      "detectable_pct", jnum(mde));

			json_object_set_new(o, "n_needed",
					    need ? json_integer((json_int_t)need) : json_null());
			json_array_append_new(arr, o);
			continue;
		}
		cmp_fmt_sig(det, sizeof(det), mde, 3, true);
		if (!isnan(mde))
			strcat(det, "%");
		fprintf(out, "%-*s", w, m->name);
		if (isnan(cov))
			fprintf(out, "%10s%8zu%10s%12s\n", "n/a", nmin, "n/a", "n/a");
		else if (!need)
			fprintf(out, "%10.2f%8zu%10s%12s\n", 100 * cov, nmin, ">1e6", det);
		else
			fprintf(out, "%10.2f%8zu%10zu%12s\n", 100 * cov, nmin, need, det);
	}
	if (fmt != CMP_JSON) {
		json_decref(arr);
		fputs("CoV% is the largest among the variants; n/a where a "
		      "variant has fewer than 2 samples or a zero mean. detectable: "
		      "the smallest change the current n detects with power 0.80.\n",
		      out);
		return 0;
	}
	return dump(json_pack("{s:f, s:f, s:f, s:o}", "effect", effect, "alpha", c->alpha, "power",
			      0.8, "metrics", arr),
		    out);
}
