// SPDX-License-Identifier: GPL-2.0
/*
 * test_kcache_json.c - a kernel cache entry's meta.json <-> struct
 * kcache_meta (lab/kernel/kcache_json.c): the documents the build writes
 * read into the typed fields and back to the same JSON; other types read
 * as absent; the refusals and bounds; kcache_list_meta(), kcache_show()
 * and kcache_gc() over a real cache directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_text.h"
#include <jansson.h>

#include "kernel/kcache.h"
#include "lib/util.h"

/* an entry with modules, built from a tree with one revert and one fragment */
static const char mods_json[] =
	"{\"key\": \"0123456789abcdef01234567\", \"variant\": \"src\", \"tree\": \"/src/linux\","
	" \"tree_id\": \"t1\", \"ref\": \"v6.12\", \"base_commit\": \"c1\","
	" \"operations\": [{\"op\": \"revert\", \"arg\": \"abc\", \"resolved\": \"abcdef\"}],"
	" \"config\": {\"base\": \"defconfig\","
	"   \"fragments\": [{\"path\": \"/j/a.config\", \"sha256\": \"f1\"}]},"
	" \"config_hash\": \"h1\", \"compiler\": \"gcc 12\", \"built\": \"2026-12-01T10:00:00Z\","
	" \"log\": \"/c/logs/x.log\","
	" \"timings\": {\"prepare_s\": 1.5, \"config_s\": 0.25, \"build_s\": 300.125},"
	" \"release\": \"6.12.0-mmlab\", \"version\": \"#1 SMP\", \"full_build\": true,"
	" \"modules\": true, \"build_kit\": false}";

/* a tinyconfig entry: no operations, no fragments, no modules, the image unread */
static const char tiny_json[] =
	"{\"key\": \"abcdefabcdefabcdefabcdef\", \"variant\": \"base\", \"tree\": \"/src/linux\","
	" \"tree_id\": \"t2\", \"ref\": \"HEAD\", \"base_commit\": \"c2\", \"operations\": [],"
	" \"config\": {\"base\": \"tinyconfig\", \"fragments\": []}, \"config_hash\": \"h2\","
	" \"compiler\": \"gcc 12\", \"built\": \"2026-11-30T09:00:00Z\", \"log\": \"/c/l\","
	" \"timings\": {\"prepare_s\": 0.0, \"config_s\": 0.0, \"build_s\": 2.0},"
	" \"full_build\": false}";

static void assert_round_trip(const char *text)
{
	json_t *doc = json_text(text), *back;
	struct kcache_meta m;

	assert_int_equal(kcache_meta_from_json(doc, &m), 0);
	back = kcache_meta_json(&m);
	if (!json_equal(doc, back)) {
		char *a = json_dumps(doc, JSON_SORT_KEYS), *b = json_dumps(back, JSON_SORT_KEYS);

		fail_msg("read %s\nwrote %s", a, b);
	}
	json_decref(back);
	json_decref(doc);
	kcache_meta_release(&m);
}

static void test_read_fields(void **state)
{
	json_t *doc = json_text(mods_json);
	struct kcache_meta m;

	(void)state;
	assert_int_equal(kcache_meta_from_json(doc, &m), 0);
	assert_string_equal(m.key, "0123456789abcdef01234567");
	assert_string_equal(m.variant, "src");
	assert_string_equal(m.tree_id, "t1");
	assert_string_equal(m.base_commit, "c1");
	assert_int_equal(m.nops, 1);
	assert_string_equal(m.ops[0].op, "revert");
	assert_string_equal(m.ops[0].resolved, "abcdef");
	assert_string_equal(m.config_base, "defconfig");
	assert_int_equal(m.nfrags, 1);
	assert_string_equal(m.frags[0].path, "/j/a.config");
	assert_string_equal(m.frags[0].sha256, "f1");
	assert_string_equal(m.config_hash, "h1");
	assert_string_equal(m.compiler, "gcc 12");
	assert_string_equal(m.built, "2026-12-01T10:00:00Z");
	assert_string_equal(m.release, "6.12.0-mmlab");
	assert_true(m.build_s == 300.125);
	assert_true(m.full_build);
	assert_true(m.modules);
	assert_true(m.no_build_kit);
	kcache_meta_release(&m);
	json_decref(doc);

	doc = json_text(tiny_json);
	assert_int_equal(kcache_meta_from_json(doc, &m), 0);
	assert_null(m.release);
	assert_null(m.version);
	assert_int_equal(m.nops, 0);
	assert_int_equal(m.nfrags, 0);
	assert_false(m.modules);
	assert_false(m.no_build_kit);
	kcache_meta_release(&m);
	json_decref(doc);
}

static void test_round_trip(void **state)
{
	(void)state;
	assert_round_trip(mods_json);
	assert_round_trip(tiny_json);
}

