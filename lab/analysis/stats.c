// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries, Welch's t-test, Fieller interval, Benjamini-Hochberg
 * and power, on top of GSL. See stats.h and docs/compare.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/stats.h"
#include "lib/util.h"

/* copy the finite values of x, sorted ascending; returns how many */
static size_t finite_sorted(const double *x, size_t n, double **out)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	gsl_sort(v, 1, k);
	*out = v;
	return k;
}

static double harmonic_mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		sum += 1.0 / v[i];
	}
	return n ? (double)n / sum : NAN;
}

void stats_summarize(const double *x, size_t n, bool higher_better, struct stats_summary *s)
{
	double *v;
	size_t k = finite_sorted(x, n, &v);
	size_t keep;

	memset(s, 0, sizeof(*s));
	s->n = k;
	s->mean = s->stddev = s->cov = s->min = s->max = NAN;
	s->bamean95 = s->hmean = NAN;
	if (!k) {
		free(v);
		return;
	}
	s->mean = gsl_stats_mean(v, 1, k);
	s->min = v[0];
	s->max = v[k - 1];
	if (k >= 2) {
		s->stddev = gsl_stats_sd_m(v, 1, k, s->mean);
		if (s->mean != 0)
			s->cov = 100.0 * s->stddev / fabs(s->mean);
	}
	keep = (size_t)floor(0.95 * (double)k);
	if (keep < 1)
		keep = 1;
	s->bamean95 = gsl_stats_mean(higher_better ? v + (k - keep) : v, 1, keep);
	s->hmean = harmonic_mean(v, k);
	free(v);
}

/* Fieller interval of m2/m1 - 1 for independent means with variances v1, v2 */
static void fieller(double m1, double v1, double m2, double v2, double t, struct stats_test *out)
{
	double a = m1 * m1 - t * t * v1;
	double disc, r;

	if (!(a > 0)) {
		out->ci_low = -INFINITY;
		out->ci_high = INFINITY;
		return;
	}
	disc = t * t * (m1 * m1 * v2 + m2 * m2 * v1 - t * t * v1 * v2);
	r = sqrt(disc > 0 ? disc : 0);
	out->ci_low = (m1 * m2 - r) / a - 1;
	out->ci_high = (m1 * m2 + r) / a - 1;
}

void stats_welch(const struct stats_summary *base, const struct stats_summary *cur, double conf,
		 struct stats_test *out)
{
	double v1, v2, se2, diff;

	memset(out, 0, sizeof(*out));
	out->t = out->df = out->p = NAN;
	out->ci_low = out->ci_high = NAN;
	out->rel = (base->n && cur->n && base->mean != 0) ? cur->mean / base->mean - 1 : NAN;
	if (base->n < 2 || cur->n < 2) {
		out->why = base->n < 2 ? "n < 2 in the baseline" : "n < 2";
		return;
	}
	v1 = base->stddev * base->stddev / (double)base->n;
	v2 = cur->stddev * cur->stddev / (double)cur->n;
	se2 = v1 + v2;
	diff = cur->mean - base->mean;
	if (se2 > 0)
		out->df = se2 * se2 /
			  (v1 * v1 / (double)(base->n - 1) + v2 * v2 / (double)(cur->n - 1));
	else
		out->df = (double)(base->n + cur->n - 2);
	/*
	 * Values near DBL_MAX overflow the variances (a guest can send
	 * -1e308): then df is NaN and GSL's t distribution would call its
	 * error handler, whose default aborts. No test then.
	 */
	if (!isfinite(se2) || !isfinite(diff) || !isfinite(out->df) || !(out->df > 0)) {
		out->df = NAN;
		out->why = "the values are too large for a t-test (their variance overflows)";
		return;
	}
	out->valid = true;
	if (se2 > 0) {
		out->t = diff / sqrt(se2);
		out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	} else {
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->p = diff == 0 ? 1 : 0;
	}
	if (out->p > 1)
		out->p = 1;
	if (base->mean != 0)
		fieller(base->mean, v1, cur->mean, v2, gsl_cdf_tdist_Qinv((1 - conf) / 2, out->df),
			out);
}

struct pidx {
	double p;
	size_t i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

size_t stats_bh(const double *p, size_t m, double alpha, double *q)
{
	struct pidx *v = xmalloc((m ? m : 1) * sizeof(*v));
	size_t k = 0, nsig = 0;
	double run = 1;

	for (size_t i = 0; i < m; i++) {
		q[i] = NAN;
		if (!isnan(p[i]))
			v[k++] = (struct pidx){ p[i], i };
	}
	qsort(v, k, sizeof(*v), pidx_cmp);
	/* step-up: q_(j) = min over l >= j of p_(l) * k / l */
	for (size_t j = k; j-- > 0;) {
		double adj = v[j].p * (double)k / (double)(j + 1);

		if (adj < run)
			run = adj;
		q[v[j].i] = run;
		if (run < alpha)
			nsig++;
	}
	free(v);
	return nsig;
}

double stats_ci_halfwidth_rel(const double *x, size_t n, double conf)
{
	struct stats_summary s;

	stats_summarize(x, n, false, &s);
	if (s.n < 2 || s.mean == 0)
		return INFINITY;
	return gsl_cdf_tdist_Qinv((1 - conf) / 2, (double)(s.n - 1)) * s.stddev /
	       sqrt((double)s.n) / fabs(s.mean);
}

size_t stats_power_n(double cov, double effect, double alpha, double power)
{
	double ratio;

	if (!isfinite(cov) || !isfinite(effect) || !(effect > 0) || cov < 0 ||
	    !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return 0;
	ratio = cov / effect;
	for (size_t n = 2; n <= 1000000; n++) {
		double df = 2.0 * (double)n - 2;
		double z = gsl_cdf_tdist_Qinv(alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df);

		if ((double)n >= 2 * z * z * ratio * ratio)
			return n;
	}
	return 0;
}

double stats_mde(double cov, size_t n1, size_t n2, double alpha, double power)
{
	double df = (double)n1 + (double)n2 - 2;

	if (n1 < 2 || n2 < 2 || !isfinite(cov) || cov < 0 || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return NAN;
	return (gsl_cdf_tdist_Qinv(alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) * cov *
	       sqrt(1.0 / (double)n1 + 1.0 / (double)n2);
}
