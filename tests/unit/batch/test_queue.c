// SPDX-License-Identifier: GPL-2.0
/*
 * test_queue.c - the queue's state machine on a real SQLite file: claims in
 * priority order, finishes, recovery of a dead owner's items (requeued, or
 * done when stored), the one-runner rule, cancel and retry, the ETA, and
 * kernel build items shared between jobs, local and Slurm's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch/queue.h"
#include "batch/queue_status.h"
#include "store/run_record.h"
#include "lib/util.h"

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

static char *dir;

static int setup(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-queue.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

static json_t *boots(unsigned int n)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:i}", "variant", i % 2 ? "b" : "a",
						   "first", (int)(i / 2), "count", 1));
	return a;
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

static void test_transitions(void **state)
{
	(void)state;
	assert_true(item_transition_ok(ITEM_QUEUED, ITEM_RUNNING));
	assert_true(item_transition_ok(ITEM_QUEUED, ITEM_CANCELLED));
	assert_true(item_transition_ok(ITEM_RUNNING, ITEM_DONE));
	assert_true(item_transition_ok(ITEM_RUNNING, ITEM_FAILED));
	assert_true(item_transition_ok(ITEM_RUNNING, ITEM_QUEUED));
	assert_true(item_transition_ok(ITEM_FAILED, ITEM_QUEUED));
	assert_true(item_transition_ok(ITEM_CANCELLED, ITEM_QUEUED));
	assert_false(item_transition_ok(ITEM_DONE, ITEM_QUEUED));
	assert_false(item_transition_ok(ITEM_DONE, ITEM_RUNNING));
	assert_false(item_transition_ok(ITEM_QUEUED, ITEM_DONE));
	assert_true(item_transition_ok(ITEM_QUEUED, ITEM_FAILED)); /* its build failed */
	assert_false(item_transition_ok(ITEM_RUNNING, ITEM_CANCELLED));
	assert_false(item_transition_ok(ITEM_FAILED, ITEM_DONE));
	for (int s = 0; s < ITEM_NSTATES; s++)
		assert_int_equal(item_state_parse(item_state_name(s)), s);
	assert_int_equal(item_state_parse("bogus"), -1);
}

static bool odd_first(const struct queue_item *it, void *arg)
{
	(void)arg;
	return it->variant[0] == 'b';
}

/* the typed record of a real status document has what the document has */
static void check_typed_status(const json_t *doc)
{
	struct queue_status ts;

	assert_int_equal(queue_status_from_json(doc, &ts), 0);
	assert_int_equal(ts.njobs, json_array_size(doc));
	for (size_t i = 0; i < ts.njobs; i++) {
		const json_t *j = json_array_get(doc, i);
		const json_t *items = json_object_get(j, "items");
		const struct queue_status_job *tj = &ts.jobs[i];

		assert_int_equal(tj->id, json_integer_value(json_object_get(j, "id")));
		assert_string_equal(tj->run, json_string_value(json_object_get(j, "run")));
		assert_int_equal(tj->has_slurm, json_is_object(json_object_get(j, "slurm")));
		assert_int_equal(tj->has_eta, json_is_number(json_object_get(j, "eta_s")));
		assert_int_equal(tj->ncounts, json_object_size(json_object_get(j, "counts")));
		assert_int_equal(tj->nitems, json_array_size(items));
		for (size_t k = 0; k < tj->nitems; k++) {
			const json_t *it = json_array_get(items, k);

			assert_int_equal(tj->items[k].id,
					 json_integer_value(json_object_get(it, "id")));
			assert_string_equal(tj->items[k].state,
					    json_string_value(json_object_get(it, "state")));
			assert_string_equal(tj->items[k].variant,
					    json_string_value(json_object_get(it, "variant")));
		}
	}
	assert_int_equal(qs_count_of(ts.jobs[1].counts, ts.jobs[1].ncounts, "done"), 1);
	assert_true(ts.jobs[2].has_slurm);
	queue_status_release(&ts);
}

