// SPDX-License-Identifier: GPL-2.0
/*
 * test_package_json.c - a cached package's meta.json <-> struct pkg_meta
 * (lab/kernel/package_json.c): the documents the unpacker writes (a deb,
 * an rpm with its modules rpm) read into the typed fields and back to the
 * same text, keys in the stored order; other types read as absent; the
 * refusals and the bound.
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

#include "kernel/package.h"
#include "lib/util.h"

/* as package_cache.c writes it (JSON_INDENT(2), insertion order) */
static const char deb_json[] =
	"{\n  \"package\": \"linux-image-6.1.0-47-amd64\",\n  \"version\": \"6.1.170-3\",\n"
	"  \"architecture\": \"amd64\",\n  \"format\": \"deb\",\n"
	"  \"sha256\": \"8566aa\",\n  \"release\": \"6.1.0-47-amd64\",\n"
	"  \"file\": \"linux-image-6.1.0-47-amd64_6.1.170-3_amd64.deb\",\n"
	"  \"fetched\": \"2026-12-01T10:00:00Z\",\n  \"files\": 4321,\n"
	"  \"unpacked_bytes\": 412345678\n}";

static const char rpm_json[] =
	"{\n  \"package\": \"kernel-core\",\n  \"version\": \"6.8.5-301.fc40\",\n"
	"  \"architecture\": \"x86_64\",\n  \"format\": \"rpm\",\n  \"sha256\": \"77\",\n"
	"  \"release\": \"6.8.5-301.fc40.x86_64\",\n  \"file\": \"kernel-core.rpm\",\n"
	"  \"fetched\": \"2026-12-02T10:00:00Z\",\n  \"files\": 12,\n"
	"  \"unpacked_bytes\": 99,\n  \"modules_package\": {\n"
	"    \"package\": \"kernel-modules\",\n    \"version\": \"6.8.5-301.fc40\"\n  }\n}";

static void assert_round_trip(const char *text)
{
	json_t *doc = json_text(text), *back;
	struct pkg_meta m;
	char *out;

	assert_int_equal(pkg_meta_from_json(doc, &m), 0);
	back = pkg_meta_json(&m);
	out = json_dumps(back, JSON_INDENT(2));
	assert_string_equal(out, text);
	free(out);
	json_decref(back);
	json_decref(doc);
	pkg_meta_release(&m);
}

static void test_read_fields(void **state)
{
	json_t *doc = json_text(rpm_json);
	struct pkg_meta m;

	(void)state;
	assert_int_equal(pkg_meta_from_json(doc, &m), 0);
	assert_string_equal(m.package, "kernel-core");
	assert_string_equal(m.version, "6.8.5-301.fc40");
	assert_string_equal(m.architecture, "x86_64");
	assert_string_equal(m.format, "rpm");
	assert_string_equal(m.sha256, "77");
	assert_string_equal(m.release, "6.8.5-301.fc40.x86_64");
	assert_string_equal(m.fetched, "2026-12-02T10:00:00Z");
	assert_int_equal(m.files, 12);
	assert_int_equal(m.unpacked_bytes, 99);
	assert_true(m.has_modules);
	assert_string_equal(m.modules_package, "kernel-modules");
	assert_string_equal(m.modules_version, "6.8.5-301.fc40");
	pkg_meta_release(&m);
	json_decref(doc);

	doc = json_text(deb_json);
	assert_int_equal(pkg_meta_from_json(doc, &m), 0);
	assert_false(m.has_modules);
	assert_null(m.modules_package);
	assert_int_equal(m.unpacked_bytes, 412345678);
	pkg_meta_release(&m);
	json_decref(doc);
}

static void test_round_trip(void **state)
{
	(void)state;
	assert_round_trip(deb_json);
	assert_round_trip(rpm_json);
}

static void test_odd_values(void **state)
{
	json_t *doc = json_text("{\"package\": 1, \"version\": null, \"modules_package\": \"x\"}");
	struct pkg_meta m;

	(void)state;
	assert_int_equal(pkg_meta_from_json(doc, &m), 0);
	assert_null(m.package);
	assert_null(m.version);
	assert_false(m.has_modules);
	pkg_meta_release(&m);
	json_decref(doc);
}

static void assert_refused(json_t *doc)
{
	struct pkg_meta m;

	assert_int_equal(pkg_meta_from_json(doc, &m), -1);
	assert_null(m.package);
	assert_null(m.modules_package);
	json_decref(doc);
}

static void test_refusals(void **state)
{
	char *big = xmalloc(PKG_META_MAX_STR + 2);

	(void)state;
	assert_refused(json_text("[\"linux-image\"]"));
	assert_refused(json_text("42"));
	assert_refused(json_null());
	memset(big, 'v', PKG_META_MAX_STR + 1);
	big[PKG_META_MAX_STR + 1] = '\0';
	assert_refused(json_pack("{s:s, s:s}", "package", "p", "version", big));
	assert_refused(
		json_pack("{s:s, s:{s:s}}", "package", "p", "modules_package", "package", big));
	big[PKG_META_MAX_STR] = '\0'; /* at the bound: read */
	{
		json_t *doc = json_pack("{s:s}", "file", big);
		struct pkg_meta m;

		assert_int_equal(pkg_meta_from_json(doc, &m), 0);
		assert_int_equal(strlen(m.file), PKG_META_MAX_STR);
		pkg_meta_release(&m);
		json_decref(doc);
	}
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_fields),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_odd_values),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
