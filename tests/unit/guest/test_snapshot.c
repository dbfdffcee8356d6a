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

static int64_t get(const struct snap *s, const char *name)
{
	const int64_t *v = snap_get(s, name);

	assert_non_null(v);
	return *v;
}

static void test_real_vmstat(void **state)
{
	struct snap s = { 0 };
	size_t len;
	char *t = fixture("vmstat.before", &len);

	(void)state;
	assert_true(snap_parse_kv(t, len, &s) > 150);
	assert_int_equal(s.skipped, 0);
	assert_int_equal(get(&s, "nr_free_pages"), 108230);
	assert_int_equal(get(&s, "pgfault"), 159);
	assert_int_equal(get(&s, "thp_fault_alloc"), 0);
	assert_null(snap_get(&s, "no_such_counter"));
	snap_free(&s);
	free(t);
}

static void test_delta(void **state)
{
	struct snap b = { 0 }, a = { 0 }, d = { 0 };
	size_t lb, la;
	char *tb = fixture("vmstat.before", &lb), *ta = fixture("vmstat.after", &la);

	(void)state;
	snap_parse_kv(tb, lb, &b);
	snap_parse_kv(ta, la, &a);
	assert_int_equal(snap_delta(&b, &a, &d), a.n);
	assert_int_equal(get(&d, "pgfault"), 16551 - 159);
	assert_int_equal(get(&d, "nr_free_pages"), 101691 - 108230);
	assert_string_equal(d.v[0].name, a.v[0].name);
	snap_free(&b);
	snap_free(&a);
	snap_free(&d);
	free(tb);
	free(ta);
}

static void test_junk(void **state)
{
	struct snap s = { 0 };
	size_t len;
	char *t = fixture("vmstat.junk", &len);

	(void)state;
	snap_parse_kv(t, len, &s);
	assert_int_equal(get(&s, "nr_free_pages"), 108230); /* first wins */
	assert_int_equal(get(&s, "pgfault"), 160);
	assert_int_equal(get(&s, "max"), INT64_MAX);
	assert_int_equal(get(&s, "neg"), -5);
	assert_int_equal(get(&s, "indented"), 42);
	assert_int_equal(get(&s, "tail"), 77);
	assert_null(snap_get(&s, "huge"));
	assert_null(snap_get(&s, "bad/name"));
	assert_null(snap_get(&s, "hex"));
	assert_null(snap_get(&s, "float"));
	assert_null(snap_get(&s, "junk"));
	/* junk, "pgfault 159 extra", huge, bad/name, hex, binary, float */
	assert_int_equal(s.skipped, 7);
	assert_int_equal(s.n, 6); /* the repeated nr_free_pages is not added */
	snap_free(&s);
	free(t);
}

static void test_delta_overflow(void **state)
{
	static const char b_txt[] = "a -9223372036854775808\nb 10\nonly_before 1\n";
	static const char a_txt[] = "a 9223372036854775807\nb 4\nonly_after 2\n";
	struct snap b = { 0 }, a = { 0 }, d = { 0 };

	(void)state;
	snap_parse_kv(b_txt, strlen(b_txt), &b);
	snap_parse_kv(a_txt, strlen(a_txt), &a);
	snap_delta(&b, &a, &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(get(&d, "b"), -6);
	snap_free(&b);
	snap_free(&a);
	snap_free(&d);
}

static void test_node_meminfo(void **state)
{
	static const char junk[] = "Node 0 MemTotal: 5 kB\nNode x\nMemFree: 3 kB\n"
				   "Node 0 HugePages_Total:     0\n"
				   "Node 0 Bad 1 kB\nNode 0 Big: 1e9 kB\n";
	struct snap s = { 0 };
	size_t len;
	char *t = fixture("node0.meminfo.before", &len);

	(void)state;
	snap_parse_node_meminfo(t, len, &s);
	assert_int_equal(s.skipped, 0);
	assert_int_equal(get(&s, "MemTotal"), 211316);
	assert_int_equal(get(&s, "MemFree"), 193952);
	assert_int_equal(get(&s, "Active(anon)"), 972);
	assert_int_equal(get(&s, "HugePages_Total"), 0);
	snap_free(&s);
	free(t);
	snap_parse_node_meminfo(junk, sizeof(junk) - 1, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.skipped, 4);
	assert_int_equal(get(&s, "MemTotal"), 5);
	snap_free(&s);
}

static void test_numastat(void **state)
{
	struct snap s = { 0 };
	size_t len;
	char *t = fixture("node1.numastat.before", &len);

	(void)state;
	snap_parse_kv(t, len, &s);
	assert_int_equal(s.n, 6);
	assert_int_equal(get(&s, "numa_hit"), 3395);
	assert_int_equal(get(&s, "other_node"), 937);
	snap_free(&s);
	free(t);
}

static void test_buddyinfo(void **state)
{
	static const char junk[] = "Node 0, zone\nNode -1, zone X 1\n"
				   "Node 2, zone Normal 4 5 x 6\n";
	struct snap s = { 0 };
	size_t len;
	char *t = fixture("buddyinfo.before", &len);

	(void)state;
	assert_int_equal(snap_parse_buddyinfo(t, len, &s), 33);
	assert_int_equal(get(&s, "node0.DMA.order5"), 1);
	assert_int_equal(get(&s, "node0.DMA32.order10"), 39);
	assert_int_equal(get(&s, "node1.DMA32.order0"), 4);
	snap_free(&s);
	free(t);
	snap_parse_buddyinfo(junk, sizeof(junk) - 1, &s);
	assert_int_equal(s.n, 2); /* orders before the junk token */
	assert_int_equal(get(&s, "node2.Normal.order1"), 5);
	assert_int_equal(s.skipped, 2);
	snap_free(&s);
}

static void test_hostile(void **state)
{
	struct snap s = { 0 };
	char *big = xmalloc(1 << 20);

	(void)state;
	assert_int_equal(snap_parse_kv(NULL, 0, &s), 0);
	/* 100k distinct names: bounded, not quadratic forever */
	for (size_t i = 0, off = 0; i < 100000 && off + 16 < (1 << 20); i++)
		off += (size_t)snprintf(big + off, 16, "n%zu 1\n", i);
	snap_parse_kv(big, strlen(big), &s);
	assert_int_equal(s.n, SNAP_MAX_ENTRIES);
	assert_true(s.skipped > 0);
	snap_free(&s);
	/* 4096 names, then ~1 MiB of repeats: hashed, so not 10^9 compares */
	{
		size_t off = 0;

		for (size_t i = 0; i < SNAP_MAX_ENTRIES; i++)
			off += (size_t)snprintf(big + off, 16, "n%zu 1\n", i);
		while (off + 9 < (1 << 20))
			off += (size_t)snprintf(big + off, 9, "n4095 2\n");
		snap_parse_kv(big, off, &s);
		assert_int_equal(s.n, SNAP_MAX_ENTRIES);
		assert_int_equal(get(&s, "n4095"), 1);
		assert_int_equal(get(&s, "n0"), 1);
		snap_free(&s);
	}
	memset(big, 'a', 1 << 20);
	snap_parse_kv(big, 1 << 20, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.skipped, 1);
	snap_free(&s);
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