static void test_claim_order_and_finish(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me;
	struct queue_item it;
	json_t *b = boots(4), *st;
	long long j1, j2;

	(void)state;
	assert_non_null(q);
	queue_owner_self(&me);
	j1 = queue_add_json(q, "run1", "one", 0, b, NULL);
	j2 = queue_add_json(q, "run2", "two", 7, b, NULL);
	assert_true(j1 > 0 && j2 > j1);
	assert_int_equal(queue_add_json(q, "run3", "slurm", 99, b, "{}") > 0, 1);
	/* the higher priority job first; the Slurm job never */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(it.job, j2);
	assert_string_equal(it.run, "run2");
	assert_string_equal(it.variant, "a");
	assert_int_equal(it.state, ITEM_RUNNING);
	assert_int_equal(it.attempts, 1);
	/* a job's run, and its boots running now */
	{
		unsigned int running;
		char *run;

		assert_int_equal(queue_job_run(q, j2, &run, &running), 0);
		assert_string_equal(run, "run2");
		assert_int_equal(running, 1);
		free(run);
		assert_int_equal(queue_job_run(q, j1, &run, &running), 0);
		assert_string_equal(run, "run1");
		assert_int_equal(running, 0);
		free(run);
		assert_int_equal(queue_job_run(q, 999, &run, &running), -1);
		assert_null(run);
	}
	/* fits() can skip items that do not fit now */
	assert_int_equal(queue_claim(q, &me, odd_first, NULL, &it), 0);
	assert_string_equal(it.variant, "b");
	assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	/* a done item cannot go back */
	assert_int_equal(queue_finish(q, it.id, ITEM_QUEUED, NULL), -1);
	for (int i = 0; i < 6; i++)
		assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 1);
	st = queue_status(q, 2);
	assert_int_equal(json_array_size(st), 3);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_array_get(st, 1), "counts"), "done")),
			 1);
	assert_true(json_is_object(json_object_get(json_array_get(st, 2), "slurm")));
	check_typed_status(st);
	json_decref(st);
	json_decref(b);
	queue_close(q);
}

static bool stored_if_a(const struct queue_item *it, void *arg)
{
	(void)arg;
	return it->variant[0] == 'a';
}

/* an owner that exited but is not reaped yet (a zombie) is dead too */
static void test_recover_zombie_owner(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me, zombie;
	struct queue_item it;
	json_t *b = boots(1);
	pid_t child;

	(void)state;
	queue_owner_self(&me);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitid(P_PID, child, NULL, WEXITED | WNOWAIT), 0);
	zombie = me;
	zombie.pid = child;
	assert_true(queue_add_json(q, "r", "j", 0, b, NULL) > 0);
	assert_int_equal(queue_claim(q, &zombie, NULL, NULL, &it), 0);
	assert_int_equal(queue_recover(q, &me, 60, NULL, NULL), 1);
	waitpid(child, NULL, 0);
	json_decref(b);
	queue_close(q);
}

static void test_recover_dead_owner(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me, dead, other_boot, other_host;
	struct queue_item it;
	json_t *b = boots(4), *st;
	bool final, all_done, cancelled;
	long long job, other;

	(void)state;
	queue_owner_self(&me);
	dead = me;
	dead.pid = dead_pid();
	other_boot = me;
	snprintf(other_boot.boot, sizeof(other_boot.boot), "not-this-boot");
	other_host = me;
	snprintf(other_host.host, sizeof(other_host.host), "elsewhere");
	job = queue_add_json(q, "r", "j", 0, b, NULL);
	assert_int_equal(queue_claim(q, &dead, NULL, NULL, &it), 0); /* a 0 */
	assert_int_equal(queue_claim(q, &dead, NULL, NULL, &it), 0); /* b 0 */
	assert_int_equal(queue_claim(q, &other_boot, NULL, NULL, &it), 0); /* a 1 */
	assert_int_equal(queue_claim(q, &other_host, NULL, NULL, &it), 0); /* b 1 */
	/* the dead pid and the old boot are dead; the other host is fresh */
	assert_int_equal(queue_recover(q, &me, 60, stored_if_a, NULL), 3);
	st = queue_status(q, 1);
	{
		json_t *c = json_object_get(json_array_get(st, 0), "counts");

		assert_int_equal(json_integer_value(json_object_get(c, "done")), 2);
		assert_int_equal(json_integer_value(json_object_get(c, "queued")), 1);
		assert_int_equal(json_integer_value(json_object_get(c, "running")), 1);
	}
	json_decref(st);
	/* a silent other host is dead after stale_s */
	assert_int_equal(queue_recover(q, &me, -1, NULL, NULL), 1);
	assert_int_equal(queue_job_final(q, job, &final, &all_done, &cancelled), 0);
	assert_false(final);
	/* requeued items are claimed again, attempts counted */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(it.attempts, 2);
	assert_int_equal(queue_finish(q, it.id, ITEM_FAILED, "boom"), 0);
	/* a live owner (us) is never recovered */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(queue_heartbeat(q, &me), 0);
	assert_int_equal(queue_recover(q, &me, 60, NULL, NULL), 0);
	assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	assert_int_equal(queue_job_final(q, job, &final, &all_done, &cancelled), 0);
	assert_true(final);
	assert_false(all_done);
	/* retry the failed one; cancel it */
	assert_int_equal(queue_retry(q, job), 1);
	assert_int_equal(queue_cancel(q, job), 1);
	assert_int_equal(queue_job_final(q, job, &final, &all_done, &cancelled), 0);
	assert_true(final && cancelled);
	assert_int_equal(queue_retry(q, job), 1);
	assert_int_equal(queue_cancel(q, 999), -1);
	assert_int_equal(queue_job_of_run(q, "r"), job);
	assert_int_equal(queue_job_of_run(q, "nope"), -1);
	/* one runner per store: a dead one is replaced, a live one refuses */
	assert_int_equal(queue_runner_register(q, &dead, 60, &other), 0);
	assert_int_equal(queue_runner_register(q, &me, 60, &other), 0);
	dead.pid = getppid(); /* alive, not us */
	assert_int_equal(queue_runner_register(q, &dead, 60, &other), 1);
	assert_int_equal(other, me.pid);
	queue_runner_unregister(q, &me);
	assert_int_equal(queue_runner_register(q, &dead, 60, &other), 0);
	json_decref(b);
	queue_close(q);
}

