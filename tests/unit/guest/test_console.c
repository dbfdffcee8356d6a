// SPDX-License-Identifier: GPL-2.0
/*
 * test_console.c - lab/guest/console.c: the crash excerpt, the tail, and
 * console text that is not UTF-8 still reaching iteration.json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/console.h"

/*
 * issue 20: json_string() returns NULL for invalid UTF-8, and the crash
 * excerpt and console tail were dropped from iteration.json.
 */
static void test_json_text(void **state)
{
	static const char bad[] = "ok \xff\xfe x \xc3\x28 \xe2\x82 \xed\xa0\x80 \xc0\xaf "
				  "\xf4\x90\x80\x80 end";
	static const char good[] = "caf\xc3\xa9 \xe2\x88\x92 \xf0\x9f\x98\x80\n\ttab";
	json_t *j;
	char *dump;

	(void)state;
	j = console_json_text(bad, sizeof(bad) - 1);
	assert_non_null(j);
	assert_non_null(strstr(json_string_value(j), "ok \xef\xbf\xbd\xef\xbf\xbd x "));
	assert_non_null(strstr(json_string_value(j), " end"));
	dump = json_dumps(j, JSON_ENCODE_ANY);
	assert_non_null(dump);
	json_decref(j);
	j = json_loads(dump, JSON_DECODE_ANY, NULL); /* what was written reads back */
	assert_non_null(j);
	json_decref(j);
	free(dump);
	j = console_json_text(good, sizeof(good) - 1);
	assert_string_equal(json_string_value(j), good);
	json_decref(j);
	j = console_json_text("a\0b\x1b[0m\r", 8);
	assert_string_equal(json_string_value(j), "a?b?[0m?");
	json_decref(j);
}

static void test_excerpt(void **state)
{
	static const char log[] = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
				  "[   1.0] BUG: kernel NULL pointer dereference\n"
				  "a1\na2\n"
				  "[   2.0] Kernel panic - not syncing\n";
	char *e, *t;

	(void)state;
	e = console_crash_excerpt(log, sizeof(log) - 1);
	assert_non_null(e);
	/* the lines before the first mark, as record.c always kept them */
	assert_non_null(strstr(e, "l4\nl5\nl6\nl7\nl8\n[   1.0] BUG:"));
	assert_null(strstr(e, "l3"));
	assert_non_null(strstr(e, "Kernel panic"));
	free(e);
	assert_null(console_crash_excerpt("all fine\n", 9));
	/* a mark after a NUL byte is still found; the NUL is shown as '?' */
	e = console_crash_excerpt("x\0y\nOops: 0000\n", 15);
	assert_non_null(e);
	assert_string_equal(e, "x?y\nOops: 0000\n");
	free(e);
	t = console_tail(log, sizeof(log) - 1, 10);
	assert_int_equal(strlen(t), 10);
	free(t);
	t = console_tail("short", 5, 10);
	assert_string_equal(t, "short");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_text),
		cmocka_unit_test(test_excerpt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
