// SPDX-License-Identifier: GPL-2.0
/*
 * test_variant.c - variant_dup() copies every field of struct job_variant
 * deeply. When a field is added to the struct, lab/job/variant.c stops
 * building (its _Static_assert); add the field there and here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "job/job.h"

/* every field set, and set to something no other field holds */
static void fill(struct job_variant *v)
{
	memset(v, 0, sizeof(*v));
	v->name = strdup("base");
	v->kernel_kind = KERNEL_SOURCE;
	v->kernel_path = strdup("/k/bzImage");
	v->kernel_line = 7;
	v->kernel_col = 13;
	v->cmdline = strdup("quiet");
	kvlist_set(&v->sysctl, "vm.compaction_proactiveness", "20");
	kvlist_set(&v->sysctl, "vm.swappiness", "0");
	v->thp_enabled = strdup("always");
	v->thp_defrag = strdup("madvise");
	v->no_tracepoints = true;
	v->ref = strdup("v6.12");
	strlist_push(&v->revert, "abc123");
	strlist_push(&v->cherry_pick, "def456");
	strlist_push(&v->cherry_pick, "0789ab");
	strlist_push(&v->apply, "/p/0001.patch");
	v->pkg_name = strdup("linux-image-6.1.0-47-amd64");
	v->pkg_version = strdup("6.1.170-3");
	v->pkg_deb = strdup("/k/linux.deb");
	v->pkg_rpm = strdup("/k/kernel-core.rpm");
	v->pkg_modules = strdup("/k/kernel-modules.rpm");
}

static void same_str(const char *a, const char *b)
{
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	assert_ptr_not_equal(a, b); /* deep: its own copy */
}

static void same_list(const struct strlist *a, const struct strlist *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		same_str(a->v[i], b->v[i]);
}

static void test_dup_every_field(void **state)
{
	struct job_variant v, d;

	(void)state;
	fill(&v);
	variant_dup(&d, &v);
	same_str(d.name, v.name);
	assert_int_equal(d.kernel_kind, v.kernel_kind);
	same_str(d.kernel_path, v.kernel_path);
	assert_int_equal(d.kernel_line, 7);
	assert_int_equal(d.kernel_col, 13);
	same_str(d.cmdline, v.cmdline);
	assert_int_equal(d.sysctl.n, v.sysctl.n);
	for (size_t i = 0; i < v.sysctl.n; i++) {
		same_str(d.sysctl.v[i].key, v.sysctl.v[i].key);
		same_str(d.sysctl.v[i].value, v.sysctl.v[i].value);
	}
	same_str(d.thp_enabled, v.thp_enabled);
	same_str(d.thp_defrag, v.thp_defrag);
	assert_true(d.no_tracepoints);
	same_str(d.ref, v.ref);
	same_list(&d.revert, &v.revert);
	same_list(&d.cherry_pick, &v.cherry_pick);
	same_list(&d.apply, &v.apply);
	same_str(d.pkg_name, v.pkg_name);
	same_str(d.pkg_version, v.pkg_version);
	same_str(d.pkg_deb, v.pkg_deb);
	same_str(d.pkg_rpm, v.pkg_rpm);
	same_str(d.pkg_modules, v.pkg_modules);

	/* the copy outlives the original (ASan reports a shallow copy here) */
	variant_release(&v);
	assert_string_equal(d.ref, "v6.12");
	assert_string_equal(d.cherry_pick.v[1], "0789ab");
	assert_string_equal(kvlist_get(&d.sysctl, "vm.swappiness"), "0");
	variant_release(&d);
	assert_null(d.name);
}

static void test_dup_empty(void **state)
{
	struct job_variant v = { .name = strdup("distro") }, d;

	(void)state;
	variant_dup(&d, &v);
	assert_string_equal(d.name, "distro");
	assert_null(d.ref);
	assert_null(d.kernel_path);
	assert_int_equal(d.revert.n, 0);
	assert_int_equal(d.sysctl.n, 0);
	variant_release(&v);
	variant_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dup_every_field),
		cmocka_unit_test(test_dup_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