static void test_eta(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me;
	struct queue_item it;
	json_t *b = boots(3), *st;

	(void)state;
	queue_owner_self(&me);
	queue_add_json(q, "r", "j", 0, b, NULL);
	st = queue_status(q, 1);
	assert_true(json_is_null(json_object_get(json_array_get(st, 0), "eta_s")));
	json_decref(st);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	usleep(200000);
	assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	st = queue_status(q, 2);
	{
		json_t *j = json_array_get(st, 0);
		double mean = json_number_value(json_object_get(j, "mean_item_s"));

		assert_true(mean >= 0.15 && mean < 5);
		/* two items left over two VMs: one mean */
		assert_true(fabs(json_number_value(json_object_get(j, "eta_s")) - mean) < 1e-6);
	}
	json_decref(st);
	json_decref(b);
	queue_close(q);
}

/* boots of variant a need the kernel build REQ; b uses a prebuilt kernel */
static json_t *boots_build(unsigned int n, const char *req)
{
	json_t *a = boots(n), *b;
	size_t i;

	json_array_foreach(a, i, b)
		if (!strcmp(json_string_value(json_object_get(b, "variant")), "a"))
			json_object_set_new(b, "build", json_string(req));
	return a;
}

static long long count_state(json_t *st, size_t job, const char *group, const char *state)
{
	return json_integer_value(
		json_object_get(json_object_get(json_array_get(st, job), group), state));
}

