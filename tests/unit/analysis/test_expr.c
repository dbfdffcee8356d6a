// SPDX-License-Identifier: GPL-2.0
/* test_expr.c - lab/analysis/expr.c: parsing, precedence, names, errors */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "builtin/builtin.h"
#include "analysis/expr.h"

static int lookup(void *ctx, const char *name, double *val)
{
	static const struct {
		const char *n;
		double v;
	} vars[] = {
		{ "a", 6 },
		{ "sng-x", 7 },
		{ "b", 3 },
		{ "zero", 0 },
		{ "nan", NAN },
		{ "trace.pageblock:hit_cmpxchg", 50 },
		{ "trace.compaction:mm_compaction_isolate_migratepages", 200 },
	};

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		if (!strcmp(vars[i].n, name)) {
			*val = vars[i].v;
			return 0;
		}
	}
	return -1;
}

/* evaluate src: 0 and *v, or -1 with err filled */
static int eval(const char *src, double *v, char *err, size_t len)
{
	struct expr *e = expr_parse(src, err, len);
	int rc;

	if (!e)
		return -2;
	rc = expr_eval(e, lookup, NULL, v, err, len);
	expr_free(e);
	return rc;
}

static double ev(const char *src)
{
	char err[256];
	double v = NAN;

	assert_int_equal(eval(src, &v, err, sizeof(err)), 0);
	return v;
}

static void test_arith(void **state)
{
	(void)state;
	assert_true(ev("1 + 2 * 3") == 7);
	assert_true(ev("(1 + 2) * 3") == 9);
	assert_true(ev("10 - 4 - 3") == 3);
	assert_true(ev("24 / 4 / 2") == 3);
	assert_true(ev("-a + b") == -3);
	assert_true(ev("- -a") == 6);
	assert_true(ev("a * -b") == -18);
	assert_true(ev("1.5e1 + .5") == 15.5);
	assert_true(ev("a / b") == 2);
	assert_true(ev(" ( ( a ) ) ") == 6);
	/* U+2212 minus, U+00D7 times, U+00F7 divide */
	assert_true(ev("a \xe2\x88\x92 b \xc3\x97 2 \xc3\xb7 3") == 4);
	assert_true(ev("trace.pageblock:hit_cmpxchg / "
		       "trace.compaction:mm_compaction_isolate_migratepages") == 0.25);
	assert_true(isnan(ev("nan + 1")));
	assert_true(isnan(ev("nan / zero")));
}

static void expect_error(const char *src, int rc, const char *needle)
{
	char err[256] = "";
	double v;

	assert_int_equal(eval(src, &v, err, sizeof(err)), rc);
	if (!strstr(err, needle))
		fail_msg("\"%s\": error \"%s\" lacks \"%s\"", src, err, needle);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("a / zero", -1, "division by zero: \"zero\" is 0");
	expect_error("a / (b - 3)", -1, "\"b - 3\" is 0");
	expect_error("a + missing.metric", -1, "unknown metric \"missing.metric\"");
	expect_error("a +", -2, "unexpected end");
	expect_error("(a + b", -2, "expected ')'");
	expect_error("a + b)", -2, "unbalanced ')'");
	expect_error("a b", -2, "expected an operator");
	expect_error("2x", -2, "bad number");
	expect_error("", -2, "unexpected end");
	expect_error("a % b", -2, "expected an operator at column 3");
	expect_error("$", -2, "expected a number");
}

static void test_depth(void **state)
{
	char deep[400];
	char err[128];

	(void)state;
	memset(deep, '(', 300);
	strcpy(deep + 300, "1");
	assert_null(expr_parse(deep, err, sizeof(err)));
	assert_non_null(strstr(err, "nested too deeply"));
}

static void test_names(void **state)
{
	char err[64];
	struct expr *e = expr_parse("a / (b + a) * c.d:e", err, sizeof(err));
	struct strlist names = { 0 };

	(void)state;
	assert_non_null(e);
	expr_names(e, &names);
	assert_int_equal(names.n, 3);
	assert_string_equal(names.v[0], "a");
	assert_string_equal(names.v[1], "b");
	assert_string_equal(names.v[2], "c.d:e");
	strlist_free(&names);
	expr_free(e);
}

/* "t" joined by op, n times, malloc'd */
static char *chain(const char *t, const char *op, size_t n)
{
	size_t tl = strlen(t), ol = strlen(op);
	char *s = malloc(n * (tl + ol) + 1), *p = s;

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		if (i) {
			memcpy(p, op, ol);
			p += ol;
		}
		memcpy(p, t, tl);
		p += tl;
	}
	*p = '\0';
	return s;
}

/*
 * issue 20: every node copied its text, so "a+a+...+a" cost the square of
 * its length (64 KB: 1 GB), and the left-deep tree of a long chain had no
 * depth limit for the recursive evaluation and free.
 */
static void test_limits(void **state)
{
	char err[256], *s;
	double v;

	(void)state;
	s = chain("a", "+", 32768); /* 64 KB */
	assert_null(expr_parse(s, err, sizeof(err)));
	assert_non_null(strstr(err, "longer than 4096 bytes"));
	free(s);
	s = chain("a", "*", 1500); /* 2999 bytes, 2999 nodes */
	assert_null(expr_parse(s, err, sizeof(err)));
	assert_non_null(strstr(err, "more than 1024 numbers, names and operators"));
	free(s);
	s = chain("1", "+", 512); /* 1023 nodes: the most allowed */
	assert_int_equal(eval(s, &v, err, sizeof(err)), 0);
	assert_true(v == 512);
	free(s);
	/* a node's text for messages: the divisor as written */
	assert_int_equal(eval("a / (b - 3 )  ", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "division by zero: \"b - 3\" is 0");
}

/* a name a '-' is part of, in double quotes (a command workload's "stress-ng.vm...") */
static void test_quoted(void **state)
{
	char err[128];
	struct expr *e = expr_parse("\"stress-ng.vm.bogo-ops\" / 2 - \"a\"", err, sizeof(err));
	struct strlist names = { 0 };
	double v;

	(void)state;
	assert_non_null(e);
	expr_names(e, &names);
	assert_int_equal(names.n, 2);
	assert_string_equal(names.v[0], "stress-ng.vm.bogo-ops");
	assert_string_equal(names.v[1], "a");
	strlist_free(&names);
	expr_free(e);
	assert_true(ev("\"sng-x\" * 2") == 14);
	assert_int_equal(eval("\"a b\"", &v, err, sizeof(err)), -2);
	assert_int_equal(eval("\"\"", &v, err, sizeof(err)), -2);
	assert_int_equal(eval("\"a", &v, err, sizeof(err)), -2);
	assert_non_null(strstr(err, "closing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arith),  cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth),  cmocka_unit_test(test_names),
		cmocka_unit_test(test_limits), cmocka_unit_test(test_quoted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
