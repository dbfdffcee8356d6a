// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm_json.c - the two caches of lab/vm/ as typed records: the
 * accelerator verdict (accel_json.c) and the host's facts
 * (facts_json.c), each written and read back the same, and what is not
 * one refused (a damaged file, another version's, a hand edit).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vm/accel_json.h"
#include "vm/facts_json.h"
#include "json_text.h"

static void test_accel_round_trip(void **state)
{
	struct accel_cache c = { .accel = DOM_ACCEL_TCG, .probe_s = 2.5 }, back;
	char err[128], *text;

	(void)state;
	c.key = json_pack("{s:s, s:s}", "hostname", "h", "qemu", "8.2.2");
	strcpy(c.reason, "KVM probe: QEMU could not start a KVM guest: \"x\"");
	strcpy(c.probed_at, "2026-12-06T23:00:00Z");
	text = accel_cache_dump(&c);
	assert_non_null(text);
	assert_int_equal(accel_cache_parse(text, strlen(text), &back, err, sizeof(err)), 0);
	assert_true(json_equal(back.key, c.key));
	assert_int_equal(back.accel, DOM_ACCEL_TCG);
	assert_string_equal(back.reason, c.reason);
	assert_string_equal(back.probed_at, c.probed_at);
	assert_true(back.probe_s == 2.5);
	accel_cache_free(&back);
	free(text);
	json_decref(c.key);
}

static void test_accel_refused(void **state)
{
	static const char *const not_verdicts[] = {
		"{}",
		"[]",
		"{\"key\": 1, \"accel\": \"hvf\", \"reason\": \"r\"}",
		"{\"key\": 1, \"accel\": \"kvm\"}",
		"{\"key\": 1, \"accel\": \"kvm\", \"reason\": 7}",
		"{\"accel\": \"kvm\", \"reason\": \"r\"}",
	};
	static const char good[] = "{\"key\": 1, \"accel\": \"kvm\", \"reason\": \"r\"}";
	struct accel_cache c;
	char err[128], *big;

	(void)state;
	for (size_t i = 0; i < sizeof(not_verdicts) / sizeof(not_verdicts[0]); i++) {
		assert_int_equal(accel_cache_parse(not_verdicts[i], strlen(not_verdicts[i]), &c,
						   err, sizeof(err)),
				 1);
		accel_cache_free(&c);
	}
	assert_int_equal(accel_cache_parse("{\"key\"", 6, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "(line 1)"));
	accel_cache_free(&c);
	assert_int_equal(accel_cache_parse(good, strlen(good), &c, err, sizeof(err)), 0);
	assert_int_equal(c.accel, DOM_ACCEL_KVM);
	assert_string_equal(c.probed_at, "");
	accel_cache_free(&c);
	/* a reason that does not fit, and a file past the bound */
	big = malloc(ACCEL_CACHE_MAX + 64);
	assert_non_null(big);
	strcpy(big, "{\"key\": 1, \"accel\": \"kvm\", \"reason\": \"");
	memset(big + strlen(big), 'r', 600);
	big[38 + 600] = '\0';
	strcat(big, "\"}");
	assert_int_equal(accel_cache_parse(big, strlen(big), &c, err, sizeof(err)), 1);
	accel_cache_free(&c);
	assert_int_equal(accel_cache_parse(big, ACCEL_CACHE_MAX + 1, &c, err, sizeof(err)), -1);
	accel_cache_free(&c);
	free(big);
}

static void test_facts_round_trip(void **state)
{
	struct facts_cache c, back;
	char *text;

	(void)state;
	c.key = json_pack("{s:s, s:{s:s}}", "libvirt", "10.0.0", "emulators", "/usr/bin/q",
			  "1 2 3");
	c.facts = json_pack("{s:s, s:s, s:s}", "qemu", "8.2.2", "libvirt", "10.0.0", "uri",
			    "qemu:///system");
	text = facts_cache_dump(&c);
	assert_non_null(text);
	assert_int_equal(facts_cache_parse(text, strlen(text), &back), 0);
	assert_true(json_equal(back.key, c.key));
	assert_true(json_equal(back.facts, c.facts));
	facts_cache_free(&back);
	facts_cache_free(&c);
	free(text);
}

static void test_facts_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"{}",
		"{\"key\": 1}",
		"{\"key\": 1, \"facts\": []}",
		"{\"key\": 1, \"facts\": {}}",
		"{\"key\": 1, \"facts\": {\"qemu\": 8}}",
		"{\"facts\": {\"qemu\": \"8\"}}",
		"{\"key\": 1, \"facts\": {\"qemu\": \"8\"}", /* cut */
	};
	static const char good[] = "{\"key\": 1, \"facts\": {\"qemu\": \"8\"}}";
	struct facts_cache c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(facts_cache_parse(bad[i], strlen(bad[i]), &c), -1);
		facts_cache_free(&c);
	}
	assert_int_equal(facts_cache_parse(good, strlen(good), &c), 0);
	facts_cache_free(&c);
	assert_int_equal(facts_cache_parse(good, FACTS_CACHE_MAX + 1, &c), -1);
	facts_cache_free(&c);
}

/* the verdict's key: the facts it depends on, null for one the facts lack */
static void test_accel_key(void **state)
{
	json_t *facts = json_text("{\"hostname\": \"h\", \"qemu\": \"8.2.2\", "
				  "\"libvirt\": \"10.0.0\", \"uri\": \"qemu:///system\", "
				  "\"other\": 1}");
	json_t *want = json_text("{\"hostname\": \"h\", \"kernel_release\": \"6.1\", "
				 "\"qemu\": \"8.2.2\", \"libvirt\": \"10.0.0\", "
				 "\"uri\": \"qemu:///system\"}");
	json_t *key = accel_cache_key(facts, "6.1");

	(void)state;
	assert_true(json_equal(key, want));
	json_decref(key);
	json_decref(want);
	json_object_del(facts, "qemu");
	key = accel_cache_key(facts, "6.1");
	assert_true(json_is_null(json_object_get(key, "qemu")));
	assert_string_equal(json_string_value(json_object_get(key, "hostname")), "h");
	json_decref(key);
	json_decref(facts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accel_round_trip), cmocka_unit_test(test_accel_refused),
		cmocka_unit_test(test_accel_key),	 cmocka_unit_test(test_facts_round_trip),
		cmocka_unit_test(test_facts_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
