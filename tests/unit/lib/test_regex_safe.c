// SPDX-License-Identifier: GPL-2.0
/*
 * test_regex_safe.c - lab/lib/regex_safe.c: what a pattern expands to, and
 * that patterns which would exhaust the host are refused before regcomp.
 */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/regex_safe.h"
#include "lib/strbuf.h"

static size_t size_of(const char *p)
{
	char why[256];
	size_t n = regex_size(p, why, sizeof(why));

	if (!n)
		fail_msg("'%s' refused: %s", p, why);
	return n;
}

static void test_size(void **state)
{
	(void)state;
	assert_int_equal(size_of("abc"), 3);
	assert_int_equal(size_of("a*"), 2);
	assert_int_equal(size_of("a+"), 3);
	assert_int_equal(size_of("(ab)"), 4);
	assert_int_equal(size_of("a|b"), 3);
	assert_int_equal(size_of("[]x{99}]"), 1); /* one bracket expression */
	assert_int_equal(size_of("[[:alpha:]]"), 1);
	assert_int_equal(size_of("a{3}"), 6);
	assert_int_equal(size_of("a{,3}"), 6);
	assert_int_equal(size_of("a{2,}"), 6);
	assert_int_equal(size_of("a{x"), 3); /* not an interval: literals */
	assert_int_equal(size_of("a)"), 2);
	/* nested counted repetition multiplies */
	assert_true(size_of("((a{10}){10}){10}") > 1000);
	assert_int_equal(size_of("(a{99999999999999999999999})"), SIZE_MAX);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"((a{255}){255}){255}", /* 3.5 GB in regcomp */
		"(((a{100}){100}){100}){100}", /* 14 GB, then a crash */
		"(a{1000}){1000}",
		"a{32767}",
		"(x+x+)+y\\1",
		"((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))",
		/* nested quantifiers: 15 s and more in regcomp (found by fuzz_regex) */
		"b+????????????+++++",
		"\\\377+????????????+++++",
		"((((((((((((((((b+)?)?)?)?)?)?)?)?)?)?)?)?)+)+)+)+)+",
		"(((((b+)?)+)+)?){2}",
		"a+?+*?",
		/* "{,}" is glibc's {0,}: 5 stacked, 2 min in regcomp (fuzz_regex) */
		"\245x\377\375\377\377x{1}y{,}?+{7,}{2,}2y}}+",
		"y{,}?+{7,}{2,}",
		/* repeated empty-matching parts with quantifiers: minutes (fuzz_regex) */
		"^5?{,3}{63,}",
		"5?{0,3}{20,}",
		"\032]{,}{,8}+{1,39}\3770}{,}{,}",
		"(((b+)?)+){50}", /* 0.2 s; refused with the rest */
		"(a|\\b){2,}x*{3}",
		/* quantifiers within the nesting limit, but many: 1.2 s (fuzz_regex) */
		"]????]????]????]????]????",
	};
	char why[256], *long_one = malloc(REGEX_MAX_LEN + 2);
	regex_t re;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (!regex_compile_safe(&re, bad[i], REG_EXTENDED | REG_NOSUB, why, sizeof(why))) {
			regfree(&re);
			fail_msg("'%s' was compiled", bad[i]);
		}
		assert_true(strlen(why) > 10);
	}
	assert_non_null(long_one);
	memset(long_one, 'a', REGEX_MAX_LEN + 1);
	long_one[REGEX_MAX_LEN + 1] = '\0';
	assert_int_equal(regex_compile_safe(&re, long_one, REG_EXTENDED, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "longer than"));
	free(long_one);
	assert_int_equal(regex_compile_safe(&re, "a(", REG_EXTENDED, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a valid regular expression"));
	assert_int_equal(regex_compile_safe(&re, "a", 0, why, sizeof(why)), -1);
}

static void test_compiled(void **state)
{
	static const char *const good[] = {
		"WARNING: .* at mm/",
		"(kernel BUG at mm/|BUG: .*(compaction|migrat|page_alloc|huge_memory))",
		"^[0-9]{1,3}(,[0-9]{3})*$",
		"[[:space:]]+elapsed[[:space:]]+([0-9.]+)",
		"((b+)+)+{50}", /* 4 nested quantifiers, nothing empty repeated */
		"^([^ ]+ ){3}([0-9.]+)$", /* the fourth field */
		"(a?b){5}", /* repeated, but never empty */
		"a+?*x", /* stacked, 3 deep */
		"a{,}b{,3}", /* "{,}" is a star */
		"(a|b*)+(c?d+)*x",
	};
	char why[256];
	regex_t re;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (regex_compile_safe(&re, good[i], REG_EXTENDED, why, sizeof(why)))
			fail_msg("'%s' refused: %s", good[i], why);
		regfree(&re);
	}
	assert_int_equal(regex_compile_safe(&re, "WARNING: .* at mm/", REG_EXTENDED | REG_NOSUB,
					    why, sizeof(why)),
			 0);
	assert_int_equal(regexec(&re, "WARNING: CPU: 0 PID: 1 at mm/compaction.c:1", 0, NULL, 0),
			 0);
	regfree(&re);
}

/* the weight limit where its message and docs/mmlab.md put it: 32 of a+, 16 of a+? */
static void test_weight_limit(void **state)
{
	static const struct {
		const char *piece;
		int most;
	} limits[] = { { "a+", 32 }, { "a+?", 16 }, { "a+??*", 4 } };
	char why[256];
	regex_t re;

	(void)state;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct strbuf p = STRBUF_INIT;

		for (int k = 0; k < limits[i].most; k++)
			strbuf_addstr(&p, limits[i].piece);
		if (regex_compile_safe(&re, p.buf, REG_EXTENDED, why, sizeof(why)))
			fail_msg("%d of '%s' refused: %s", limits[i].most, limits[i].piece, why);
		regfree(&re);
		strbuf_addstr(&p, limits[i].piece);
		assert_int_equal(regex_compile_safe(&re, p.buf, REG_EXTENDED, why, sizeof(why)),
				 -1);
		assert_non_null(strstr(why, "too many quantifiers"));
		strbuf_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_compiled),
		cmocka_unit_test(test_weight_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
