// SPDX-License-Identifier: GPL-2.0
/*
 * test_pool.c - the worker pool of "queue run" (lab/batch/pool.c) on a real
 * SQLite queue and store in a temporary directory, on a fake 4-CPU host,
 * with fake boot and build functions in place of runner_boot() and the
 * kernel cache: the forked workers store iterations (or not), exit with
 * chosen codes, or stop the pool, and the tests check what the queue and
 * the store say afterwards: claims and placement, done, failed, requeued
 * and recovered items, builds handed to the boots that wait for them.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch/pool.h"
#include "batch/queue.h"
#include "batch/worker.h"
#include "store/store.h"
#include "store/run_record.h"
#include "lib/strbuf.h"
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

static char *dir, *nodes;
static struct store *store;
static struct queue *queue;

static void write_text(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
}

/* a host of one node with 4 CPUs and 4 GiB free */
static void fake_host(void)
{
	char *d = xasprintf("%s/node0", nodes), *p;

	assert_int_equal(mkdir_p(d, 0755), 0);
	p = xasprintf("%s/cpulist", d);
	write_text(p, "0-3\n");
	free(p);
	p = xasprintf("%s/meminfo", d);
	write_text(p, "Node 0 MemTotal: 8388608 kB\nNode 0 MemFree: 4194304 kB\n"
		      "Node 0 Active(file): 0 kB\nNode 0 Inactive(file): 0 kB\n");
	free(p);
	free(d);
}

static int setup(void **state)
{
	char t1[] = "/tmp/mmlab-test-pool.XXXXXX", t2[] = "/tmp/mmlab-test-nodes.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(t1));
	assert_non_null(mkdtemp(t2));
	dir = xstrdup(t1);
	nodes = xstrdup(t2);
	fake_host();
	setenv("MMLAB_SYSFS_NODE_DIR", nodes, 1);
	lab_quiet = true;
	store = store_open(dir);
	queue = queue_open(dir);
	assert_non_null(store);
	assert_non_null(queue);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	queue_close(queue);
	store_close(store);
	rm_rf(dir);
	rm_rf(nodes);
	free(dir);
	free(nodes);
	unsetenv("MMLAB_SYSFS_NODE_DIR");
	return 0;
}

/* a variant's kernel built from source: waits for the build of request */
struct build_req {
	const char *variant, *request;
};

/* job.yaml of a run: one node of cpus vCPUs, the variants' kernels "distro" */
static void write_job(const char *run, const char *name, const char *const variants[], size_t nv,
		      unsigned int iterations, unsigned int cpus)
{
	struct strlist vl = { 0 };
	char *path = xasprintf("%s/%s/job.yaml", dir, run), *vs, *yaml;

	for (size_t v = 0; v < nv; v++)
		strlist_pushf(&vl, "  - { name: %s, kernel: distro }\n", variants[v]);
	vs = strlist_join(&vl, "");
	yaml = xasprintf("name: %s\nvariants:\n%stopology: { nodes: 1, cpus_per_node: %u, "
			 "memory_per_node: 256M }\nworkload: { name: noop }\niterations: %u\n",
			 name, vs, cpus, iterations);
	write_text(path, yaml);
	strlist_free(&vl);
	free(vs);
	free(yaml);
	free(path);
}

/*
 * A queued run of job name as runner_create() leaves it (job.yaml and
 * run.json in the store) and its queue job (id in *job): one boot of one
 * iteration per variant and iteration, the guest cpus vCPUs; the variant
 * of breq waits for the kernel build of its request. The run id, malloc'd.
 */
