// SPDX-License-Identifier: GPL-2.0
/*
 * test_iteration_record.c - iteration.json <-> struct iteration_record
 * (lab/store/iteration_record_json.c): an iteration as the runner writes
 * it reads into the typed fields and back to the same JSON; the bounds and
 * the refusals of what is not an iteration; store_iteration_read() over a
 * real store.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_text.h"
#include <jansson.h>

#include "store/iteration.h"
#include "store/iteration_record.h"
#include "store/store.h"
#include "lib/util.h"

/* an ok iteration of a run with a time series, as run/record.c writes it */
static const char ok_json[] =
	"{\"index\": 2, \"status\": \"ok\","
	" \"boot\": {\"domain\": \"mmlab-x\", \"outcome\": \"shutoff\", \"elapsed_s\": 12.5,"
	"   \"detail\": \"\", \"phases\": {\"collect\": 0.25, \"stage\": 1.5, \"store\": 0.01}},"
	" \"guest\": {\"kernel_release\": \"6.12.0\", \"boot_s\": 1.25,"
	"   \"nodes\": [{\"id\": 0, \"cpus\": \"0-1\", \"memory_kb\": 1048576},"
	"     {\"id\": 1, \"cpus\": \"\", \"memory_kb\": 524288}]},"
	" \"metrics\": {\"time.elapsed_s\": 1.75, \"vmstat.pgfault\": 1200, \"note\": \"x\"},"
	" \"timeseries\": {\"interval_s\": 1, \"samples\": 3,"
	"   \"series\": {\"vmstat.nr_free_pages\": [100, 90, null], \"vmstat.pgfault\": [1, 2, 3]}},"
	" \"log\": [\"agent up\"], \"stream\": {\"records\": 9, \"skipped_bytes\": 0}}";

/* a crashed iteration: a reason, an excerpt, no time series */
static const char crashed_json[] =
	"{\"index\": 0, \"status\": \"crashed\", \"reason\": \"the guest kernel crashed\","
	" \"console_excerpt\": \"BUG: x\", \"metrics\": {}}";

static void test_read_ok(void **state)
{
	json_t *in = json_text(ok_json);
	struct iteration_record r;
	const struct iter_series *s;

	(void)state;
	assert_int_equal(iteration_record_from_json(in, &r, "t"), 0);
	assert_int_equal(r.index, 2);
	assert_true(iteration_ok(&r));
	assert_null(r.reason);
	assert_string_equal(r.kernel_release, "6.12.0");
	assert_int_equal(r.nnodes, 2);
	assert_string_equal(r.nodes[0].cpus, "0-1");
	assert_int_equal(r.nodes[1].memory_kb, 524288);
	assert_int_equal(r.nphases, 3);
	assert_string_equal(r.phases[1].name, "stage");
	assert_true(r.phases[1].s == 1.5);
	/* the string is not a sample: left out */
	assert_true(r.has_metrics);
	assert_int_equal(r.nmetrics, 2);
	assert_true(iteration_metric(&r, "time.elapsed_s") == 1.75);
	assert_true(isnan(iteration_metric(&r, "note")));
	assert_true(r.ts.present);
	assert_true(r.ts.interval_s == 1);
	assert_int_equal(r.ts.samples, 3);
	assert_int_equal(r.ts.nseries, 2);
	s = iteration_series(&r, "vmstat.nr_free_pages");
	assert_non_null(s);
	assert_int_equal(s->n, 3);
	assert_true(s->v[1] == 90);
	assert_true(isnan(s->v[2]));
	assert_null(iteration_series(&r, "nope"));
	assert_null(r.mmtests);
	assert_null(r.console_excerpt);
	assert_true(r.metrics[1].integer);
	assert_int_equal(r.metrics[1].ivalue, 1200);
	assert_false(r.metrics[0].integer);
	iteration_record_release(&r);
	json_decref(in);
}

/* read and written back: the same document but for the non-numeric metric */
static void test_round_trip(void **state)
{
	static const char *const docs[] = { ok_json, crashed_json };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		json_t *in = json_text(docs[i]), *out, *again;
		struct iteration_record r, r2;

		assert_int_equal(iteration_record_from_json(in, &r, "t"), 0);
		out = iteration_record_to_json(&r);
		json_object_del(json_object_get(in, "metrics"), "note");
		assert_true(json_equal(in, out));
		assert_int_equal(iteration_record_from_json(out, &r2, "t"), 0);
		again = iteration_record_to_json(&r2);
		assert_true(json_equal(out, again));
		assert_int_equal(r2.nmetrics, r.nmetrics);
		assert_int_equal(r2.ts.nseries, r.ts.nseries);
		iteration_record_release(&r);
		iteration_record_release(&r2);
		json_decref(in);
		json_decref(out);
		json_decref(again);
	}
}

