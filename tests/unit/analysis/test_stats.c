// SPDX-License-Identifier: GPL-2.0
/* test_stats.c - lab/analysis/stats.c: summaries, Welch, Fieller, BH, power, MDE */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "analysis/stats.h"

#define EPS 1e-9

#define assert_near(a, b, eps)                                              \
	do {                                                                \
		double a_ = (a), b_ = (b);                                  \
		if (!(fabs(a_ - b_) <= (eps)))                              \
			fail_msg("%s = %.12g, expected %.12g", #a, a_, b_); \
	} while (0)

static void test_summary(void **state)
{
	const double x[] = { 3, 1, 5, 2, 4 };
	struct stats_summary s;

	(void)state;
	stats_summarize(x, 5, false, &s);
	assert_int_equal(s.n, 5);
	assert_near(s.mean, 3, EPS);
	assert_near(s.stddev, sqrt(2.5), EPS);
	assert_near(s.cov, 100 * sqrt(2.5) / 3, EPS);
	assert_near(s.min, 1, EPS);
	assert_near(s.max, 5, EPS);
	/* floor(0.95 * 5) = 4 best values: lower is better drops the 5 */
	assert_near(s.bamean95, 2.5, EPS);
	assert_near(s.hmean, 5 / (1 + 0.5 + 1 / 3.0 + 0.25 + 0.2), EPS);
	stats_summarize(x, 5, true, &s);
	assert_near(s.bamean95, 3.5, EPS);
}

static void test_summary_degenerate(void **state)
{
	const double x[] = { NAN, 7, INFINITY };
	const double neg[] = { -1, 2 };
	struct stats_summary s;

	(void)state;
	stats_summarize(x, 0, false, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.stddev) && isnan(s.bamean95));
	stats_summarize(x, 3, false, &s);
	assert_int_equal(s.n, 1);
	assert_near(s.mean, 7, EPS);
	assert_near(s.bamean95, 7, EPS);
	assert_true(isnan(s.stddev) && isnan(s.cov));
	stats_summarize(neg, 2, false, &s);
	assert_true(isnan(s.hmean));
}

static void sum(const double *x, size_t n, struct stats_summary *s)
{
	stats_summarize(x, n, false, s);
}

static void test_welch_known(void **state)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
	struct stats_summary sa, sb;
	struct stats_test t;

	(void)state;
	sum(a, 5, &sa);
	sum(b, 5, &sb);
	stats_welch(&sa, &sb, 0.95, &t);
	assert_true(t.valid);
	/* R: t.test(1:5, c(2,4,6,8,10)) -> t = -1.8974 (sign: b - a), df = 5.8824, p = 0.1075 */
	assert_near(t.t, 3 / sqrt(2.5), 1e-9);
	assert_near(t.df, 6.25 / 1.0625, 1e-9);
	assert_true(t.p > 0.105 && t.p < 0.110);
	assert_near(t.rel, 1.0, EPS);
	/* Fieller interval holds the point estimate and is wide here */
	assert_true(t.ci_low < 1.0 && t.ci_high > 1.0);
	assert_true(t.ci_low > -1 && t.ci_high < 10);
}

static void test_welch_degenerate(void **state)
{
	const double c5[] = { 5, 5, 5 }, c6[] = { 6, 6, 6 }, one[] = { 4 };
	const double zero[] = { 0, 0, 0 };
	struct stats_summary s5, s6, s1, s0;
	struct stats_test t;

	(void)state;
	sum(c5, 3, &s5);
	sum(c6, 3, &s6);
	sum(one, 1, &s1);
	sum(zero, 3, &s0);
	stats_welch(&s5, &s5, 0.95, &t);
	assert_true(t.valid);
	assert_near(t.p, 1, EPS);
	assert_near(t.df, 4, EPS);
	stats_welch(&s5, &s6, 0.95, &t);
	assert_near(t.p, 0, EPS);
	assert_near(t.ci_low, 0.2, EPS);
	assert_near(t.ci_high, 0.2, EPS);
	stats_welch(&s5, &s1, 0.95, &t);
	assert_false(t.valid);
	assert_non_null(t.why);
	assert_true(isnan(t.p));
	assert_near(t.rel, 4 / 5.0 - 1, EPS);
	stats_welch(&s0, &s5, 0.95, &t);
	assert_true(t.valid);
	assert_true(isnan(t.rel));
	assert_true(isnan(t.ci_low) && isnan(t.ci_high));
}

