// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lab/lib/util.c: sizes, integers, files, hashing, processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/util.h"

static void test_parse_size(void **state)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t out;
	} cases[] = {
		{ "0", 0, 0 },
		{ "4096", 0, 4096 },
		{ "1K", 0, 1024 },
		{ "1k", 0, 1024 },
		{ "256M", 0, 256ULL << 20 },
		{ "2G", 0, 2ULL << 30 },
		{ "1T", 0, 1ULL << 40 },
		{ "512MiB", 0, 512ULL << 20 },
		{ "512MB", 0, 512ULL << 20 },
		{ "100B", 0, 100 },
		{ "", -1, 0 },
		{ "M", -1, 0 },
		{ "-1M", -1, 0 },
		{ "1.5G", -1, 0 },
		{ "1X", -1, 0 },
		{ "1MM", -1, 0 },
		{ " 1M", -1, 0 },
		{ "1M ", -1, 0 },
		{ "99999999999999999999", -1, 0 },
		{ "17179869184G", -1, 0 },
		{ "1iB", -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t v = 12345;
		int r = parse_size(cases[i].in, &v);

		if (r != cases[i].ret)
			fail_msg("parse_size(\"%s\") returned %d", cases[i].in, r);
		if (r == 0 && v != cases[i].out)
			fail_msg("parse_size(\"%s\") = %llu", cases[i].in, (unsigned long long)v);
	}
}

static void test_parse_uint(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_uint("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_uint("18446744073709551616", &v), -1);
	assert_int_equal(parse_uint("12a", &v), -1);
	assert_int_equal(parse_uint("", &v), -1);
	assert_int_equal(parse_uint("+1", &v), -1);
}

static void test_fmt_size(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fmt_size(512, buf, sizeof(buf)), "512");
	assert_string_equal(fmt_size(256ULL << 20, buf, sizeof(buf)), "256M");
	assert_string_equal(fmt_size(3ULL << 29, buf, sizeof(buf)), "1.5G");
}

static void test_atomic_write_and_read(void **state)
{
	char dir[] = "/tmp/mmlab-test-util-XXXXXX";
	char *path, *nested, *data;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/a/b/c", dir);
	nested = xasprintf("%s/a/b", dir);
	assert_int_equal(mkdir_p(nested, 0755), 0);
	assert_int_equal(mkdir_p(nested, 0755), 0); /* exists: fine */
	assert_int_equal(write_file_atomic(path, "hello", 5, 0644), 0);
	assert_int_equal(write_file_atomic(path, "bye", 3, 0644), 0);
	data = read_file(path, &len, 100);
	assert_non_null(data);
	assert_int_equal(len, 3);
	assert_string_equal(data, "bye");
	free(data);
	assert_null(read_file(path, &len, 2)); /* larger than max */
	assert_int_equal(rm_rf(dir), 0);
	assert_false(path_exists(dir));
	free(path);
	free(nested);
}

static void test_sha256(void **state)
{
	char h[65];

	(void)state;
	sha256_buf("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_lists(void **state)
{
	struct kvlist kv = { 0 };
	struct strlist sl = { 0 };

	(void)state;
	kvlist_set(&kv, "a", "1");
	kvlist_set(&kv, "b", "2");
	kvlist_set(&kv, "a", "3");
	assert_int_equal(kv.n, 2);
	assert_string_equal(kvlist_get(&kv, "a"), "3");
	assert_null(kvlist_get(&kv, "c"));
	kvlist_free(&kv);
	for (int i = 0; i < 100; i++)
		strlist_pushf(&sl, "x%d", i);
	assert_int_equal(sl.n, 100);
	assert_string_equal(sl.v[99], "x99");
	assert_null(sl.v[100]);
	assert_true(strlist_has(&sl, "x0"));
	assert_true(strlist_has(&sl, "x99"));
	assert_false(strlist_has(&sl, "x100"));
	assert_false(strlist_has(&sl, "x"));
	strlist_free(&sl);
	assert_false(strlist_has(&sl, "x0"));
}

static void test_process_alive(void **state)
{
	char *boot = host_boot_id();
	pid_t child = fork();

	(void)state;
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	assert_int_equal(strlen(boot), 36); /* a UUID */
	assert_true(process_alive(getpid(), NULL));
	assert_true(process_alive(getpid(), boot));
	assert_false(process_alive(child, boot)); /* reaped */
	assert_false(process_alive(getpid(), "another-boot")); /* rebooted since */
	assert_false(process_alive(0, NULL));
	/* exited but not reaped yet: a zombie is gone too */
	child = fork();
	if (child == 0)
		_exit(0);
	assert_int_equal(waitid(P_PID, child, NULL, WEXITED | WNOWAIT), 0);
	assert_false(process_alive(child, boot));
	waitpid(child, NULL, 0);
	free(boot);
}

static void test_nearest_name(void **state)
{
	static const char *const names[] = { "run", "results", "report", "bisect", NULL };

	(void)state;
	assert_int_equal(edit_distance("rn", "run"), 1);
	assert_int_equal(edit_distance("kitten", "sitting"), 3);
	assert_int_equal(edit_distance("", "abc"), 3);
	assert_int_equal(edit_distance("x", "0123456789012345678901234567890123"), SIZE_MAX);
	assert_string_equal(nearest_name("rn", names), "run");
	assert_string_equal(nearest_name("bisec", names), "bisect");
	assert_string_equal(nearest_name("reprot", names), "report");
	assert_null(nearest_name("zzzzzz", names)); /* 3 edits or more: no guess */
	assert_null(nearest_name("rn", &names[4]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),    cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_fmt_size),      cmocka_unit_test(test_atomic_write_and_read),
		cmocka_unit_test(test_sha256),	      cmocka_unit_test(test_lists),
		cmocka_unit_test(test_process_alive), cmocka_unit_test(test_nearest_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