/* another type where a string belongs reads as absent, as before the typed record */
static void test_odd_values(void **state)
{
	json_t *doc = json_text("{\"key\": 7, \"tree_id\": null, \"build_kit\": true,"
				" \"config\": {\"fragments\": [{\"sha256\": 1}, \"x\"]}}");
	struct kcache_meta m;

	(void)state;
	assert_int_equal(kcache_meta_from_json(doc, &m), 0);
	assert_null(m.key);
	assert_null(m.tree_id);
	assert_false(m.no_build_kit);
	assert_int_equal(m.nfrags, 2);
	assert_null(m.frags[0].sha256);
	assert_null(m.frags[1].sha256);
	kcache_meta_release(&m);
	json_decref(doc);
}

static void assert_refused(json_t *doc)
{
	struct kcache_meta m;

	assert_int_equal(kcache_meta_from_json(doc, &m), -1);
	assert_null(m.key);
	assert_null(m.frags);
	assert_null(m.ops);
	assert_int_equal(m.nfrags, 0);
	json_decref(doc);
}

static void test_refusals(void **state)
{
	char *big = xmalloc(KCACHE_META_MAX_STR + 2);
	json_t *frags = json_array(), *ops = json_array();

	(void)state;
	assert_refused(json_text("[]"));
	assert_refused(json_text("\"meta\""));
	assert_refused(json_null());
	memset(big, 'a', KCACHE_META_MAX_STR + 1);
	big[KCACHE_META_MAX_STR + 1] = '\0';
	assert_refused(json_pack("{s:s, s:s}", "key", "k", "log", big));
	assert_refused(json_pack("{s:{s:[{s:s}]}}", "config", "fragments", "sha256", big));
	big[KCACHE_META_MAX_STR] = '\0'; /* at the bound: read */
	{
		json_t *doc = json_pack("{s:s}", "log", big);
		struct kcache_meta m;

		assert_int_equal(kcache_meta_from_json(doc, &m), 0);
		assert_int_equal(strlen(m.log), KCACHE_META_MAX_STR);
		kcache_meta_release(&m);
		json_decref(doc);
	}
	for (int i = 0; i <= KCACHE_META_MAX_LIST; i++) {
		json_array_append_new(frags, json_pack("{s:s}", "sha256", "f"));
		json_array_append_new(ops, json_pack("{s:s}", "op", "revert"));
	}
	assert_refused(json_pack("{s:s, s:{s:o}}", "key", "k", "config", "fragments", frags));
	assert_refused(json_pack("{s:s, s:o}", "key", "k", "operations", ops));
	free(big);
}

static void put_entry(const char *cache, const char *key, const char *text)
{
	char *dir = xasprintf("%s/kernels/entries/%s", cache, key);
	char *p = xasprintf("%s/meta.json", dir);

	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
	free(dir);
}

/* the listing sorts by "built", drops what does not read, and gc removes the unused */
static void test_cache_dir(void **state)
{
	char tmpl[] = "/tmp/test_kcache_json-XXXXXX", *cache = mkdtemp(tmpl);
	struct kernel_use use = { .run = "r1", .cache_key = "0123456789abcdef01234567" };
	struct kernel_uses uses = { .v = &use, .n = 1 };
	struct kcache_meta *v;
	json_t *j;
	size_t n;

	(void)state;
	assert_non_null(cache);
	put_entry(cache, "0123456789abcdef01234567", mods_json);
	put_entry(cache, "abcdefabcdefabcdefabcdef", tiny_json);
	put_entry(cache, "ffffffffffffffffffffffff", "[1, 2]");
	put_entry(cache, "short", tiny_json);
	kcache_list_meta(cache, &v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].key, "abcdefabcdefabcdefabcdef");
	assert_string_equal(v[1].key, "0123456789abcdef01234567");
	kcache_metas_free(v, n);

	j = kcache_list(cache);
	assert_int_equal(json_array_size(j), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "variant")),
			    "base");
	json_decref(j);

	j = kcache_show(cache, "0123");
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "variant")), "src");
	{
		char *want = xasprintf("%s/kernels/entries/0123456789abcdef01234567", cache);

		assert_string_equal(json_string_value(json_object_get(j, "dir")), want);
		free(want);
	}
	json_decref(j);
	assert_null(kcache_show(cache, "zz"));

	j = kcache_gc(cache, &uses, true);
	assert_int_equal(json_array_size(j), 1);
	assert_string_equal(json_string_value(json_array_get(j, 0)), "abcdefabcdefabcdefabcdef");
	json_decref(j);
	kcache_list_meta(cache, &v, &n);
	assert_int_equal(n, 2); /* a dry run */
	kcache_metas_free(v, n);
	json_decref(kcache_gc(cache, &uses, false));
	kcache_list_meta(cache, &v, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].key, "0123456789abcdef01234567");
	kcache_metas_free(v, n);
	rm_rf(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_fields), cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_odd_values),  cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cache_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