/*
 * issue 20: the samples CSV "a,m,-1e308 / a,m,0 / b,m,1 / b,m,2" (or a
 * guest's "elapsed_s -1e308") overflowed the variance; GSL's t
 * distribution then called its default error handler, which aborts.
 */
static void test_welch_overflow(void **state)
{
	const double huge[] = { -1e308, 0 }, small[] = { 1, 2 }, max[] = { 1.7e308, -1.7e308 };
	struct stats_summary a, b, m;
	struct stats_test t;

	(void)state;
	sum(huge, 2, &a);
	sum(small, 2, &b);
	sum(max, 2, &m);
	stats_welch(&a, &b, 0.95, &t);
	assert_false(t.valid);
	assert_non_null(strstr(t.why, "overflows"));
	assert_true(isnan(t.p));
	stats_welch(&b, &a, 0.95, &t);
	assert_false(t.valid);
	stats_welch(&m, &m, 0.95, &t);
	assert_false(t.valid);
}

static void test_bh(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double q[5];

	(void)state;
	assert_int_equal(stats_bh(p, 5, 0.05, q), 4);
	assert_near(q[0], 0.02, EPS);
	assert_near(q[1], 0.04, EPS);
	assert_near(q[2], 0.04, EPS);
	assert_near(q[3], 0.02, EPS);
	assert_true(isnan(q[4]));
	assert_int_equal(stats_bh(p, 5, 0.03, q), 2);
	assert_int_equal(stats_bh(p, 0, 0.05, q), 0);
}

static void test_power(void **state)
{
	(void)state;
	/* effect / CoV = 2: G*Power gives 6 per group for alpha .05, power .8 */
	assert_int_equal(stats_power_n(0.02, 0.04, 0.05, 0.8), 6);
	assert_true(stats_power_n(0.02, 0.02, 0.05, 0.8) > stats_power_n(0.02, 0.04, 0.05, 0.8));
	/* d = 0.5 (medium effect): about 64 per group */
	assert_in_range(stats_power_n(0.02, 0.01, 0.05, 0.8), 63, 65);
	assert_int_equal(stats_power_n(0, 0.02, 0.05, 0.8), 2);
	assert_int_equal(stats_power_n(0.02, 0, 0.05, 0.8), 0);
	assert_int_equal(stats_power_n(NAN, 0.02, 0.05, 0.8), 0);
}

static void test_mde(void **state)
{
	(void)state;
	/* n = 6 per side is what 4 % needs at CoV 2 %: 6 detects just under 4 % */
	assert_true(stats_mde(0.02, 6, 6, 0.05, 0.8) <= 0.04);
	assert_true(stats_mde(0.02, 5, 5, 0.05, 0.8) > 0.04);
	/* the inverse of stats_power_n() for equal n */
	for (size_t n = 2; n <= 40; n++) {
		double e = stats_mde(0.03, n, n, 0.05, 0.8);

		assert_int_equal(stats_power_n(0.03, e * 1.000001, 0.05, 0.8), n);
	}
	/* t_{.975,4} + t_{.8,4} = 2.776445 + 0.940965; sqrt(2/3) */
	assert_near(stats_mde(0.1, 3, 3, 0.05, 0.8),
		    (2.7764451051977987 + 0.94096457723) * 0.1 * sqrt(2.0 / 3), 1e-6);
	assert_near(stats_mde(0, 3, 3, 0.05, 0.8), 0, EPS);
	assert_true(stats_mde(0.1, 3, 4, 0.05, 0.8) < stats_mde(0.1, 3, 3, 0.05, 0.8));
	assert_true(isnan(stats_mde(0.1, 1, 3, 0.05, 0.8)));
	assert_true(isnan(stats_mde(NAN, 3, 3, 0.05, 0.8)));
}

static void test_halfwidth(void **state)
{
	const double c[] = { 10, 10, 10 }, x[] = { 9, 10, 11 };

	(void)state;
	assert_near(stats_ci_halfwidth_rel(c, 3, 0.95), 0, EPS);
	assert_true(isinf(stats_ci_halfwidth_rel(c, 1, 0.95)));
	/* t_{.975,2} = 4.3027; s = 1; mean 10 */
	assert_near(stats_ci_halfwidth_rel(x, 3, 0.95), 4.302652729911275 / sqrt(3) / 10, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),	       cmocka_unit_test(test_summary_degenerate),
		cmocka_unit_test(test_welch_known),    cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_welch_overflow), cmocka_unit_test(test_bh),
		cmocka_unit_test(test_power),	       cmocka_unit_test(test_mde),
		cmocka_unit_test(test_halfwidth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
