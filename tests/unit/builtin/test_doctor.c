// SPDX-License-Identifier: GPL-2.0
/*
 * test_doctor.c - "mmlab doctor"'s report (lab/builtin/doctor_json.c): the
 * --json document of a struct doctor_report, in the keys and order it has
 * always had, and the kernels and libvirt facts read into the report,
 * whatever shape they come in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "builtin/doctor.h"
#include "lib/util.h"

static const char *const names[DOCTOR_NTOOLS] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);

	assert_non_null(j);
	return j;
}

static void test_report(void **state)
{
	struct doctor_report d = { .results = "results",
				   .cache = "/c",
				   .guest_dir = "/g",
				   .agent = true,
				   .kvm_present = true,
				   .kvm_usable = true,
				   .tools = names,
				   .ok = true };
	json_t *j, *want;
	const char *key;
	const char *const order[] = { "version", "results", "cache",   "guest", "kvm",
				      "kernels", "tools",   "libvirt", "accel", "ok" };
	size_t i = 0;
	void *it;

	(void)state;
	doctor_set_kernels(&d, parse("[{\"path\": \"/boot/vmlinuz-6.1\", \"release\": \"6.1\"},"
				     " {\"release\": \"x\"}]"));
	assert_int_equal(d.kernel_paths.n, 2);
	assert_string_equal(d.kernel_paths.v[0], "/boot/vmlinuz-6.1");
	assert_string_equal(d.kernel_paths.v[1], "?"); /* no path: named, not lost */
	doctor_set_facts(&d, parse("{\"libvirt\": \"9.0.0\", \"qemu\": \"7.2\", \"uri\": \"u\"}"));
	assert_true(d.reachable);
	assert_string_equal(d.libvirt, "9.0.0");
	assert_string_equal(d.qemu, "7.2");
	d.tool_paths[1] = xstrdup("/usr/bin/b");
	d.accel_known = true;
	d.accel.accel = DOM_ACCEL_TCG;
	strcpy(d.accel.reason, "no KVM");
	d.accel.cached = true;
	j = doctor_json(&d);
	for (it = json_object_iter(j); it; it = json_object_iter_next(j, it), i++) {
		key = json_object_iter_key(it);
		assert_true(i < ARRAY_SIZE(order));
		assert_string_equal(key, order[i]);
	}
	assert_int_equal(i, ARRAY_SIZE(order));
	want = parse("{\"libvirt\": \"9.0.0\", \"qemu\": \"7.2\", \"uri\": \"u\","
		     " \"reachable\": true}");
	assert_true(json_equal(json_object_get(j, "libvirt"), want));
	json_decref(want);
	want = parse("{\"accel\": \"tcg\", \"reason\": \"no KVM\", \"probed\": false,"
		     " \"cached\": true}");
	assert_true(json_equal(json_object_get(j, "accel"), want));
	json_decref(want);
	assert_true(json_is_null(json_object_get(json_object_get(j, "tools"), "a")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "tools"), "b")),
			    "/usr/bin/b");
	assert_int_equal(json_array_size(json_object_get(j, "kernels")), 2);
	json_decref(j);
	doctor_release(&d);
}

/* what is not the expected shape is an empty list, an unreachable libvirt */
static void test_bad_input(void **state)
{
	struct doctor_report d = { .tools = names, .accel_note = "cannot probe" };
	json_t *j;

	(void)state;
	doctor_set_kernels(&d, parse("{\"path\": \"/boot/x\"}"));
	assert_int_equal(d.kernel_paths.n, 0);
	doctor_set_kernels(&d, NULL);
	assert_int_equal(d.kernel_paths.n, 0);
	doctor_set_facts(&d, NULL);
	assert_false(d.reachable);
	assert_null(d.libvirt);
	doctor_set_facts(&d, parse("[\"9.0.0\"]"));
	assert_null(d.libvirt);
	doctor_set_facts(&d, parse("{\"libvirt\": 9, \"uri\": null}"));
	assert_null(d.libvirt);
	assert_null(d.uri);
	j = doctor_json(&d);
	assert_string_equal(json_string_value(json_object_get(j, "accel")), "cannot probe");
	assert_true(json_is_array(json_object_get(j, "kernels")));
	json_decref(j);
	doctor_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