static char *add_run(const char *name, const char *const variants[], size_t nv,
		     unsigned int iterations, unsigned int cpus, const struct build_req *breq,
		     long long *job)
{
	char *run = store_run_create(store, name);
	json_t *rj, *boots = json_array(), *vars = json_array();

	assert_non_null(run);
	for (size_t v = 0; v < nv; v++) {
		bool builds = breq && !strcmp(breq->variant, variants[v]);
		json_t *k = builds ? json_pack("{s:b, s:s, s:[s]}", "build_pending", 1, "request",
					       breq->request, "operations", "apply x.patch") :
				     json_pack("{s:s}", "source", "distro");

		json_array_append_new(vars,
				      json_pack("{s:s, s:o}", "name", variants[v], "kernel", k));
		for (unsigned int i = 0; i < iterations; i++)
			json_array_append_new(boots,
					      json_pack("{s:s, s:i, s:i, s:s?}", "variant",
							variants[v], "first", (int)i, "count", 1,
							"build", builds ? breq->request : NULL));
	}
	write_job(run, name, variants, nv, iterations, cpus);
	rj = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O}", "run", run, "job", name, "status",
		       "queued", "job_dir", dir, "variants", vars, "boots", boots);
	assert_int_equal(run_json_write(store, run, rj), 0);
	*job = queue_add_json(queue, run, name, 0, boots, NULL);
	assert_true(*job > 0);
	json_decref(rj);
	json_decref(boots);
	json_decref(vars);
	return run;
}

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* in a worker: store the boot's iterations as status, with when and where it ran */
static enum batch_result store_boot(struct store *s, const struct queue_item *it,
				    const struct boot_opts *bo, const char *status, double t0)
{
	for (unsigned int i = 0; i < it->count; i++) {
		json_t *x = json_pack("{s:i, s:s, s:{}, s:O?, s:f, s:f, s:i}", "index",
				      (int)(it->first + i), "status", status, "metrics", "boot",
				      bo->placement, "t0", t0, "t1", now_real(), "attempt",
				      (int)bo->attempt);
		int rc = store_iteration_write(s, it->run, it->variant, it->first + i, x);

		json_decref(x);
		if (rc)
			return BATCH_BAD_INPUT;
	}
	return BATCH_OK;
}

/*
 * The fake runner_boot(), in the forked worker; the variant's name says
 * what it does. No cmocka assertion may fail in a child: it exits instead.
 */
static enum batch_result fake_boot(struct store *s, const struct queue_item *it,
				   const struct boot_opts *bo, void *arg)
{
	const char *v = it->variant;
	double t0 = now_real();

	(void)arg;
	printf("fake boot of %s %s/%u\n", it->run, v, it->first);
	if (!strcmp(v, "fail"))
		return BATCH_FAILED; /* stored nothing */
	if (!strcmp(v, "notok"))
		return store_boot(s, it, bo, "crashed", t0) ?: BATCH_FAILED;
	if (!strcmp(v, "stop")) {
		kill(getppid(), SIGTERM); /* as ^C of queue run would */
		for (;;)
			pause(); /* until the pool's SIGTERM */
	}
	if (!strcmp(v, "flaky") && bo->attempt < 2)
		return BATCH_INTERRUPTED; /* queued again */
	if (!strcmp(v, "slow"))
		usleep(400000);
	return store_boot(s, it, bo, "ok", t0);
}

/* the fake kernel build: variant "kbad" fails, the others build */
static enum batch_result fake_build(struct store *s, struct queue *q, const struct queue_item *it,
				    const char *cache_dir, void *arg)
{
	bool bad = !strcmp(it->variant, "kbad");
	json_t *res;
	int rc;

	(void)s;
	(void)arg;
	if (!q || strcmp(cache_dir, "/cache"))
		return BATCH_BAD_INPUT;
	res = bad ? json_pack("{s:s, s:b, s:s}", "source", "build", "build_failed", 1, "build_log",
			      "/cache/build.log") :
		    json_pack("{s:s, s:s, s:s}", "source", "build", "path", "/cache/k/bzImage",
			      "cache_key", "k1");
	rc = queue_build_set_result(q, it->id, res);
	json_decref(res);
	return rc || bad ? BATCH_FAILED : BATCH_OK;
}

static const struct pool_ops fake_ops = { .boot = fake_boot, .build = fake_build };

static int run_pool(unsigned int jobs)
{
	struct pool_opts o = {
		.jobs = jobs, .build_jobs = 1, .cache_dir = "/cache", .ops = &fake_ops
	};

	return pool_run(queue, store, &o);
}

/* queue status of job (a new reference) */
static json_t *job_status(long long job)
{
	json_t *st = queue_status(queue, 0), *j, *out = NULL;
	size_t i;

	json_array_foreach(st, i, j)
		if (json_integer_value(json_object_get(j, "id")) == job)
			out = json_incref(j);
	json_decref(st);
	assert_non_null(out);
	return out;
}

