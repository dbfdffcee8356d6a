// SPDX-License-Identifier: GPL-2.0
/*
 * test_sources_json.c - the record beside a cached mmtests source file
 * (lab/mmtests/sources_json.c): written and read back the same, and a
 * record that is not one (a hand edit, another version's, a damaged
 * file) refused, so that the file is fetched again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mmtests/sources_json.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_round_trip(void **state)
{
	struct source_meta m = { .size = 5000000000ULL, .sha256 = SHA }, back = { 0 };
	char *text;

	(void)state;
	for (int git = 0; git < 2; git++) {
		m.url = "https://example.org/a b/file-1.0.tar.gz";
		m.fetched = "2026-12-06T23:00:00Z";
		m.by = git ? "git archive" : "curl";
		m.commit = git ? "v1.0" : NULL;
		text = source_meta_dump(&m);
		assert_non_null(text);
		assert_int_equal(source_meta_parse(text, strlen(text), &back), 0);
		assert_true(back.size == m.size);
		assert_string_equal(back.sha256, SHA);
		assert_string_equal(back.url, m.url);
		assert_string_equal(back.fetched, m.fetched);
		assert_string_equal(back.by, m.by);
		if (git)
			assert_string_equal(back.commit, "v1.0");
		else
			assert_null(back.commit);
		source_meta_free(&back);
		free(text);
	}
	m.url = "\xff\xfe not UTF-8";
	assert_null(source_meta_dump(&m));
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"size\": 3}",
		"{\"sha256\": \"" SHA "\"}",
		"{\"size\": -1, \"sha256\": \"" SHA "\"}",
		"{\"size\": 1.5, \"sha256\": \"" SHA "\"}",
		"{\"size\": \"3\", \"sha256\": \"" SHA "\"}",
		"{\"size\": 3, \"sha256\": \"ABCDEF\"}",
		"{\"size\": 3, \"sha256\": \"" SHA "0\"}",
		"{\"size\": 3, \"sha256\": \"" SHA "\", \"url\": 7}",
		"{\"size\": 3, \"sha256\": \"" SHA "\", \"commit\": null}",
		"{\"size\": 3, \"size\": 4, \"sha256\": \"" SHA "\"}",
		"{\"size\": 3, \"sha256\": \"" SHA "\"", /* cut */
	};
	static const char good[] = "{\"size\": 3, \"sha256\": \"" SHA "\"}";
	struct source_meta m;
	char *big;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(source_meta_parse(bad[i], strlen(bad[i]), &m), -1);
		source_meta_free(&m);
	}
	/* the smallest good one, and the same past the bound */
	assert_int_equal(source_meta_parse(good, strlen(good), &m), 0);
	assert_true(m.size == 3);
	assert_null(m.url);
	source_meta_free(&m);
	big = calloc(1, SOURCE_META_MAX + 2);
	assert_non_null(big);
	memcpy(big, good, strlen(good));
	memset(big + strlen(good), ' ', SOURCE_META_MAX + 1 - strlen(good));
	assert_int_equal(source_meta_parse(big, SOURCE_META_MAX, &m), 0);
	source_meta_free(&m);
	assert_int_equal(source_meta_parse(big, SOURCE_META_MAX + 1, &m), -1);
	source_meta_free(&m);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
