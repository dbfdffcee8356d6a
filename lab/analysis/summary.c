// SPDX-License-Identifier: GPL-2.0
/*
 * summary.c - the significant rows of a comparison sorted by the size of
 * the change, the smallest detectable change of a variant with none, and
 * the number formats of the summary and the grouped tables. summary.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"

void cmp_cell_change(const struct cmp_metric *m, size_t j, double *change, double *lo, double *hi)
{
	const struct cmp_cell *e = &m->cells[j];

	/* pct and its CI are oriented "positive = better": undo it for lower */
	if (m->dir == DIR_LOWER) {
		*change = -e->pct;
		*lo = -e->ci_high;
		*hi = -e->ci_low;
	} else {
		*change = e->pct;
		*lo = e->ci_low;
		*hi = e->ci_high;
	}
	if (*change == 0)
		*change = 0; /* no "-0" */
}

enum cmp_verdict cmp_cell_verdict(const struct comparison *c, const struct cmp_metric *m, size_t j)
{
	bool more = m->cells[j].s.mean > m->cells[c->baseline].s.mean;

	if (m->dir == DIR_NEUTRAL)
		return more ? VERDICT_MORE : VERDICT_LESS;
	return more == (m->dir == DIR_HIGHER) ? VERDICT_BETTER : VERDICT_WORSE;
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = { "better", "worse", "more", "less" };

	return names[v];
}

/* largest |change| first; a change from a zero baseline counts as largest */
static int sig_cmp(const void *a, const void *b)
{
	const struct cmp_sig *x = a, *y = b;
	double ax = isnan(x->change) ? INFINITY : fabs(x->change);
	double ay = isnan(y->change) ? INFINITY : fabs(y->change);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->variant < y->variant ? -1 : (x->variant > y->variant);
}

/*
 * The smallest change variant j could have shown against the baseline,
 * over the workload and Duration metrics (every metric if none of those
 * varies): CoV = the larger of the two sides', n = each side's samples.
 */
static void quiet_variant(const struct comparison *c, size_t j, struct cmp_quiet *q)
{
	memset(q, 0, sizeof(*q));
	q->variant = j;
	q->metric = (size_t)-1;
	q->mde = q->cov = NAN;
	for (int pass = 0; pass < 2 && q->metric == (size_t)-1; pass++) {
		for (size_t i = 0; i < c->nmetrics; i++) {
			const struct cmp_metric *m = &c->metrics[i];
			const struct stats_summary *b = &m->cells[c->baseline].s;
			const struct stats_summary *s = &m->cells[j].s;
			double cov, mde;

			if (!pass && m->cells[j].t.valid)
				q->tested++;
			else if (!pass && !q->untested)
				q->untested = m->cells[j].t.why;
			if (!m->cells[j].t.valid || m->constant ||
			    (!pass && m->group != GROUP_WORKLOAD && m->group != GROUP_DURATION))
				continue;
			cov = fmax(b->cov, s->cov);
			mde = 100 * stats_mde(cov / 100, b->n, s->n, c->alpha, SUMMARY_POWER);
			if (isnan(mde) || (q->metric != (size_t)-1 && mde >= q->mde))
				continue;
			q->metric = i;
			q->mde = mde;
			q->cov = cov;
			q->n_base = b->n;
			q->n_new = s->n;
		}
	}
}

void cmp_summarize(const struct comparison *c, struct cmp_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		s->nconstant += m->constant;
		for (size_t j = 0; j < c->nvars; j++) {
			struct cmp_sig *r;

			if (!m->cells[j].significant)
				continue;
			s->sig = xrealloc(s->sig, (s->nsig + 1) * sizeof(*s->sig));
			r = &s->sig[s->nsig++];
			r->metric = i;
			r->variant = j;
			cmp_cell_change(m, j, &r->change, &r->lo, &r->hi);
			r->verdict = cmp_cell_verdict(c, m, j);
		}
	}
	if (s->nsig)
		qsort(s->sig, s->nsig, sizeof(*s->sig), sig_cmp);
	for (size_t j = 0; j < c->nvars; j++) {
		bool any = false;

		for (size_t k = 0; k < s->nsig; k++)
			any |= s->sig[k].variant == j;
		if (j == c->baseline || any)
			continue;
		s->quiet = xrealloc(s->quiet, (s->nquiet + 1) * sizeof(*s->quiet));
		quiet_variant(c, j, &s->quiet[s->nquiet++]);
	}
}

