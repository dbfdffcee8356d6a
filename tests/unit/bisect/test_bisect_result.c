// SPDX-License-Identifier: GPL-2.0
/*
 * test_bisect_result.c - a bisection's result (bisect/result_json.h) and
 * a step's data (bisect/step_json.h) read from their JSON: written again
 * the same, printed, and refused when a field is of the wrong kind or an
 * array too long.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bisect/result_json.h"
#include "bisect/session.h"
#include "bisect/step_json.h"
#include "lib/util.h"
#include "json_text.h"

static json_t *metric_result(void)
{
	return json_pack(
		"{s:s, s:{s:s, s:s, s:s, s:s}, s:[], s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, "
		"s:f}, {s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:n}], s:I, s:I, s:f, s:I, s:I, s:s, "
		"s:s, s:s}",
		"mode", "metric", "first", "commit", "c5c5", "subject", "c5: slower", "author",
		"A <a@b>", "date", "2026-01-01T00:00:00Z", "candidates", "steps", "commit", "c1c1",
		"short", "c1c", "subject", "c1", "role", "good", "verdict", "good", "why",
		"the good endpoint", "iterations", 3, "mean", 100.0, "ci95", 2.5, "commit", "c5c5",
		"short", "c5c", "subject", "c5: slower", "role", "bad", "verdict", "bad",
		"iterations", 3, "mean", 120.0, "ci95", "builds", (json_int_t)2, "vm_runs",
		(json_int_t)6, "wall_s", 125.0, "range_commits", (json_int_t)5, "log2_range",
		(json_int_t)3, "looked_for", "vmstat.x", "confidence", "high", "term", "bad");
}

static void test_round_trip(void **state)
{
	json_t *res = metric_result(), *again;
	struct bisect_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(bisect_result_from_json(res, &r), 0);
	assert_true(r.has_first);
	assert_string_equal(r.first_commit, "c5c5");
	assert_int_equal(r.nrows, 2);
	assert_true(r.rows[0].has_mean);
	assert_true(r.rows[0].ci95 == 2.5);
	assert_true(isnan(r.rows[1].ci95));
	assert_int_equal(r.builds, 2);
	again = bisect_result_to_json(&r);
	assert_true(json_equal(res, again));
	f = open_memstream(&text, &len);
	bisect_print_result(f, &r);
	fclose(f);
	assert_non_null(strstr(text, "first bad commit: c5c5 c5: slower\n"));
	assert_non_null(strstr(text, "  author A <a@b>, 2026-01-01T00:00:00Z\n"));
	assert_non_null(strstr(text, "100 ± 2.5"));
	assert_non_null(strstr(text, "120 ± 0 "));
	assert_non_null(strstr(text, "2 kernel builds, 6 VM runs, 2 min 5 s"));
	assert_non_null(strstr(text, "5 commits in the range, ceil(log2) = 3\n"));
	free(text);
	bisect_result_release(&r);
	json_decref(again);

	/* signature mode, no first: the candidates */
	json_object_set_new(res, "mode", json_string("signature"));
	json_object_set_new(res, "first", json_null());
	json_object_set_new(res, "candidates", json_pack("[s, s]", "aaaaaaa", "bbbbbbb"));
	json_object_set_new(res, "steps",
			    json_pack("[{s:s, s:s, s:s, s:i, s:i}]", "commit", "c1", "short", "c1",
				      "role", "good", "iterations", 3, "met", 0));
	assert_int_equal(bisect_result_from_json(res, &r), 0);
	assert_false(r.has_first);
	again = bisect_result_to_json(&r);
	assert_true(json_equal(res, again));
	text = NULL;
	f = open_memstream(&text, &len);
	bisect_print_result(f, &r);
	fclose(f);
	assert_non_null(strstr(text, "it is one of:\n  aaaaaaa\n  bbbbbbb\n"));
	assert_non_null(strstr(text, "in 0"));
	free(text);
	bisect_result_release(&r);
	json_decref(again);
	json_decref(res);
}

/* a copy of the metric result with key set to v in it (or in its first row) */
static int read_with(bool in_row, const char *key, json_t *v)
{
	json_t *res = metric_result();
	json_t *o = in_row ? json_array_get(json_object_get(res, "steps"), 0) : res;
	struct bisect_result r;
	int ret;

	json_object_set_new(o, key, v);
	ret = bisect_result_from_json(res, &r);
	if (ret)
		assert_null(r.rows);
	bisect_result_release(&r);
	json_decref(res);
	return ret;
}

