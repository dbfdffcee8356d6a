// SPDX-License-Identifier: GPL-2.0
/*
 * test_snapshot.c - parsers of the guest's counter files, on real files
 * captured from a TCG guest (tests/unit/snapshot/) and on hostile text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/counters.h"
#include "lib/util.h"

static char *fixture(const char *name, size_t *len)
{
	const char *src = getenv("MMLAB_SRCDIR");
	char *path = xasprintf("%s/tests/unit/snapshot/%s", src ? src : ".", name);
	char *buf = read_file(path, len, 1 << 20);

	assert_non_null(buf);
	free(path);
	return buf;
}

static int64_t get(const struct counters *s, const char *name)
{
	const int64_t *v = counters_get(s, name);

	assert_non_null(v);
	return *v;
}

static void test_real_vmstat(void **state)
{
	struct counters s = { 0 };
	size_t len;
	char *t = fixture("vmstat.before", &len);

	(void)state;
	assert_true(counters_parse_kv(t, len, &s) > 150);
	assert_int_equal(s.skipped, 0);
	assert_int_equal(get(&s, "nr_free_pages"), 108230);
	assert_int_equal(get(&s, "pgfault"), 159);
	assert_int_equal(get(&s, "thp_fault_alloc"), 0);
	assert_null(counters_get(&s, "no_such_counter"));
	counters_free(&s);
	free(t);
}

static void test_delta(void **state)
{
	struct counters b = { 0 }, a = { 0 }, d = { 0 };
	size_t lb, la;
	char *tb = fixture("vmstat.before", &lb), *ta = fixture("vmstat.after", &la);

	(void)state;
	counters_parse_kv(tb, lb, &b);
	counters_parse_kv(ta, la, &a);
	assert_int_equal(counters_delta(&b, &a, &d), a.n);
	assert_int_equal(get(&d, "pgfault"), 16551 - 159);
	assert_int_equal(get(&d, "nr_free_pages"), 101691 - 108230);
	assert_string_equal(d.v[0].name, a.v[0].name);
	counters_free(&b);
	counters_free(&a);
	counters_free(&d);
	free(tb);
	free(ta);
}

static void test_junk(void **state)
{
	struct counters s = { 0 };
	size_t len;
	char *t = fixture("vmstat.junk", &len);

	(void)state;
	counters_parse_kv(t, len, &s);
	assert_int_equal(get(&s, "nr_free_pages"), 108230); /* first wins */
	assert_int_equal(get(&s, "pgfault"), 160);
	assert_int_equal(get(&s, "max"), INT64_MAX);
	assert_int_equal(get(&s, "neg"), -5);
	assert_int_equal(get(&s, "indented"), 42);
	assert_int_equal(get(&s, "tail"), 77);
	assert_null(counters_get(&s, "huge"));
	assert_null(counters_get(&s, "bad/name"));
	assert_null(counters_get(&s, "hex"));
	assert_null(counters_get(&s, "float"));
	assert_null(counters_get(&s, "junk"));
	/* junk, "pgfault 159 extra", huge, bad/name, hex, binary, float */
	assert_int_equal(s.skipped, 7);
	assert_int_equal(s.n, 6); /* the repeated nr_free_pages is not added */
	counters_free(&s);
	free(t);
}