static long long count_of(json_t *j, const char *state)
{
	return json_integer_value(json_object_get(json_object_get(j, "counts"), state));
}

/* item i (in run order) of a job's status */
static json_t *item(json_t *j, size_t i)
{
	return json_array_get(json_object_get(j, "items"), i);
}

static const char *item_str(json_t *j, size_t i, const char *key)
{
	return json_string_value(json_object_get(item(j, i), key)) ?: "";
}

static const char *run_status(const char *run)
{
	static char buf[32];
	json_t *rj = run_json_read(store, run);

	snprintf(buf, sizeof(buf), "%s", json_string_value(json_object_get(rj, "status")) ?: "");
	json_decref(rj);
	return buf;
}

/* iteration.json of a stored iteration (a new reference) */
static json_t *iteration(const char *run, const char *variant, unsigned int i)
{
	char *path = store_iteration_path(store, run, variant, i);
	char *p = xasprintf("%s/iteration.json", path);
	json_t *it = json_load_file(p, 0, NULL);

	assert_non_null(it);
	free(p);
	free(path);
	return it;
}

static void test_runs_every_boot(void **state)
{
	const char *const vs[] = { "a", "b" };
	long long job;
	char *run = add_run("all", vs, 2, 2, 1, NULL, &job), *log, *text;
	json_t *j, *it;
	size_t len;

	(void)state;
	assert_int_equal(run_pool(2), 0);
	j = job_status(job);
	assert_int_equal(count_of(j, "done"), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(item_str(j, i, "state"), "done");
		assert_int_equal(json_integer_value(json_object_get(item(j, i), "attempts")), 1);
		/* the placement is recorded in the item and given to the boot */
		assert_int_equal(json_array_size(json_object_get(
					 json_object_get(item(j, i), "placement"), "vcpu_pins")),
				 1);
	}
	assert_string_equal(run_status(run), "complete");
	it = iteration(run, "b", 1);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "ok");
	assert_int_equal(json_array_size(json_object_get(json_object_get(it, "boot"), "vcpu_pins")),
			 1);
	assert_int_equal(json_integer_value(json_object_get(it, "attempt")), 1);
	/* the worker's output went to its log */
	log = xasprintf("%s/%s/queue/b-1.log", dir, run);
	text = read_file(log, &len, 1 << 20);
	assert_non_null(text);
	assert_non_null(strstr(text, "fake boot of"));
	/* and the runner left: another may register */
	free(text);
	free(log);
	json_decref(it);
	json_decref(j);
	free(run);
}

/* [t0, t1] and pins of the stored iterations 0..n-1 of variant v */
struct span {
	double t0, t1;
	json_t *pins;
};

static void spans(const char *run, const char *v, unsigned int n, struct span *out)
{
	for (unsigned int i = 0; i < n; i++) {
		json_t *it = iteration(run, v, i);

		out[i].t0 = json_number_value(json_object_get(it, "t0"));
		out[i].t1 = json_number_value(json_object_get(it, "t1"));
		out[i].pins =
			json_incref(json_object_get(json_object_get(it, "boot"), "vcpu_pins"));
		json_decref(it);
	}
}

static bool overlap(const struct span *a, const struct span *b)
{
	return a->t0 < b->t1 && b->t0 < a->t1;
}

static bool pins_disjoint(json_t *a, json_t *b)
{
	size_t i, k;
	json_t *x, *y;

	json_array_foreach(a, i, x)
		json_array_foreach(b, k, y)
			if (json_integer_value(x) == json_integer_value(y))
				return false;
	return true;
}

/* 2-vCPU guests on 4 host CPUs: two at a time, never sharing a CPU */
static void test_placement_bounds_concurrency(void **state)
{
	const char *const vs[] = { "slow" };
	struct span sp[4];
	unsigned int overlaps = 0;
	long long job;
	char *run = add_run("place", vs, 1, 4, 2, NULL, &job);

	(void)state;
	assert_int_equal(run_pool(0), 0);
	spans(run, "slow", 4, sp);
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int at_once = 1;

		assert_int_equal(json_array_size(sp[i].pins), 2);
		for (unsigned int k = 0; k < 4; k++) {
			if (k == i || !overlap(&sp[i], &sp[k]))
				continue;
			assert_true(pins_disjoint(sp[i].pins, sp[k].pins));
			overlaps += k > i;
			at_once++;
		}
		/* ones overlapping i may not overlap each other: 3 is the bound */
		assert_true(at_once <= 3);
	}
	assert_true(overlaps >= 1);
	for (unsigned int i = 0; i < 4; i++)
		json_decref(sp[i].pins);
	free(run);
}

