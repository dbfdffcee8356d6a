// SPDX-License-Identifier: GPL-2.0
/*
 * test_job_yaml.c - the helpers of job_yaml.h that formats built on the job
 * format (the repro recipes) use: job_yaml_map() fills every field of a
 * mapping however many keys it has, and reports unknown, duplicate and
 * non-scalar keys at their FILE:LINE:COLUMN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"

#include "job/job.h"
#include "job/job_yaml.h"

#define NKEYS 20 /* more than the 15 the first job_yaml_map() kept */

static const char *const ext_keys[] = { "wide", NULL };

struct seen {
	bool called;
	bool map_ok;
	unsigned int values[NKEYS]; /* the value of k<i>, 0 if not filled */
	size_t lines[NKEYS]; /* the key's line, 0 if not filled */
};

static void on_key(struct job_yaml *y, const char *key, void *root, void *key_node, void *val,
		   void *arg)
{
	struct seen *s = arg;
	struct job_field f[NKEYS];
	char names[NKEYS][8];

	(void)key;
	(void)root;
	(void)key_node;
	if (!val)
		return;
	s->called = true;
	for (size_t i = 0; i < NKEYS; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		/* not zeroed: job_yaml_map() must start every field afresh */
		f[i] = (struct job_field){ .key = names[i], .key_node = val, .val = val };
	}
	s->map_ok = job_yaml_map(y, val, "wide", "a mapping of k0..k19", f, NKEYS);
	for (size_t i = 0; i < NKEYS; i++) {
		if (!f[i].val)
			continue;
		s->lines[i] = f[i].key_node->start_mark.line + 1;
		job_yaml_uint(y, f[i].val, names[i], 0, 1000, &s->values[i]);
	}
}

static const char job_head[] = "name: j\n"
			       "variants: [ { name: base } ]\n"
			       "topology: { nodes: 1, memory_per_node: 256M }\n"
			       "workload: { name: noop }\n";

static int load(const char *tail, struct seen *s, char **errs)
{
	struct job_ext ext = { .keys = ext_keys, .parse = on_key, .arg = s };
	char *yaml = malloc(strlen(job_head) + strlen(tail) + 1);
	struct job *job = NULL;
	struct capture c;
	int ret;

	assert_non_null(yaml);
	strcpy(yaml, job_head);
	strcat(yaml, tail);
	capture_start(&c);
	ret = job_load_buffer_ext("w.yaml", yaml, strlen(yaml), "/", &ext, &job);
	*errs = capture_end(&c);
	job_free(job);
	free(yaml);
	return ret;
}

/* every one of 20 keys is filled, the last ones too */
static void test_map_many_keys(void **state)
{
	char tail[1024] = "wide:\n";
	struct seen s = { 0 };
	char *errs;

	(void)state;
	for (int i = NKEYS - 1; i >= 0; i--) /* in reverse: order does not matter */
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "  k%d: %d\n", i,
			 100 + i);
	assert_int_equal(load(tail, &s, &errs), 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_true(s.called);
	assert_true(s.map_ok);
	for (int i = 0; i < NKEYS; i++) {
		assert_int_equal(s.values[i], 100 + i);
		assert_int_equal(s.lines[i], 6 + (NKEYS - 1 - i));
	}
}

/* an unknown key after many names every allowed key, at its line and column */
static void test_map_many_keys_errors(void **state)
{
	struct seen s = { 0 };
	char *errs;

	(void)state;
	assert_int_equal(load("wide: { k19: 1, k16: 2, k20: 3, k16: 4, [x]: 5 }\n", &s, &errs), -1);
	assert_true(s.map_ok);
	assert_int_equal(s.values[19], 1);
	assert_int_equal(s.values[16], 2);
	assert_non_null(strstr(
		errs,
		"w.yaml:5:25: error: wide.k20: unknown key 'k20' (did you mean 'k0'?); allowed keys "
		"here: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, "
		"k17, k18, k19\n"));
	assert_non_null(strstr(
		errs,
		"w.yaml:5:33: error: wide.k16: duplicate key (first given at line 5); give each "
		"key once\n"));
	assert_non_null(strstr(
		errs,
		"w.yaml:5:41: error: wide: a key is a list; expected a key name (one of: k0, k1, "));
	assert_non_null(strstr(errs, "w.yaml: 3 errors in the job file"));
	free(errs);
}

/* not a mapping: one error at the value, no field filled */
static void test_map_not_a_mapping(void **state)
{
	struct seen s = { 0 };
	char *errs;

	(void)state;
	assert_int_equal(load("wide: [1, 2]\n", &s, &errs), -1);
	assert_true(s.called);
	assert_false(s.map_ok);
	for (int i = 0; i < NKEYS; i++)
		assert_int_equal(s.lines[i], 0);
	assert_non_null(strstr(
		errs, "w.yaml:5:7: error: wide: got a list; expected a mapping of k0..k19\n"));
	free(errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_many_keys),
		cmocka_unit_test(test_map_many_keys_errors),
		cmocka_unit_test(test_map_not_a_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