static void test_delta_overflow(void **state)
{
	static const char b_txt[] = "a -9223372036854775808\nb 10\nonly_before 1\n";
	static const char a_txt[] = "a 9223372036854775807\nb 4\nonly_after 2\n";
	struct counters b = { 0 }, a = { 0 }, d = { 0 };

	(void)state;
	counters_parse_kv(b_txt, strlen(b_txt), &b);
	counters_parse_kv(a_txt, strlen(a_txt), &a);
	counters_delta(&b, &a, &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(get(&d, "b"), -6);
	counters_free(&b);
	counters_free(&a);
	counters_free(&d);
}

static void test_node_meminfo(void **state)
{
	static const char junk[] = "Node 0 MemTotal: 5 kB\nNode x\nMemFree: 3 kB\n"
				   "Node 0 HugePages_Total:     0\n"
				   "Node 0 Bad 1 kB\nNode 0 Big: 1e9 kB\n";
	struct counters s = { 0 };
	size_t len;
	char *t = fixture("node0.meminfo.before", &len);

	(void)state;
	counters_parse_node_meminfo(t, len, &s);
	assert_int_equal(s.skipped, 0);
	assert_int_equal(get(&s, "MemTotal"), 211316);
	assert_int_equal(get(&s, "MemFree"), 193952);
	assert_int_equal(get(&s, "Active(anon)"), 972);
	assert_int_equal(get(&s, "HugePages_Total"), 0);
	counters_free(&s);
	free(t);
	counters_parse_node_meminfo(junk, sizeof(junk) - 1, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.skipped, 4);
	assert_int_equal(get(&s, "MemTotal"), 5);
	counters_free(&s);
}

static void test_numastat(void **state)
{
	struct counters s = { 0 };
	size_t len;
	char *t = fixture("node1.numastat.before", &len);

	(void)state;
	counters_parse_kv(t, len, &s);
	assert_int_equal(s.n, 6);
	assert_int_equal(get(&s, "numa_hit"), 3395);
	assert_int_equal(get(&s, "other_node"), 937);
	counters_free(&s);
	free(t);
}

static void test_buddyinfo(void **state)
{
	static const char junk[] = "Node 0, zone\nNode -1, zone X 1\n"
				   "Node 2, zone Normal 4 5 x 6\n";
	struct counters s = { 0 };
	size_t len;
	char *t = fixture("buddyinfo.before", &len);

	(void)state;
	assert_int_equal(counters_parse_buddyinfo(t, len, &s), 33);
	assert_int_equal(get(&s, "node0.DMA.order5"), 1);
	assert_int_equal(get(&s, "node0.DMA32.order10"), 39);
	assert_int_equal(get(&s, "node1.DMA32.order0"), 4);
	counters_free(&s);
	free(t);
	counters_parse_buddyinfo(junk, sizeof(junk) - 1, &s);
	assert_int_equal(s.n, 2); /* orders before the junk token */
	assert_int_equal(get(&s, "node2.Normal.order1"), 5);
	assert_int_equal(s.skipped, 2);
	counters_free(&s);
}

static void test_hostile(void **state)
{
	struct counters s = { 0 };
	char *big = xmalloc(1 << 20);

	(void)state;
	assert_int_equal(counters_parse_kv(NULL, 0, &s), 0);
	/* 100k distinct names: bounded, not quadratic forever */
	for (size_t i = 0, off = 0; i < 100000 && off + 16 < (1 << 20); i++)
		off += (size_t)snprintf(big + off, 16, "n%zu 1\n", i);
	counters_parse_kv(big, strlen(big), &s);
	assert_int_equal(s.n, COUNTERS_MAX_ENTRIES);
	assert_true(s.skipped > 0);
	counters_free(&s);
	/* 4096 names, then ~1 MiB of repeats: hashed, so not 10^9 compares */
	{
		size_t off = 0;

		for (size_t i = 0; i < COUNTERS_MAX_ENTRIES; i++)
			off += (size_t)snprintf(big + off, 16, "n%zu 1\n", i);
		while (off + 9 < (1 << 20))
			off += (size_t)snprintf(big + off, 9, "n4095 2\n");
		counters_parse_kv(big, off, &s);
		assert_int_equal(s.n, COUNTERS_MAX_ENTRIES);
		assert_int_equal(get(&s, "n4095"), 1);
		assert_int_equal(get(&s, "n0"), 1);
		counters_free(&s);
	}
	memset(big, 'a', 1 << 20);
	counters_parse_kv(big, 1 << 20, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.skipped, 1);
	counters_free(&s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_vmstat),  cmocka_unit_test(test_delta),
		cmocka_unit_test(test_junk),	     cmocka_unit_test(test_delta_overflow),
		cmocka_unit_test(test_node_meminfo), cmocka_unit_test(test_numastat),
		cmocka_unit_test(test_buddyinfo),    cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