void cmp_summary_release(struct cmp_summary *s)
{
	free(s->sig);
	free(s->quiet);
	memset(s, 0, sizeof(*s));
}

/*
 * The sentence for a variant without a significant row: "no significant
 * change in V against B (N metrics tested, q < a); with n=3 vs n=3 this
 * run could detect changes of 12.5% or more (M, CoV 4.1%, power 0.8)."
 */
char *cmp_quiet_sentence(const struct comparison *c, const struct cmp_quiet *q, bool capital)
{
	const char *v = c->vars[q->variant].name, *b = c->vars[c->baseline].name;
	const char *no = capital ? "No" : "no";
	char mde[32], cov[32];

	if (!q->tested)
		return xasprintf("%s test of %s against %s: %s.", capital ? "No" : "no", v, b,
				 q->untested ? q->untested : "no metric");
	if (q->metric == (size_t)-1)
		return xasprintf("%s significant change in %s against %s (%zu metrics "
				 "tested, q < %.3g); each has one value in every "
				 "sample.",
				 no, v, b, q->tested, c->alpha);
	cmp_fmt_sig(mde, sizeof(mde), q->mde, 3, true);
	cmp_fmt_sig(cov, sizeof(cov), q->cov, 3, true);
	return xasprintf("%s significant change in %s against %s (%zu metrics "
			 "tested, q < %.3g); with n=%zu vs n=%zu this run could "
			 "detect changes of %s%% or more (%s, CoV %s%%, power %.1f).",
			 no, v, b, q->tested, c->alpha, q->n_base, q->n_new, mde,
			 c->metrics[q->metric].name, cov, SUMMARY_POWER);
}

/* ---- number formats ---- */

static void strip_zeros(char *buf)
{
	char *dot = strchr(buf, '.'), *e;

	if (!dot)
		return;
	e = buf + strlen(buf);
	while (e > dot + 1 && e[-1] == '0')
		*--e = 0;
	if (e == dot + 1)
		*dot = 0;
}

void cmp_fmt_sig(char *buf, size_t len, double v, int digits, bool strip)
{
	int mag, dec;

	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (fabs(v) < 1e-9 || fabs(v) >= 1e15) {
		snprintf(buf, len, "%.*g", digits, v);
		return;
	}
	mag = (int)floor(log10(fabs(v)));
	dec = digits - 1 - mag;
	if (dec < 0)
		dec = 0;
	snprintf(buf, len, "%.*f", dec, v);
	if (strip)
		strip_zeros(buf);
	if (!strcmp(buf, "-0"))
		snprintf(buf, len, "0");
}

void cmp_fmt_change(char *buf, size_t len, double pct)
{
	double a = fabs(pct);

	if (isnan(pct))
		snprintf(buf, len, "n/a");
	else if (isinf(pct))
		snprintf(buf, len, "%s", pct > 0 ? "+inf" : "-inf");
	else if (a >= 99.95)
		snprintf(buf, len, "%+.0f%%", pct);
	else if (a >= 9.995)
		snprintf(buf, len, "%+.1f%%", pct);
	else
		snprintf(buf, len, "%+.2f%%", pct);
	if (!strncmp(buf, "-0.00", 5) && buf[5] == '%')
		snprintf(buf, len, "+0.00%%");
}

void cmp_fmt_ci(char *buf, size_t len, double lo, double hi)
{
	char a[32], b[32];

	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(lo) && isinf(hi)) {
		snprintf(buf, len, "unbounded");
		return;
	}
	cmp_fmt_change(a, sizeof(a), lo);
	cmp_fmt_change(b, sizeof(b), hi);
	snprintf(buf, len, "[%s, %s]", a, b);
}
