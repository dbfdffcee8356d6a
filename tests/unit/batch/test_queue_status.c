// SPDX-License-Identifier: GPL-2.0
/*
 * test_queue_status.c - the queue's status document into struct
 * queue_status (lab/batch/queue_status_json.c): every field of a job, its
 * Slurm jobs and its items, the defaults of what is missing or of another
 * type, and the refusals of what is not a status document or past a bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch/queue_status.h"

static const char *doc_text =
	"[{\"id\": 3, \"run\": \"r1\", \"job\": \"j\", \"priority\": 5, \"added\": 1.5,"
	" \"counts\": {\"done\": 2, \"queued\": 1}, \"builds\": {\"failed\": 1},"
	" \"items\": [{\"id\": 7, \"variant\": \"a\", \"state\": \"queued\", \"kind\": \"build\","
	"   \"request\": \"abc\", \"needed_by\": 4, \"error\": \"oops\"},"
	"  {\"id\": 8, \"variant\": \"b\", \"first\": 2, \"count\": 3, \"state\": \"done\","
	"   \"kind\": \"boot\", \"placement\": {\"node\": 1}}],"
	" \"slurm\": {\"array\": \"10\", \"finish\": \"11\", \"builds\": {\"a\": \"12\"},"
	"   \"states\": {\"10_0\": \"RUNNING\", \"12\": 5}},"
	" \"mean_item_s\": null, \"eta_s\": 30.0},"
	" {\"id\": 4, \"run\": 9, \"slurm\": null, \"eta_s\": null, \"items\": []}]";

static void test_fields(void **state)
{
	json_t *doc = json_loads(doc_text, 0, NULL);
	struct queue_status st;
	const struct queue_status_job *j;
	const struct queue_status_item *b, *o;

	(void)state;
	assert_non_null(doc);
	assert_int_equal(queue_status_from_json(doc, &st), 0);
	json_decref(doc); /* the record holds no borrowed reference */
	assert_int_equal(st.njobs, 2);
	j = &st.jobs[0];
	assert_int_equal(j->id, 3);
	assert_string_equal(j->run, "r1");
	assert_int_equal(j->priority, 5);
	assert_int_equal(j->ncounts, 2);
	assert_string_equal(j->counts[0].state, "done"); /* in the document's order */
	assert_int_equal(qs_count_of(j->counts, j->ncounts, "done"), 2);
	assert_int_equal(qs_count_of(j->counts, j->ncounts, "queued"), 1);
	assert_int_equal(qs_count_of(j->counts, j->ncounts, "running"), 0);
	assert_int_equal(qs_count_of(j->builds, j->nbuilds, "failed"), 1);
	assert_true(j->has_eta);
	assert_true(j->eta_s == 30.0);
	assert_true(j->has_slurm);
	assert_string_equal(j->slurm.array, "10");
	assert_string_equal(j->slurm.finish, "11");
	assert_int_equal(j->slurm.nbuilds, 1);
	assert_string_equal(j->slurm.builds[0].key, "a");
	assert_string_equal(j->slurm.builds[0].value, "12");
	assert_int_equal(j->slurm.nstates, 2);
	assert_string_equal(j->slurm.states[0].value, "RUNNING");
	assert_null(j->slurm.states[1].value); /* not a string */
	assert_int_equal(j->nitems, 2);
	b = &j->items[0];
	assert_true(b->build);
	assert_int_equal(b->id, 7);
	assert_string_equal(b->variant, "a");
	assert_string_equal(b->request, "abc");
	assert_int_equal(b->needed_by, 4);
	assert_string_equal(b->error, "oops");
	assert_null(b->placement);
	o = &j->items[1];
	assert_false(o->build);
	assert_int_equal(o->first, 2);
	assert_int_equal(o->count, 3);
	assert_string_equal(o->state, "done");
	assert_null(o->error);
	assert_non_null(o->placement);
	assert_int_equal(json_integer_value(json_object_get(o->placement, "node")), 1);
	/* missing or of another type: what the readers always read */
	j = &st.jobs[1];
	assert_null(j->run);
	assert_false(j->has_slurm);
	assert_false(j->has_eta);
	assert_int_equal(j->ncounts, 0);
	assert_int_equal(j->nitems, 0);
	queue_status_release(&st);
	assert_int_equal(st.njobs, 0);
}

static void refuse(const char *text)
{
	json_t *doc = json_loads(text, 0, NULL);
	struct queue_status st;

	assert_non_null(doc);
	assert_int_equal(queue_status_from_json(doc, &st), -1);
	assert_int_equal(st.njobs, 0);
	assert_null(st.jobs);
	json_decref(doc);
}

static void test_refusals(void **state)
{
	(void)state;
	refuse("{\"id\": 1}"); /* not an array */
	refuse("[1]"); /* a job that is not an object */
	refuse("[{\"id\": 1}, \"x\"]");
	refuse("[{\"id\": 1, \"items\": [{\"id\": 2}, 3]}]"); /* an item that is not one */
}

static void test_bounds(void **state)
{
	json_t *doc = json_array(), *job = json_object(), *counts = json_object();
	struct queue_status st;
	char key[32];

	(void)state;
	for (int i = 0; i <= QSTATUS_MAX_NAMES; i++) {
		snprintf(key, sizeof(key), "s%d", i);
		json_object_set_new(counts, key, json_integer(i));
	}
	json_object_set_new(job, "counts", counts);
	json_array_append_new(doc, job);
	assert_int_equal(queue_status_from_json(doc, &st), -1);
	assert_null(st.jobs);
	/* at the bound it is read */
	json_object_del(counts, "s0");
	assert_int_equal(queue_status_from_json(doc, &st), 0);
	assert_int_equal(st.jobs[0].ncounts, QSTATUS_MAX_NAMES);
	queue_status_release(&st);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
