// SPDX-License-Identifier: GPL-2.0
/*
 * test_precision.c - lab/analysis/precision.c (the stopping rule of
 * `mmlab run --until-significant`) and lab/lib/order.c (the seeded run order).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/order.h"
#include "analysis/precision.h"
#include "analysis/stats.h"
#include "store/iteration_record.h"
#include "lib/util.h"

/* a run of two variants with the samples given per variant for metric m */
static json_t *run_with(const char *m, const double *a, size_t na, const double *b, size_t nb)
{
	json_t *vars = json_array();
	const double *x[2] = { a, b };
	size_t n[2] = { na, nb };

	for (int v = 0; v < 2; v++) {
		json_t *its = json_array();

		for (size_t i = 0; i < n[v]; i++)
			json_array_append_new(its, json_pack("{s:s, s:{s:f, s:f}}", "status", "ok",
							     "metrics", m, x[v][i], "other",
							     1.0 + (double)i));
		/* a failed iteration with a wild value must not count */
		json_array_append_new(its, json_pack("{s:s, s:{s:f}}", "status", "failed",
						     "metrics", m, 1e9));
		json_array_append_new(vars, json_pack("{s:s, s:o}", "name", v ? "new" : "base",
						      "iterations", its));
	}
	return json_pack("{s:s, s:o}", "run", "r", "variants", vars);
}

/*
 * precision_check() over the variants of a run's JSON (the shape results
 * show --json prints), read as records here as the store reads them
 */
static int check(const json_t *run, const struct precision_opts *o, struct precision_result *d)
{
	const json_t *vars = json_object_get(run, "variants");
	struct precision_var pv[2] = { 0 };
	struct iteration_record *its;
	size_t nv = json_array_size(vars);
	int rc;

	assert_true(nv <= 2);
	for (size_t i = 0; i < nv; i++) {
		const json_t *v = json_array_get(vars, i);

		pv[i].name = json_string_value(json_object_get(v, "name"));
		assert_int_equal(iteration_records_from_json(json_object_get(v, "iterations"), &its,
							     &pv[i].n, "test"),
				 0);
		pv[i].its = its;
	}
	rc = precision_check(pv, nv, o, d);
	for (size_t i = 0; i < nv; i++)
		iteration_records_free((struct iteration_record *)pv[i].its, pv[i].n);
	return rc;
}

static void test_reached_and_not(void **state)
{
	/* mean 100, s = 0.71: halfwidth t(.975,4) * s/sqrt(5)/100 = 0.88 % */
	static const double tight[] = {
		99, 100, 101, 100, 100 - 0.0,
	};
	static const double loose[] = { 90, 110, 95, 105, 100 };
	struct precision_opts o = { .globs = "time.elapsed_s", .precision = 0.02, .conf = 0.95 };
	struct precision_result d;
	json_t *run;
	double expect;

	(void)state;
	run = run_with("time.elapsed_s", tight, 5, tight, 5);
	assert_int_equal(check(run, &o, &d), 1);
	assert_int_equal(d.n, 2);
	expect = stats_ci_halfwidth_rel(tight, 5, 0.95);
	assert_true(fabs(d.e[d.worst].halfwidth_rel - expect) < 1e-12);
	assert_int_equal(d.e[d.worst].n, 5);
	precision_result_release(&d);
	o.precision = 0.008; /* 0.88 % is not below 0.8 % */
	assert_int_equal(check(run, &o, NULL), 0);
	json_decref(run);

	/* one loose variant is enough to go on; it is the worst */
	o.precision = 0.02;
	run = run_with("time.elapsed_s", tight, 5, loose, 5);
	assert_int_equal(check(run, &o, &d), 0);
	assert_string_equal(d.e[d.worst].variant, "new");
	precision_result_release(&d);
	json_decref(run);
}

static void test_degenerate(void **state)
{
	static const double one[] = { 5 };
	static const double zeros[] = { 0, 0, 0 };
	static const double two[] = { 4, 6 };
	struct precision_opts o = { .globs = "x.*", .precision = 0.05, .conf = 0.95 };
	struct precision_result d;
	json_t *run, *j;

	(void)state;
	/* n = 1 in a variant: no interval, not precise */
	run = run_with("x.a", one, 1, two, 2);
	assert_int_equal(check(run, &o, &d), 0);
	assert_true(isnan(d.e[d.worst].halfwidth_rel));
	/* run.json records it as null: jansson has no infinite reals */
	j = precision_entry_json(&d.e[d.worst]);
	assert_true(json_is_null(json_object_get(j, "halfwidth_rel")));
	assert_true(json_is_integer(json_object_get(j, "n")));
	json_decref(j);
	j = precision_result_json(&d);
	assert_int_equal(json_array_size(j), d.n);
	json_decref(j);
	precision_result_release(&d);
	json_decref(run);
	/* a metric that is always 0 is exact, not infinitely imprecise */
	run = run_with("x.a", zeros, 3, zeros, 3);
	assert_int_equal(check(run, &o, NULL), 1);
	json_decref(run);
	/* no target metric at all */
	o.globs = "nothing.*";
	run = run_with("x.a", zeros, 3, zeros, 3);
	assert_int_equal(check(run, &o, &d), -1);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.worst, d.n);
	precision_result_release(&d);
	/* a variant without the metric: not precise (n = 0) */
	o.globs = "x.a, other";
	assert_int_equal(check(run, &o, NULL), 0);
	json_decref(run);
	/* the default targets are time.elapsed_s and time.system_s */
	o.globs = NULL;
	run = run_with("time.system_s", two, 2, two, 2);
	assert_int_equal(check(run, &o, &d), 0);
	assert_string_equal(d.e[d.worst].metric, "time.system_s");
	precision_result_release(&d);
	json_decref(run);
}

static void test_order(void **state)
{
	/* pinned: recorded seeds must keep reproducing recorded orders */
	static const size_t seed1[6] = { 1, 0, 3, 5, 4, 2 };
	size_t p[6], q[6], count[6] = { 0 };
	size_t first_pos[6] = { 0 };

	(void)state;
	order_permute(p, 6, 1);
	assert_memory_equal(p, seed1, sizeof(p));
	order_permute(q, 6, 1);
	assert_memory_equal(p, q, sizeof(p));
	for (int i = 0; i < 6; i++)
		count[p[i]]++;
	for (int i = 0; i < 6; i++)
		assert_int_equal(count[i], 1);
	order_permute(q, 6, 2);
	assert_memory_not_equal(p, q, sizeof(p));
	order_permute(p, 1, 7);
	assert_int_equal(p[0], 0);
	order_permute(p, 0, 7);

	/* uniform: over many seeds, each item lands in each place ~1/6 */
	for (unsigned long s = 0; s < 6000; s++) {
		order_permute(p, 6, s);
		for (int i = 0; i < 6; i++)
			first_pos[i] += p[i] == 0;
	}
	for (int i = 0; i < 6; i++)
		assert_true(first_pos[i] > 850 && first_pos[i] < 1150);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reached_and_not),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
