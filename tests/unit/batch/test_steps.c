// SPDX-License-Identifier: GPL-2.0
/*
 * test_steps.c - what Slurm jobs run on their node (lab/batch/steps.c and
 * runstate_finish()), without Slurm or a kernel tree, on a real queue and
 * store in a temporary directory: the kernel build step's answers (no such
 * variant, nothing to build, built by someone else and handed on, a build
 * that fails in its forked child and fails the boots waiting for it), the
 * boot step's refusals, and the finishing step's verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch/fold.h"
#include "batch/queue.h"
#include "batch/runstate.h"
#include "batch/steps.h"
#include "batch/taskrec.h"
#include "store/store.h"
#include "store/run_record.h"
#include "lib/util.h"
#include "store_fixture.h"

/* queue_add() of boots given as run.json's "boots" array (borrowed) */
static long long queue_add_json(struct queue *qu, const char *run, const char *name, int prio,
				json_t *boots, const char *slurm)
{
	json_t *j = json_pack("{s:O}", "boots", boots);
	struct run_record rec;
	long long id;

	assert_int_equal(run_record_from_json(j, &rec), 0);
	assert_non_null(rec.boots);
	id = queue_add(qu, run, name, prio, rec.boots, rec.nboots, slurm);
	run_record_release(&rec);
	json_decref(j);
	return id;
}

/* a new reference, or NULL */
static json_t *run_json_read(struct store *st, const char *run)
{
	struct run_record rec;
	json_t *j;

	if (store_record_read(st, run, &rec))
		return NULL;
	j = run_record_to_json(&rec);
	run_record_release(&rec);
	return j;
}

static char *dir;
static struct store *store;
static struct queue *queue;
static struct store *files; /* the same store as a Slurm node opens it */

static int setup(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-steps.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	unsetenv("SLURM_JOB_ID");
	lab_quiet = true;
	store = store_open(dir);
	queue = queue_open(dir);
	assert_non_null(store);
	assert_non_null(queue);
	files = store_open_files(dir);
	assert_non_null(files);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	queue_close(queue);
	store_close(files);
	store_close(store);
	rm_rf(dir);
	free(dir);
	return 0;
}

/*
 * A queued run as runner_create() leaves it: variant "src" built from
 * source at a tree that does not exist, waiting for the build of request
 * "req-1", and variant "dist" with the distro kernel; one boot each. Its
 * queue job id in *job; the run id, malloc'd.
 */
static char *add_run(long long *job)
{
	char *run = store_run_create(store, "steps");
	char *path = xasprintf("%s/%s/job.yaml", dir, run);
	char *yaml = xasprintf("name: steps\nkernels: { tree: %s/no-tree }\nvariants:\n"
			       "  - { name: src, ref: v1 }\n  - { name: dist, kernel: distro }\n"
			       "topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }\n"
			       "workload: { name: noop }\niterations: 1\n",
			       dir);
	json_t *boots = json_pack("[{s:s, s:i, s:i, s:s}, {s:s, s:i, s:i}]", "variant", "src",
				  "first", 0, "count", 1, "build", "req-1", "variant", "dist",
				  "first", 0, "count", 1);
	json_t *rj = json_pack("{s:s, s:s, s:s, s:s, s:[{s:s, s:{s:b, s:s, s:[]}}, "
			       "{s:s, s:{s:s}}], s:O}",
			       "run", run, "job", "steps", "status", "queued", "job_dir", dir,
			       "variants", "name", "src", "kernel", "build_pending", 1, "request",
			       "req-1", "operations", "name", "dist", "kernel", "source", "distro",
			       "boots", boots);

	assert_int_equal(write_file_atomic(path, yaml, strlen(yaml), 0644), 0);
	assert_int_equal(run_json_write(store, run, rj), 0);
	*job = queue_add_json(queue, run, "steps", 0, boots, NULL);
	assert_true(*job > 0);
	json_decref(rj);
	json_decref(boots);
	free(yaml);
	free(path);
	return run;
}

