// SPDX-License-Identifier: GPL-2.0
/*
 * test_rewrite_json.c - a derived variant's set read into struct
 * job_rewrite_set (lab/job/rewrite_json.c): each key as it is given, one of
 * the wrong type not used but still replacing the variant's own, a missing
 * one absent; and what job_rewrite_yaml() makes of that.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "job/rewrite.h"
#include "json_text.h"

static void test_read(void **state)
{
	json_t *j = json_text("{\"kernel\": {\"package\": \"linux-image\"}, \"ref\": \"v6.1\", "
			      "\"cmdline\": \"a=1\", \"sysctl\": {\"vm.swappiness\": 0}, "
			      "\"thp\": {\"enabled\": \"never\"}}");
	struct job_rewrite_set s;

	(void)state;
	job_rewrite_set_read(j, &s);
	assert_true(json_is_object(s.kernel));
	assert_string_equal(json_string_value(s.ref), "v6.1");
	assert_string_equal(s.cmdline, "a=1");
	assert_true(json_is_object(s.sysctl) && json_is_object(s.thp));
	assert_true(s.has_sysctl && s.has_thp && s.has_cmdline);
	json_decref(j);
}

static void test_wrong_type_and_missing(void **state)
{
	json_t *j = json_text("{\"sysctl\": \"vm.swappiness=0\", \"cmdline\": 1}");
	struct job_rewrite_set s;

	(void)state;
	job_rewrite_set_read(j, &s);
	assert_null(s.sysctl); /* not an object */
	assert_true(s.has_sysctl);
	assert_null(s.cmdline); /* not a string */
	assert_true(s.has_cmdline);
	assert_null(s.thp); /* missing */
	assert_false(s.has_thp);
	assert_null(s.kernel);
	assert_null(s.ref);
	json_decref(j);
	job_rewrite_set_read(NULL, &s);
	assert_false(s.has_sysctl || s.has_thp || s.has_cmdline || s.kernel || s.ref);
}

/* a sysctl of the wrong type drops the variant's own and adds none */
static void test_yaml(void **state)
{
	static const char job[] = "name: j\n"
				  "variants:\n"
				  "  - name: base\n"
				  "    cmdline: quiet\n"
				  "    sysctl: {vm.swappiness: 10}\n";
	json_t *set = json_text("{\"sysctl\": \"x\", \"cmdline\": \"a=1\"}");
	struct job_rewrite_variant v = { .name = "c", .from = 0, .set = set };
	struct job_rewrite rw = { .name = "d", .variants = &v, .nvariants = 1 };
	char err[256], *y;

	(void)state;
	y = job_rewrite_yaml(job, strlen(job), &rw, err, sizeof(err));
	assert_non_null(y);
	assert_null(strstr(y, "swappiness"));
	assert_non_null(strstr(y, "quiet a=1"));
	free(y);
	json_decref(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_wrong_type_and_missing),
		cmocka_unit_test(test_yaml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