/* --jobs 1: one VM at a time */
static void test_jobs_caps_vms(void **state)
{
	const char *const vs[] = { "slow" };
	struct span sp[3];
	long long job;
	char *run = add_run("one", vs, 1, 3, 1, NULL, &job);

	(void)state;
	assert_int_equal(run_pool(1), 0);
	spans(run, "slow", 3, sp);
	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int k = i + 1; k < 3; k++)
			assert_false(overlap(&sp[i], &sp[k]));
	for (unsigned int i = 0; i < 3; i++)
		json_decref(sp[i].pins);
	free(run);
}

/* a boot that stores nothing fails; one stored but not ok is done */
static void test_failed_boots(void **state)
{
	const char *const vs[] = { "fail", "notok" };
	long long job;
	char *run = add_run("bad", vs, 2, 1, 1, NULL, &job);
	json_t *j;

	(void)state;
	assert_int_equal(run_pool(2), -1);
	j = job_status(job);
	assert_string_equal(item_str(j, 0, "state"), "failed");
	assert_non_null(strstr(item_str(j, 0, "error"), "the boot stored nothing (exit 1)"));
	assert_string_equal(item_str(j, 1, "state"), "done");
	assert_string_equal(item_str(j, 1, "error"), "stored, not ok");
	/* every item final: the run is complete, with its failed boot */
	assert_string_equal(run_status(run), "complete");
	json_decref(j);
	free(run);
}

/* exit 3 (interrupted) queues the boot again: its next attempt runs */
static void test_interrupted_boot_requeued(void **state)
{
	const char *const vs[] = { "flaky" };
	long long job;
	char *run = add_run("flaky", vs, 1, 1, 1, NULL, &job);
	json_t *j, *it;

	(void)state;
	assert_int_equal(run_pool(1), 0);
	j = job_status(job);
	assert_string_equal(item_str(j, 0, "state"), "done");
	assert_int_equal(json_integer_value(json_object_get(item(j, 0), "attempts")), 2);
	it = iteration(run, "flaky", 0);
	assert_int_equal(json_integer_value(json_object_get(it, "attempt")), 2);
	json_decref(it);
	json_decref(j);
	free(run);
}

/* SIGTERM to the pool: workers stopped, items queued again, runner gone */
static void test_stop(void **state)
{
	const char *const vs[] = { "stop" };
	struct queue_owner self;
	struct sigaction now;
	long long job, other;
	char *run = add_run("stop", vs, 1, 1, 1, NULL, &job);
	json_t *j;

	(void)state;
	assert_int_equal(run_pool(1), -1);
	j = job_status(job);
	assert_int_equal(count_of(j, "queued"), 1);
	assert_string_equal(item_str(j, 0, "error"), "interrupted");
	/* SIGTERM ends this process again, as before the pool ran */
	sigaction(SIGTERM, NULL, &now);
	assert_true(now.sa_handler == SIG_DFL);
	queue_owner_self(&self);
	assert_int_equal(queue_runner_register(queue, &self, POOL_STALE_S, &other), 0);
	queue_runner_unregister(queue, &self);
	assert_int_equal(queue_cancel(queue, job), 1);
	json_decref(j);
	free(run);
}

