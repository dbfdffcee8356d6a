/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the statistics behind `mmlab compare`: summaries of a sample,
 * Welch's t-test with the Welch-Satterthwaite degrees of freedom, a Fieller
 * confidence interval of the ratio of means, Benjamini-Hochberg, and power
 * (iterations needed). Distributions come from GSL. Formulas: docs/compare.md.
 *
 * NaN values in a sample are ignored (they mark a metric missing in one
 * iteration); every function is defined for n = 0, n = 1 and zero variance.
 */
#ifndef MMLAB_STATS_H
#define MMLAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n; /* finite values used */
	double mean; /* arithmetic mean */
	double stddev; /* sample standard deviation (n - 1); NaN if n < 2 */
	double cov; /* 100 * stddev / |mean| (percent); NaN if undefined */
	double min, max;
	double bamean95; /* mean of the best floor(0.95 n) values (at least 1) */
	double hmean; /* harmonic mean; NaN unless every value > 0 */
};

/*
 * Summarise x[0..n). higher_better decides which 5 % BAmean-95 drops (the
 * smallest values when higher is better, the largest otherwise).
 * Values that are NaN or infinite are skipped. Never fails.
 */
void stats_summarize(const double *x, size_t n, bool higher_better, struct stats_summary *s);

struct stats_test {
	bool valid; /* false: no test possible, see why */
	const char *why; /* static text when !valid ("n < 2 in baseline") */
	double t, df, p; /* Welch t statistic, W-S df, two-sided p */
	double rel; /* mean_new / mean_base - 1; NaN if base mean is 0 */
	double ci_low, ci_high; /* CI of rel (Fieller); +-INFINITY if unbounded */
};

/*
 * Welch's two-sample t-test of new against base, and the conf (e.g. 0.95)
 * Fieller interval of mean_new / mean_base - 1. Zero variance on both sides:
 * p = 1 when the means are equal, 0 otherwise (df = n1 + n2 - 2).
 */
void stats_welch(const struct stats_summary *base, const struct stats_summary *cur, double conf,
		 struct stats_test *out);

/*
 * Benjamini-Hochberg: q[i] = adjusted p-value of p[i]; NaN p values are not
 * part of the family and get NaN. Returns the number of q[i] < alpha.
 */
size_t stats_bh(const double *p, size_t m, double alpha, double *q);

/*
 * Relative half-width of the conf confidence interval of the mean of
 * x[0..n): t_{(1+conf)/2, n-1} * s / sqrt(n) / |mean|. INFINITY when n < 2
 * or the mean is 0. For `mmlab run --until-significant --precision`.
 */
double stats_ci_halfwidth_rel(const double *x, size_t n, double conf);

/*
 * Iterations per variant needed for a two-sided Welch test at alpha to detect
 * a relative change effect (0.02 = 2 %) with the given power, when the
 * coefficient of variation (stddev / |mean|, a fraction) is cov:
 * the smallest n with n >= 2 (t_{1-alpha/2,df} + t_{power,df})^2 cov^2 /
 * effect^2, df = 2n - 2. Returns 0 when effect or cov is not positive and
 * finite; at least 2.
 */
size_t stats_power_n(double cov, double effect, double alpha, double power);

/*
 * The other way round: the smallest relative change (a fraction) a
 * two-sided Welch test at alpha detects with the given power when the two
 * sides have n1 and n2 samples and coefficient of variation cov (a
 * fraction): (t_{1-alpha/2,df} + t_{power,df}) * cov * sqrt(1/n1 + 1/n2),
 * df = n1 + n2 - 2. For n1 = n2 = n this is the effect at which
 * stats_power_n() gives n. NaN when n1 or n2 < 2 or cov is not finite.
 */
double stats_mde(double cov, size_t n1, size_t n2, double alpha, double power);

#endif