static void test_refuses(void **state)
{
	json_t *many = json_array();
	struct bisect_result r;

	(void)state;
	assert_int_equal(read_with(false, "extra", json_true()), 0);
	assert_int_equal(read_with(false, "mode", json_integer(1)), -1);
	assert_int_equal(read_with(false, "wall_s", json_string("1")), -1);
	assert_int_equal(read_with(false, "builds", json_integer(-1)), -1);
	assert_int_equal(read_with(false, "first", json_string("c5")), -1);
	assert_int_equal(read_with(false, "candidates", json_pack("[i]", 1)), -1);
	assert_int_equal(read_with(false, "steps", json_object()), -1);
	assert_int_equal(read_with(false, "looked_for", json_integer(1)), -1);
	assert_int_equal(read_with(true, "iterations", json_integer(1ll << 40)), -1);
	assert_int_equal(read_with(true, "mean", json_string("100")), -1);
	assert_int_equal(read_with(true, "role", json_false()), -1);
	/* at most 100000 rows */
	for (int i = 0; i <= 100000; i++)
		json_array_append_new(many, json_object());
	assert_int_equal(read_with(false, "steps", many), -1);
	assert_int_equal(bisect_result_from_json(json_null(), &r), -1);
}

static void test_step_data(void **state)
{
	json_t *j = json_pack("{s:[s, s], s:[s, s, s], s:[f, f], s:i, s:i, s:i, s:i, s:i, s:i, "
			      "s:b, s:s, s:f, s:s, s:s, s:f}",
			      "runs", "r0", "r1", "statuses", "ok", "ok", "crashed", "values", 1.5,
			      2.5, "met", 1, "not_met", 2, "unknown", 3, "missing", 4, "builds", 5,
			      "vm_runs", 6, "build_failed", 1, "build_log", "/l", "wall_s", 7.5,
			      "verdict", "good", "why", "because", "p_wrong", 0.01);
	json_t *again, *bad, *many = json_array();
	struct step_data d;

	(void)state;
	assert_int_equal(step_data_from_json(j, &d), 0);
	assert_int_equal(d.statuses.n, 3);
	assert_int_equal(d.nvalues, 2);
	assert_true(d.values[1] == 2.5);
	assert_int_equal(d.vm_runs, 6);
	assert_true(d.build_failed);
	assert_true(d.has_p_wrong);
	again = step_data_to_json(&d);
	assert_true(json_equal(j, again));
	json_decref(again);
	step_data_release(&d);
	/* no data yet: an empty step */
	assert_int_equal(step_data_from_json(json_null(), &d), 0);
	assert_int_equal(d.statuses.n, 0);
	assert_false(d.has_runs);
	step_data_release(&d);
	/* refused: each field of the wrong kind, and more values than a step has */
	static const char *const keys[] = { "runs",   "statuses",     "values",
					    "met",    "build_failed", "build_log",
					    "wall_s", "verdict",      "p_wrong" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		bad = json_deep_copy(j);
		json_object_set_new(bad, keys[i], json_object());
		assert_int_equal(step_data_from_json(bad, &d), -1);
		assert_null(d.values);
		json_decref(bad);
	}
	bad = json_deep_copy(j);
	json_object_set_new(bad, "met", json_integer(-1));
	assert_int_equal(step_data_from_json(bad, &d), -1);
	json_decref(bad);
	for (unsigned int i = 0; i <= 1000000; i++)
		json_array_append_new(many, json_real(1));
	json_object_set_new(j, "values", many);
	assert_int_equal(step_data_from_json(j, &d), -1);
	json_decref(j);
	j = json_array();
	assert_int_equal(step_data_from_json(j, &d), -1);
	json_decref(j);
}

/* a step's row (bstore_steps(), the log's step lines): what is not of its type is absent */
static void test_step_row(void **state)
{
	json_t *j = json_text("{\"seq\": 3, \"commit\": \"abc\", \"role\": \"step\", "
			      "\"state\": \"done\", \"data\": {\"verdict\": \"bad\"}, "
			      "\"started\": 10.5, \"finished\": 12}");
	struct step_row r;

	(void)state;
	step_row_from_json(j, &r);
	assert_string_equal(r.commit, "abc");
	assert_string_equal(r.role, "step");
	assert_string_equal(r.state, "done");
	assert_true(json_is_object(r.data));
	assert_true(r.started == 10.5 && r.finished == 12);
	json_decref(j);
	j = json_text("{\"commit\": 7, \"state\": null, \"started\": \"10\"}");
	step_row_from_json(j, &r);
	assert_null(r.commit); /* the wrong type */
	assert_null(r.role); /* missing */
	assert_null(r.state);
	assert_null(r.data);
	assert_true(r.started == 0 && r.finished == 0);
	json_decref(j);
}

/* a refusal stored as the result, and its why read back */
static void test_refusal(void **state)
{
	json_t *j = bisect_refusal_json("no difference");

	(void)state;
	assert_string_equal(bisect_refusal_why(j), "no difference");
	json_decref(j);
	j = json_text("{\"refused\": 1}");
	assert_null(bisect_refusal_why(j));
	json_decref(j);
	j = json_text("{\"first\": null}");
	assert_null(bisect_refusal_why(j));
	json_decref(j);
	assert_null(bisect_refusal_why(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip), cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_step_data),  cmocka_unit_test(test_step_row),
		cmocka_unit_test(test_refusal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