/* a pid that is certainly dead: a child we reaped */
static long long dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* a dead runner's boots: the stored one is done, the other runs again */
static void test_recovers_dead_runner(void **state)
{
	const char *const vs[] = { "a" };
	struct queue_owner dead;
	struct queue_item it0, it1;
	long long job;
	char *run = add_run("dead", vs, 1, 2, 1, NULL, &job);
	json_t *j, *x;

	(void)state;
	queue_owner_self(&dead);
	dead.pid = dead_pid();
	assert_int_equal(queue_claim(queue, &dead, NULL, NULL, &it0), 0);
	assert_int_equal(queue_claim(queue, &dead, NULL, NULL, &it1), 0);
	/* the second was stored before its runner died */
	x = json_pack("{s:i, s:s, s:{}, s:b}", "index", 1, "status", "ok", "metrics", "before", 1);
	assert_int_equal(store_iteration_write(store, run, "a", 1, x), 0);
	json_decref(x);
	assert_int_equal(run_pool(1), 0);
	j = job_status(job);
	assert_int_equal(count_of(j, "done"), 2);
	assert_int_equal(json_integer_value(json_object_get(item(j, 0), "attempts")), 2);
	assert_int_equal(json_integer_value(json_object_get(item(j, 1), "attempts")), 1);
	x = iteration(run, "a", 1);
	assert_true(json_is_true(json_object_get(x, "before"))); /* not run again */
	json_decref(x);
	x = iteration(run, "a", 0);
	assert_int_equal(json_integer_value(json_object_get(x, "attempt")), 2);
	json_decref(x);
	json_decref(j);
	free(run);
}

/* one runner per store: a live one makes the next refuse */
static void test_one_runner(void **state)
{
	const char *const vs[] = { "a" };
	struct queue_owner live;
	long long job, other;
	char *run = add_run("live", vs, 1, 1, 1, NULL, &job);
	pid_t p = fork();
	json_t *j;

	(void)state;
	if (p == 0) {
		pause();
		_exit(0);
	}
	queue_owner_self(&live);
	live.pid = p;
	assert_int_equal(queue_runner_register(queue, &live, POOL_STALE_S, &other), 0);
	assert_int_equal(run_pool(1), -1);
	j = job_status(job);
	assert_int_equal(count_of(j, "queued"), 1);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	queue_runner_unregister(queue, &live);
	assert_int_equal(queue_cancel(queue, job), 1);
	json_decref(j);
	free(run);
}

/* a guest bigger than the host fails at once, with the reason */
static void test_never_fits(void **state)
{
	const char *const vs[] = { "a" };
	long long job;
	char *run = add_run("big", vs, 1, 1, 8, NULL, &job);
	json_t *j;

	(void)state;
	assert_int_equal(run_pool(0), -1);
	j = job_status(job);
	assert_string_equal(item_str(j, 0, "state"), "failed");
	assert_non_null(strstr(item_str(j, 0, "error"), "does not fit on this host"));
	json_decref(j);
	free(run);
}

/*
 * Kernel builds: a good build becomes the kernel of the run that waited
 * for it, whose boot then runs; a failed build fails the boots waiting.
 */
static void test_builds(void **state)
{
	const char *const good[] = { "kgood" }, *const bad[] = { "kbad" };
	const struct build_req rg = { "kgood", "req-good" }, rb = { "kbad", "req-bad" };
	long long jg, jb;
	char *rung = add_run("kg", good, 1, 1, 1, &rg, &jg);
	char *runb = add_run("kb", bad, 1, 1, 1, &rb, &jb);
	json_t *j, *rj, *k;

	(void)state;
	assert_int_equal(run_pool(1), -1);
	j = job_status(jg);
	assert_string_equal(item_str(j, 0, "kind"), "build");
	assert_string_equal(item_str(j, 0, "state"), "done");
	assert_string_equal(item_str(j, 1, "state"), "done");
	json_decref(j);
	rj = run_json_read(store, rung);
	k = json_object_get(json_array_get(json_object_get(rj, "variants"), 0), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "path")), "/cache/k/bzImage");
	assert_false(json_is_true(json_object_get(k, "build_pending")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(k, "operations"), 0)),
			    "apply x.patch");
	json_decref(rj);
	j = job_status(jb);
	assert_string_equal(item_str(j, 0, "state"), "failed");
	assert_string_equal(item_str(j, 1, "state"), "failed");
	assert_non_null(strstr(item_str(j, 1, "error"), "kernel build of variant 'kbad' failed"));
	assert_string_equal(run_status(runb), "complete");
	json_decref(j);
	free(rung);
	free(runb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_every_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placement_bounds_concurrency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_caps_vms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_boots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_boot_requeued, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovers_dead_runner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_runner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