static void test_builds_shared(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me, dead;
	struct queue_item it, build;
	json_t *b1 = boots_build(4, "req1"), *b3 = boots_build(2, "req2"), *st, *r;
	struct queue_build_users users;
	enum item_state bs;
	long long j1, j2, j3, bid;

	(void)state;
	queue_owner_self(&me);
	dead = me;
	dead.pid = dead_pid();
	j1 = queue_add_json(q, "run1", "one", 0, b1, NULL);
	j2 = queue_add_json(q, "run2", "two", 0, b1, NULL);
	j3 = queue_add_json(q, "run3", "three", 0, b3, NULL);
	assert_true(j1 > 0 && j2 > j1 && j3 > j2);
	/* two jobs needing one kernel: one build item, of the first job */
	st = queue_status(q, 1);
	assert_int_equal(count_state(st, 0, "builds", "queued"), 1);
	assert_int_equal(count_state(st, 1, "builds", "queued"), 0);
	assert_int_equal(count_state(st, 2, "builds", "queued"), 1);
	assert_int_equal(count_state(st, 0, "counts", "queued"), 4); /* boots only */
	json_decref(st);
	/* builds come first */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &build), 0);
	assert_int_equal(build.kind, ITEM_BUILD);
	assert_int_equal(build.job, j1);
	assert_string_equal(build.request, "req1");
	assert_string_equal(build.variant, "a");
	assert_int_equal(queue_build_users(q, build.id, &users), 0);
	assert_int_equal(users.n, 2);
	assert_string_equal(users.v[1].run, "run2");
	assert_int_equal(users.v[1].job, j2);
	assert_string_equal(users.v[1].variant, "a");
	queue_build_users_free(&users);
	/* while it builds, only boots that need no build are claimable */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
		if (it.kind == ITEM_BUILD) {
			assert_string_equal(it.request, "req2");
			assert_int_equal(queue_finish(q, it.id, ITEM_FAILED, "make failed"), 0);
			/* a failed build fails the boots waiting for it */
			assert_int_equal(queue_fail_waiting(q, it.id, "make failed"), 1);
			continue;
		}
		assert_string_equal(it.variant, "b");
		assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	}
	while (queue_claim(q, &me, NULL, NULL, &it) == 0) {
		assert_int_equal(it.kind, ITEM_BOOT);
		assert_string_equal(it.variant, "b");
		assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	}
	/* the runner died while building: the build runs again */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 1);
	assert_int_equal(queue_finish(q, build.id, ITEM_QUEUED, NULL), 0);
	assert_int_equal(queue_claim(q, &dead, NULL, NULL, &build), 0);
	assert_int_equal(build.kind, ITEM_BUILD);
	assert_int_equal(queue_recover(q, &me, 60, NULL, NULL), 1);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &build), 0);
	assert_int_equal(build.attempts, 3);
	r = json_pack("{s:s, s:s}", "cache_key", "k", "path", "/x");
	assert_int_equal(queue_build_set_result(q, build.id, r), 0);
	json_decref(r);
	assert_int_equal(queue_finish(q, build.id, ITEM_DONE, NULL), 0);
	r = queue_build_result(q, "req1", &bs, &bid);
	assert_non_null(r);
	assert_int_equal(bs, ITEM_DONE);
	assert_int_equal(bid, build.id);
	assert_string_equal(json_string_value(json_object_get(r, "cache_key")), "k");
	json_decref(r);
	/* now the boots of both jobs that need it */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
		assert_int_equal(it.kind, ITEM_BOOT);
		assert_string_equal(it.variant, "a");
		assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	}
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 1);
	/* a job added later finds the build done: no second build item */
	queue_add_json(q, "run4", "four", 0, b1, NULL);
	st = queue_status(q, 1);
	assert_int_equal(json_object_size(json_object_get(json_array_get(st, 3), "builds")), 0);
	assert_int_equal(count_state(st, 2, "counts", "failed"), 1);
	json_decref(st);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(it.kind, ITEM_BOOT);
	assert_int_equal(queue_finish(q, it.id, ITEM_DONE, NULL), 0);
	/* retrying the job whose build failed queues the build again first */
	assert_int_equal(queue_retry(q, j3), 2);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(it.kind, ITEM_BUILD);
	assert_string_equal(it.request, "req2");
	/* cancelling never cancels a build; with no boot waiting it is not claimed */
	assert_int_equal(queue_finish(q, it.id, ITEM_QUEUED, NULL), 0);
	assert_int_equal(queue_cancel(q, j3), 1);
	while (queue_claim(q, &me, NULL, NULL, &it) == 0)
		assert_int_equal(it.kind, ITEM_BOOT);
	json_decref(b1);
	json_decref(b3);
	queue_close(q);
}

/*
 * A build a Slurm job made: "queue run" leaves it to the Slurm build step
 * (queue_claim_item()), unless a local job's boot waits for the same
 * kernel; the step's claim is refused while another owner holds it.
 */
static void test_builds_slurm(void **state)
{
	struct queue *q = queue_open(dir);
	struct queue_owner me, other;
	struct queue_item it;
	json_t *b = boots_build(2, "reqS");
	long long js, bid;
	enum item_state bs;

	(void)state;
	queue_owner_self(&me);
	other = me;
	snprintf(other.host, sizeof(other.host), "another-node");
	js = queue_add_json(q, "runS", "slurm", 0, b, "{\"array\":\"7\"}");
	assert_true(js > 0);
	json_decref(queue_build_result(q, "reqS", &bs, &bid));
	assert_int_equal(bs, ITEM_QUEUED);
	/* nothing local: neither the boots nor the build are queue run's */
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 1);
	/* the Slurm build step on another node claims it by id */
	assert_int_equal(queue_claim_item(q, &other, bid, &it), 0);
	assert_int_equal(it.kind, ITEM_BUILD);
	assert_int_equal(it.state, ITEM_RUNNING);
	assert_string_equal(it.request, "reqS");
	/* a second step (a resubmission) must wait for it */
	assert_int_equal(queue_claim_item(q, &me, bid, &it), 1);
	assert_int_equal(it.state, ITEM_RUNNING);
	assert_int_equal(queue_claim_item(q, &me, bid + 1000, &it), -1);
	/* the step died: the build is queued again; a local job now needs it */
	assert_int_equal(queue_finish(q, bid, ITEM_QUEUED, "interrupted"), 0);
	assert_true(queue_add_json(q, "runL", "local", 0, b, NULL) > js);
	assert_int_equal(queue_claim(q, &me, NULL, NULL, &it), 0);
	assert_int_equal(it.kind, ITEM_BUILD);
	assert_int_equal(it.id, bid);
	assert_int_equal(it.attempts, 2);
	json_decref(b);
	queue_close(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test_setup_teardown(test_claim_order_and_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_dead_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_zombie_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builds_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_builds_slurm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
