// SPDX-License-Identifier: GPL-2.0
/*
 * test_run_summary.c - the statistics of `mmlab run`'s summary
 * (lab/analysis/run_summary.c) over typed iteration records: the headline
 * metrics, ok/all, mean and sample standard deviation of the ok
 * iterations only, the observer check's mean.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/run_summary.h"
#include "store/iteration_record.h"

static const char its_json[] =
	"[{\"status\": \"ok\", \"metrics\": {\"time.elapsed_s\": 1, \"usemem.bw\": 10,"
	"   \"other.x\": 5}},"
	" {\"status\": \"ok\", \"metrics\": {\"time.elapsed_s\": 2, \"usemem.bw\": 20}},"
	" {\"status\": \"ok\", \"metrics\": {\"time.elapsed_s\": 3}},"
	" {\"status\": \"crashed\", \"metrics\": {\"time.elapsed_s\": 100, \"vmstat.pgfault\": 7}},"
	" 17]";

static void test_summary(void **state)
{
	json_t *j = json_loads(its_json, 0, NULL);
	struct iteration_record *its;
	struct run_summary_in in[2];
	struct run_summary s;
	size_t n, nok;

	(void)state;
	assert_non_null(j);
	assert_int_equal(iteration_records_from_json(j, &its, &n, "v"), 0);
	assert_int_equal(n, 5);
	in[0] = (struct run_summary_in){ .name = "a", .its = its, .n = n };
	in[1] = (struct run_summary_in){ .name = "b", .its = its, .n = 1 };
	run_summary_build(in, 2, "usemem", &s);
	/* other.x is no headline metric; vmstat.pgfault only in a crashed one */
	assert_int_equal(s.metrics.n, 2);
	assert_string_equal(s.metrics.v[0], "time.elapsed_s");
	assert_string_equal(s.metrics.v[1], "usemem.bw");
	assert_int_equal(s.vars[0].ok, 3);
	assert_int_equal(s.vars[0].all, 5);
	assert_int_equal(s.vars[0].cells[0].n, 3);
	assert_true(fabs(s.vars[0].cells[0].mean - 2) < 1e-12);
	assert_true(fabs(s.vars[0].cells[0].stddev - 1) < 1e-12);
	assert_int_equal(s.vars[0].cells[1].n, 2);
	assert_true(fabs(s.vars[0].cells[1].mean - 15) < 1e-12);
	assert_int_equal(s.vars[1].cells[0].n, 1);
	assert_true(isnan(s.vars[1].cells[0].stddev));
	assert_true(fabs(run_summary_mean(its, n, "time.elapsed_s", &nok) - 2) < 1e-12);
	assert_int_equal(nok, 3);
	assert_true(isnan(run_summary_mean(its, n, "vmstat.pgfault", &nok)));
	assert_int_equal(nok, 0);
	run_summary_release(&s);
	iteration_records_free(its, n);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
