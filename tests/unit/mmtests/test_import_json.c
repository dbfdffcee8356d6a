// SPDX-License-Identifier: GPL-2.0
/*
 * test_import_json.c - extract-mmtests.pl's JSON read into struct
 * mmtests_extract (lab/mmtests/import_json.c): the samples pooled over
 * mmtests' iterations, numbers as strings taken, and what is not a sample
 * or not a result refused, bounded; and the directions read back from an
 * iteration's import record (mmtests_direction()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mmtests/import_json.h"
#include "mmtests/mmtests.h"
#include "json_text.h"

static void test_read(void **state)
{
	json_t *doc = json_loads("{\"_PreferredVal\": \"Higher\", \"_ResultData\": {"
				 " \"add-1\": [{\"Values\": [1, \"3\"]}, {\"Values\": [5]}],"
				 " \"none\": [{\"Values\": [\"x\", null, \"1e999\", \"\", {}]}],"
				 " \"copy-2\": [{\"Values\": [\"2.5\"]}, {\"Other\": [9]}, 7]}}",
				 0, NULL);
	struct mmtests_extract x;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(mmtests_extract_read(doc, &x), 0);
	assert_true(x.higher);
	assert_int_equal(x.nops, 2); /* "none" has no sample */
	assert_int_equal(x.samples, 4);
	assert_string_equal(x.ops[0].name, "add-1");
	assert_true(x.ops[0].mean == 3.0);
	assert_int_equal(x.ops[0].samples, 3);
	assert_string_equal(x.ops[1].name, "copy-2");
	assert_true(x.ops[1].mean == 2.5);
	mmtests_extract_free(&x);
	json_decref(doc);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"_ResultData\": []}",
		"{\"_ResultData\": \"x\"}",
		"[]",
	};
	struct mmtests_extract x;
	json_t *doc, *data;
	char name[32];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doc = json_loads(bad[i], 0, NULL);
		assert_non_null(doc);
		assert_int_equal(mmtests_extract_read(doc, &x), -1);
		mmtests_extract_free(&x);
		json_decref(doc);
	}
	assert_int_equal(mmtests_extract_read(NULL, &x), -1);
	mmtests_extract_free(&x);
	/* lower is better unless mmtests says "Higher"; at most MMTESTS_MAX_OPS */
	data = json_object();
	for (int i = 0; i < MMTESTS_MAX_OPS + 5; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		json_object_set_new(data, name, json_pack("[{s:[i]}]", "Values", i));
	}
	doc = json_pack("{s:s, s:o}", "_PreferredVal", "higher", "_ResultData", data);
	assert_int_equal(mmtests_extract_read(doc, &x), 0);
	assert_false(x.higher);
	assert_int_equal(x.nops, MMTESTS_MAX_OPS);
	mmtests_extract_free(&x);
	json_decref(doc);
}

/* the direction of "mmtests.<bench>.<op>", NULL where the record does not say */
static void test_direction(void **state)
{
	json_t *imp = json_text("{\"log\": \"mmtests/\", \"benchmarks\": {"
				"\"pft\": {\"operations\": 2, \"preferred\": \"Higher\"},"
				"\"pf\": {\"preferred\": \"Lower\"},"
				"\"dd\": {\"operations\": 1},"
				"\"ebizzy\": {\"preferred\": 1}}}");
	json_t *bad = json_text("{\"benchmarks\": [\"pft\"]}");

	(void)state;
	assert_string_equal(mmtests_direction(imp, "mmtests.pft.faults-1"), "Higher");
	assert_string_equal(mmtests_direction(imp, "mmtests.pf.x"), "Lower");
	assert_null(mmtests_direction(imp, "mmtests.dd.x")); /* no "preferred" */
	assert_null(mmtests_direction(imp, "mmtests.ebizzy.x")); /* not a string */
	assert_null(mmtests_direction(imp, "mmtests.pftx")); /* no such benchmark */
	assert_null(mmtests_direction(imp, "pft.faults")); /* not an mmtests metric */
	assert_null(mmtests_direction(bad, "mmtests.pft.x")); /* benchmarks not an object */
	assert_null(mmtests_direction(NULL, "mmtests.pft.x"));
	json_decref(imp);
	json_decref(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
