// SPDX-License-Identifier: GPL-2.0
/*
 * test_collect.c - the guest collectors' parsers (collectors/collect.c):
 * hist-trigger totals and /proc/<pid>/stat CPU ticks. Guest code, compiled
 * in directly with the small parts of the agent it calls stubbed as
 * recorders (the channel is a serial port that does not exist here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../collectors/collect.c"

void chan_sendf(unsigned int type, const char *body, size_t body_len, const char *fmt, ...)
{
	(void)type;
	(void)body;
	(void)body_len;
	(void)fmt;
}

void console_log(const char *fmt, ...)
{
	(void)fmt;
}

void agent_log(const char *level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

char *read_capped(const char *path, size_t cap, size_t *len, int *truncated)
{
	(void)path;
	(void)cap;
	(void)len;
	(void)truncated;
	return NULL;
}

static void test_hist(void **state)
{
	static const char hist[] =
		"# event histogram\\n#\\n# trigger info: hist:keys=common_cpu:vals=hitcount:sort=hitcount:size=2048 [active]\\n#\\n\\n"
		"{ common_cpu:          0 } hitcount:         17\\n"
		"{ common_cpu:          1 } hitcount:       4025\\n\\n"
		"Totals:\\n    Hits: 4042\\n    Entries: 2\\n    Dropped: 0\\n";
	unsigned long long dropped = 9;

	(void)state;
	assert_int_equal(collect_hist_hits(hist, &dropped), 4042);
	assert_int_equal(dropped, 0);
	assert_int_equal(collect_hist_hits("Totals:\\n Hits: 0\\n Dropped: 3\\n", &dropped), 0);
	assert_int_equal(dropped, 3);
}

static void test_stat(void **state)
{
	char comm[32];
	unsigned long long t = 0;

	(void)state;
	assert_int_equal(
		collect_parse_stat(
			"42 (kcompactd0) S 2 0 0 0 -1 2129984 0 0 0 0 7 35 0 0 20 0 1 0 100 0 0",
			comm, sizeof(comm), &t),
		0);
	assert_string_equal(comm, "kcompactd0");
	assert_int_equal(t, 42);
	/* a comm with spaces and parentheses: the last ')' ends it */
	assert_int_equal(collect_parse_stat("7 (a b) c)) R 1 1 1 0 -1 0 0 0 0 0 1 2 0", comm,
					    sizeof(comm), &t),
			 0);
	assert_string_equal(comm, "a b) c)");
	assert_int_equal(t, 3);
	assert_int_equal(collect_parse_stat("garbage", comm, sizeof(comm), &t), -1);
	assert_int_equal(collect_parse_stat("1 (x) S 1", comm, sizeof(comm), &t), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