/* item i of queue job id's status (borrowed from st) */
static json_t *item(json_t *st, long long id, size_t i)
{
	size_t k;
	json_t *j;

	json_array_foreach(st, k, j)
		if (json_integer_value(json_object_get(j, "id")) == id)
			return json_array_get(json_object_get(j, "items"), i);
	fail();
	return NULL;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

/* run.json's kernel of variant i (a new reference) */
static json_t *kernel_of(const char *run, size_t i)
{
	json_t *rj = run_json_read(store, run);
	json_t *k = json_incref(
		json_object_get(json_array_get(json_object_get(rj, "variants"), i), "kernel"));

	json_decref(rj);
	return k;
}

static void test_build_refusals(void **state)
{
	long long job;
	char *run = add_run(&job);

	(void)state;
	assert_int_equal(step_build(files, run, "nope", dir), BATCH_BAD_INPUT);
	assert_int_equal(step_build(files, run, NULL, dir), BATCH_BAD_INPUT);
	assert_int_equal(step_build(files, "no-such-run", "src", dir), BATCH_BAD_INPUT);
	/* the distro kernel needs no build */
	assert_int_equal(step_build(files, run, "dist", dir), 0);
	free(run);
}

/* another build job handed the kernel on: nothing to build, boots find it */
static void test_build_handed_on(void **state)
{
	long long job;
	char *run = add_run(&job);
	char *path = store_kernel_file(store, run, "src"),
	     *kdir = xasprintf("%s/%s/kernels", dir, run);
	const char *text = "{\"request\": \"req-1\", \"kernel\": {\"source\": \"build\","
			   " \"path\": \"/k/bzImage\", \"cache_key\": \"k1\"}}";
	json_t *k;

	(void)state;
	assert_int_equal(mkdir_p(kdir, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
	assert_int_equal(step_build(files, run, "src", dir), 0);
	k = kernel_of(run, 0);
	assert_string_equal(str(k, "path"), "/k/bzImage");
	assert_false(json_is_true(json_object_get(k, "build_pending")));
	json_decref(k);
	free(kdir);
	free(path);
	free(run);
}

/* the build runs in a forked child and fails: its item and the boot fail */
static void test_build_fails(void **state)
{
	long long job;
	char *run = add_run(&job);
	struct taskrec t;
	json_t *st, *k;

	(void)state;
	assert_int_equal(step_build(files, run, "src", dir), BATCH_FAILED);
	/* the node wrote only files: its record, and the failed kernel */
	assert_int_equal(taskrec_read(dir, run, "build-src", &t, NULL), 0);
	assert_int_equal(t.state, TASK_FAILED);
	assert_string_equal(t.request, "req-1");
	assert_non_null(strstr(t.reason, "the kernel build failed"));
	st = queue_status(queue, 0);
	assert_string_equal(str(item(st, job, 0), "state"), "queued");
	json_decref(st);
	/* the submitting host folds it into the queue (a Slurm job's): once */
	assert_int_equal(queue_set_slurm(queue, job, "{\"array\": \"1\"}"), 0);
	assert_int_equal(batch_fold(queue, store), 1);
	assert_int_equal(batch_fold(queue, store), 0);
	st = queue_status(queue, 0);
	assert_string_equal(str(item(st, job, 0), "kind"), "build");
	assert_string_equal(str(item(st, job, 0), "state"), "failed");
	assert_string_equal(str(item(st, job, 1), "state"), "failed");
	assert_non_null(
		strstr(str(item(st, job, 1), "error"), "the kernel build of variant 'src' failed"));
	assert_non_null(strstr(str(item(st, job, 1), "error"), "/slurm/build-src.out"));
	/* the other variant's boot does not wait for it */
	assert_string_equal(str(item(st, job, 2), "state"), "queued");
	k = kernel_of(run, 0);
	assert_true(json_is_true(json_object_get(k, "build_failed")));
	json_decref(k);
	json_decref(st);
	free(run);
}

static void test_exec_refusals(void **state)
{
	long long job;
	char *run = add_run(&job), *rec;

	(void)state;
	assert_int_equal(step_exec(files, run, "2", "/cache", NULL), BATCH_BAD_INPUT);
	assert_int_equal(step_exec(files, run, "x", "/cache", NULL), BATCH_BAD_INPUT);
	assert_int_equal(step_exec(files, run, NULL, "/cache", NULL), BATCH_BAD_INPUT);
	assert_int_equal(step_exec(files, "no-such-run", "0", "/cache", NULL), BATCH_BAD_INPUT);
	/* boot 0 waits for a build nobody made yet */
	assert_int_equal(step_exec(files, run, "0", "/cache", NULL), BATCH_FAILED);
	/* refused before it started: no record */
	rec = taskrec_path(dir, run, "boot-0");
	assert_false(path_exists(rec));
	free(rec);
	free(run);
}

static const char *run_status(const char *run)
{
	static char buf[32];
	json_t *rj = run_json_read(store, run);

	snprintf(buf, sizeof(buf), "%s", str(rj, "status"));
	json_decref(rj);
	return buf;
}

static void store_boot(const char *run, const char *variant)
{
	json_t *it = json_pack("{s:i, s:s, s:{}}", "index", 0, "status", "ok", "metrics");

	assert_int_equal(store_iteration_write(store, run, variant, 0, it), 0);
	json_decref(it);
}

/* the finishing job: complete when every boot is stored */
static void test_finish(void **state)
{
	long long job;
	char *run = add_run(&job);

	(void)state;
	store_boot(run, "dist");
	assert_int_equal(runstate_finish(store, run), BATCH_FAILED);
	assert_string_equal(run_status(run), "incomplete");
	store_boot(run, "src");
	assert_int_equal(runstate_finish(store, run), 0);
	assert_string_equal(run_status(run), "complete");
	assert_int_equal(runstate_finish(store, "no-such-run"), BATCH_BAD_INPUT);
	free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_handed_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finish, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