static void test_crashed_and_old_series(void **state)
{
	json_t *in = json_text(crashed_json);
	json_t *old = json_text("{\"status\": \"ok\", \"metrics\": {\"a\": 1},"
				" \"timeseries\": {\"x\": [1, 2], \"interval_s\": 2},"
				" \"mmtests\": {\"benchmark\": \"b\"}}");
	struct iteration_record r;

	(void)state;
	assert_int_equal(iteration_record_from_json(in, &r, "t"), 0);
	assert_false(iteration_ok(&r));
	assert_string_equal(r.reason, "the guest kernel crashed");
	assert_string_equal(r.console_excerpt, "BUG: x");
	assert_false(r.ts.present);
	assert_int_equal(r.nmetrics, 0);
	iteration_record_release(&r);
	/* a series object stored alone, as an older run did; an mmtests import */
	assert_int_equal(iteration_record_from_json(old, &r, "t"), 0);
	assert_true(r.ts.present);
	assert_int_equal(r.ts.nseries, 1);
	assert_string_equal(r.ts.series[0].name, "x");
	assert_true(r.ts.interval_s == 2);
	assert_non_null(r.mmtests);
	assert_string_equal(json_string_value(json_object_get(r.mmtests, "benchmark")), "b");
	iteration_record_release(&r);
	json_decref(in);
	json_decref(old);
}

static void refused(const char *text)
{
	json_t *j = json_text(text);
	struct iteration_record r;

	assert_int_equal(iteration_record_from_json(j, &r, "t"), -1);
	assert_null(r.rest);
	assert_null(r.metrics);
	json_decref(j);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("[1, 2]");
	refused("\"ok\"");
	refused("{\"status\": \"ok\", \"index\": -1}");
	refused("{\"status\": \"ok\", \"index\": \"2\"}");
	refused("{\"status\": \"ok\", \"index\": 1000001}");
}

/* values of another type than written: left out, as the readers did */
static void test_odd_values(void **state)
{
	json_t *j =
		json_text("{\"status\": 3, \"metrics\": [1], \"timeseries\": [1],"
			  " \"guest\": {\"nodes\": 4}, \"boot\": {\"phases\": {\"a\": \"x\"}}}");
	struct iteration_record r;

	(void)state;
	assert_int_equal(iteration_record_from_json(j, &r, "t"), 0);
	assert_null(r.status);
	assert_false(iteration_ok(&r));
	assert_false(r.has_metrics);
	assert_false(r.ts.present);
	assert_int_equal(r.nnodes, 0);
	assert_int_equal(r.nphases, 0);
	iteration_record_release(&r);
	json_decref(j);
}

/* a document past a bound is refused, not truncated */
static void test_bounds(void **state)
{
	json_t *j = json_text("{\"status\": \"ok\", \"metrics\": {}}");
	json_t *ts = json_object(), *series = json_object(), *a = json_array();
	struct iteration_record r;
	char *longname = xcalloc(ITER_MAX_NAME + 2, 1);

	(void)state;
	memset(longname, 'm', ITER_MAX_NAME + 1);
	json_object_set_new(json_object_get(j, "metrics"), longname, json_integer(1));
	assert_int_equal(iteration_record_from_json(j, &r, "t"), -1);
	json_object_del(json_object_get(j, "metrics"), longname);
	assert_int_equal(iteration_record_from_json(j, &r, "t"), 0);
	iteration_record_release(&r);

	for (size_t k = 0; k <= ITER_MAX_POINTS / 2; k++)
		json_array_append_new(a, json_integer((json_int_t)k));
	json_object_set(series, "a", a);
	json_object_set_new(series, "b", a);
	json_object_set_new(ts, "series", series);
	json_object_set_new(j, "timeseries", ts);
	assert_int_equal(iteration_record_from_json(j, &r, "t"), -1);
	json_object_del(series, "b");
	assert_int_equal(iteration_record_from_json(j, &r, "t"), 0);
	assert_int_equal(r.ts.series[0].n, ITER_MAX_POINTS / 2 + 1);
	iteration_record_release(&r);
	free(longname);
	json_decref(j);
}

static void test_store_read(void **state)
{
	char dir[] = "/tmp/mmlab-test-iter-XXXXXX";
	json_t *in = json_text(ok_json);
	struct iteration_record r;
	struct store *s;
	char *run;

	(void)state;
	assert_non_null(mkdtemp(dir));
	s = store_open(dir);
	assert_non_null(s);
	run = store_run_create(s, "t");
	assert_int_equal(store_iteration_write(s, run, "base", 2, in), 0);
	assert_int_equal(store_iteration_read(s, run, "base", 2, &r), 0);
	assert_int_equal(r.index, 2);
	assert_true(iteration_metric(&r, "vmstat.pgfault") == 1200);
	assert_int_equal(r.ts.nseries, 2);
	iteration_record_release(&r);
	/* missing, a bad name */
	assert_int_equal(store_iteration_read(s, run, "base", 3, &r), -1);
	assert_int_equal(store_iteration_read(s, run, "../x", 2, &r), -1);
	free(run);
	json_decref(in);
	store_close(s);
	rm_rf(dir);
}

/* what an import takes for an iteration: a status string and a metrics object */
static void test_has_result(void **state)
{
	static const char *const no[] = {
		"[]",
		"{}",
		"{\"status\": \"ok\"}", /* no metrics */
		"{\"metrics\": {}}", /* no status */
		"{\"status\": 1, \"metrics\": {}}",
		"{\"status\": \"ok\", \"metrics\": []}",
		"{\"status\": null, \"metrics\": {}}",
	};
	json_t *j;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		j = json_text(no[i]);
		assert_false(iteration_json_has_result(j));
		json_decref(j);
	}
	assert_false(iteration_json_has_result(NULL));
	j = json_text("{\"status\": \"crashed\", \"metrics\": {}, \"other\": 1}");
	assert_true(iteration_json_has_result(j));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_ok),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_crashed_and_old_series),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_odd_values),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_store_read),
		cmocka_unit_test(test_has_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
