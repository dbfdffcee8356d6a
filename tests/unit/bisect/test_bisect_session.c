// SPDX-License-Identifier: GPL-2.0
/*
 * test_bisect_session.c - the bisect engine (lab/bisect/session.h) without
 * booting anything: a small git tree whose commits c5.. are "bad", and a
 * fake measure that hands out values (or signature counts) per commit.
 * The log's parsing, the lock,
 * the verdict of a step from stored measurements, a whole bisection,
 * a refused one, resuming after an interruption (a stopped round, a
 * verdict stored but not yet told to git), replay and reset.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "bisect/bisect_git.h"
#include "bisect/internal.h"
#include "bisect/step_json.h"
#include "kernel/gitops.h"
#include "lib/util.h"

/* why the last engine call failed */
static enum bisect_failure fail;

#define NCOMMITS 8
#define FIRST_BAD 5

struct fixture {
	char dir[64];
	char *repo, *results, *job;
	char *sha[NCOMMITS];
	struct bisect_env env;
	/* the fake measure */
	unsigned int calls[NCOMMITS]; /* rounds measured per commit */
	unsigned int total;
	unsigned int interrupt_at; /* the total-th call is interrupted (0: never) */
	double bad_value; /* the bad commits' mean (100 for the good ones) */
};

static void git(const char *dir, const char *const args[])
{
	assert_int_equal(git_run(dir, args, NULL), 0);
}

static void make_repo(struct fixture *f)
{
	const char *init[] = { "init", "-q", NULL };
	const char *add[] = { "add", "f", NULL };

	f->repo = xasprintf("%s/repo", f->dir);
	assert_int_equal(mkdir_p(f->repo, 0755), 0);
	git(f->repo, init);
	for (int i = 0; i < NCOMMITS; i++) {
		char *file = xasprintf("%s/f", f->repo), *text = xasprintf("%d\n", i);
		char *msg = xasprintf("c%d: change %d", i, i), *tag = xasprintf("c%d", i);
		const char *commit[] = { "commit", "-q", "-m", msg, NULL };
		const char *mktag[] = { "tag", tag, NULL };
		const char *rev[] = { "rev-parse", "HEAD", NULL };

		assert_int_equal(write_file_atomic(file, text, strlen(text), 0644), 0);
		git(f->repo, add);
		git(f->repo, commit);
		git(f->repo, mktag);
		f->sha[i] = git_out(f->repo, rev);
		assert_non_null(f->sha[i]);
		free(file);
		free(text);
		free(msg);
		free(tag);
	}
}

static int commit_index(const struct fixture *f, const char *commit)
{
	for (int i = 0; i < NCOMMITS; i++)
		if (!strcmp(f->sha[i], commit))
			return i;
	fail_msg("the engine measured an unknown commit %s", commit);
	return -1;
}

/* the fake: values around 100 (good) or bad_value, or the signature counts */
static int fake_measure(void *ctx, const struct bisect_params *p, const struct bisect_round *r,
			json_t *data)
{
	struct fixture *f = ctx;
	int i = commit_index(f, r->commit);
	bool bad = i >= FIRST_BAD;
	json_t *runs, *values, *statuses;

	if (++f->total == f->interrupt_at)
		return 1;
	f->calls[i]++;
	runs = json_object_get(data, "runs");
	if (!runs) {
		json_object_set_new(data, "runs", json_array());
		json_object_set_new(data, "values", json_array());
		json_object_set_new(data, "statuses", json_array());
		runs = json_object_get(data, "runs");
	}
	values = json_object_get(data, "values");
	statuses = json_object_get(data, "statuses");
	json_array_append_new(runs, json_sprintf("fake-%lld-%u", r->seq, r->round));
	for (unsigned int k = 0; k < r->n; k++) {
		json_array_append_new(statuses, json_string("ok"));
		json_array_append_new(values,
				      json_real((bad ? f->bad_value : 100) + (k % 3) - 1.0));
	}
	if (p->signature)
		json_object_set_new(data, bad ? "met" : "not_met",
				    json_integer(json_integer_value(json_object_get(
							 data, bad ? "met" : "not_met")) +
						 r->n));
	json_object_set_new(
		data, "vm_runs",
		json_integer(json_integer_value(json_object_get(data, "vm_runs")) + r->n));
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	char *text;

	snprintf(f->dir, sizeof(f->dir), "/tmp/mmlab-test-bisect-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	make_repo(f);
	f->results = xasprintf("%s/results", f->dir);
	f->job = xasprintf("%s/job.yaml", f->dir);
	text = xasprintf("name: t\nkernels: { tree: \"%s\" }\nvariants: [ { name: k, ref: c0 } ]\n"
			 "topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }\n"
			 "workload: { name: usemem, params: { size: 16M } }\niterations: 3\n",
			 f->repo);
	assert_int_equal(write_file_atomic(f->job, text, strlen(text), 0644), 0);
	free(text);
	f->env.results_dir = f->results;
	f->env.measure = fake_measure;
	f->env.measure_ctx = f;
	f->bad_value = 120;
	lab_quiet = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->dir);
	for (int i = 0; i < NCOMMITS; i++)
		free(f->sha[i]);
	free(f->repo);
	free(f->results);
	free(f->job);
	free(f);
	return 0;
}

static void start(struct fixture *f, const char *metric, const char *signature)
{
	struct bisect_start_args a = {
		.job = f->job,
		.good = "c0",
		.bad = "c7",
		.metric = metric,
		.signature = signature,
		.min_change = 0.05,
		.alpha = 0.05,
	};
	struct bisect_params p;
	char *progress;

	assert_int_equal(bisect_start(&f->env, &a, &p, &progress), 0);
	assert_non_null(strstr(progress, "Bisecting:"));
	assert_string_equal(p.good, f->sha[0]);
	assert_string_equal(p.bad, f->sha[7]);
	assert_int_equal(p.range_commits, 7);
	free(progress);
	bisect_params_release(&p);
}

static void reset(struct fixture *f)
{
	char *kept;

	assert_int_equal(bisect_reset(&f->env, &kept, &fail), 0);
	assert_non_null(kept);
	assert_true(is_dir(kept));
	free(kept);
	memset(f->calls, 0, sizeof(f->calls));
	f->total = 0;
	f->interrupt_at = 0;
}

/* the first bad commit of a finished run's result */
static void assert_found(struct fixture *f, json_t *res)
{
	json_t *first = json_object_get(res, "first");

	assert_true(json_is_object(first));
	assert_string_equal(json_string_value(json_object_get(first, "commit")), f->sha[FIRST_BAD]);
	assert_non_null(strstr(json_string_value(json_object_get(first, "subject")), "c5:"));
}

/* the log and the lock ----------------------------------------------------------- */

static void test_log_parse(void **state)
{
	const char *text =
		"# mmlab bisect log: 'mmlab bisect replay x' starts the same bisection\n" BISECT_LOG_TAG
		"params {\"id\": \"old\"}\n" BISECT_LOG_TAG
		"step {\"seq\": 1, \"commit\": \"c1\", \"role\": \"good\"}\n" BISECT_LOG_TAG
		"step not json\n" BISECT_LOG_TAG "step [1, 2]\n"
		"git bisect start '--no-checkout' 'bad' 'good'\n" BISECT_LOG_TAG
		"params {\"id\": \"new\"}\n" BISECT_LOG_TAG
		"step {\"seq\": 2, \"commit\": \"c2\", \"role\": \"bad\"}";
	json_t *params, *steps = json_array();

	(void)state;
	bisect_log_parse(text, &params, steps);
	assert_non_null(params);
	assert_string_equal(json_string_value(json_object_get(params, "id")), "new");
	assert_int_equal(json_array_size(steps), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 1), "commit")),
			    "c2");
	json_decref(params);
	json_array_clear(steps);
	bisect_log_parse("git bisect start\n" BISECT_LOG_TAG "params [1]\n", &params, steps);
	assert_null(params);
	assert_int_equal(json_array_size(steps), 0);
	json_decref(steps);
}

static void test_lock(void **state)
{
	struct fixture *f = *state;
	struct bisect_session a, b;
	struct capture c;
	char *err;

	session_init(&a, &f->env);
	session_init(&b, &f->env);
	assert_int_equal(mkdir_p(a.dir, 0755), 0);
	assert_int_equal(session_lock(&a, "wait"), 0);
	capture_start(&c);
	assert_int_equal(session_lock(&b, "wait for it"), -1);
	err = capture_end(&c);
	assert_non_null(strstr(err, "another 'mmlab bisect run' is working on"));
	assert_non_null(strstr(err, "wait for it"));
	free(err);
	session_close(&a);
	/* released with the session */
	assert_int_equal(session_lock(&b, "wait"), 0);
	session_close(&b);
	rm_rf(f->results);
}

/* verdicts from stored measurements ---------------------------------------------- */

/* a done endpoint of three values around mean, as bstore_step_list() reads it */
static struct bstore_step endpoint_row(const char *role, double mean)
{
	struct bstore_step st = {
		.role = xstrdup(role),
		.state = xstrdup("done"),
		.data = json_pack("{s:[f, f, f], s:[s, s, s]}", "values", mean - 1, mean, mean + 1,
				  "statuses", "ok", "ok", "ok"),
	};

	assert_int_equal(step_data_from_json(st.data, &st.d), 0);
	return st;
}

static enum bisect_call decide(struct bisect_session *s, const struct bstore_steps *steps,
			       const char *data_json, bool *final, char *why, size_t len)
{
	json_t *data = json_loads(data_json, 0, NULL);
	enum bisect_call c;

	assert_non_null(data);
	c = step_decide(s, steps, data, why, len, final);
	json_decref(data);
	return c;
}

static void test_decide(void **state)
{
	struct bisect_params p = { .iterations = 3, .max_iterations = 9, .k = 2 };
	struct bisect_session s = {
		.p = &p,
		.rule = { .alpha = 0.05, .min_change = 0.05, .near = 1.0 / 3 },
	};
	struct bstore_steps steps = { .v = xcalloc(2, sizeof(*steps.v)), .n = 2 };
	char why[512];
	bool final;

	(void)state;
	steps.v[0] = endpoint_row("good", 100);
	steps.v[1] = endpoint_row("bad", 120);
	assert_int_equal(decide(&s, &steps,
				"{\"runs\": [\"r\"], \"values\": [99, 100, 101], "
				"\"statuses\": [\"ok\", \"ok\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_GOOD);
	assert_true(final);
	assert_int_equal(decide(&s, &steps,
				"{\"values\": [119, 120, 121], "
				"\"statuses\": [\"ok\", \"ok\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_BAD);
	/* in between with room to grow: not final; at max_iterations: final (skip) */
	assert_int_equal(decide(&s, &steps,
				"{\"values\": [109, 110, 111], "
				"\"statuses\": [\"ok\", \"ok\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_UNSURE);
	assert_false(final);
	assert_non_null(strstr(why, "in between"));
	p.max_iterations = 3;
	decide(&s, &steps, "{\"values\": [109, 110, 111], \"statuses\": [\"ok\", \"ok\", \"ok\"]}",
	       &final, why, sizeof(why));
	assert_true(final);
	/* a crashed iteration or a failed build is no measurement: skipped at once */
	assert_int_equal(decide(&s, &steps,
				"{\"values\": [100, 100], "
				"\"statuses\": [\"ok\", \"crashed\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_UNSURE);
	assert_true(final);
	assert_non_null(strstr(why, "an iteration crashed"));
	assert_int_equal(decide(&s, &steps, "{\"build_failed\": true, \"build_log\": \"/l\"}",
				&final, why, sizeof(why)),
			 BISECT_UNSURE);
	assert_true(final);
	assert_non_null(strstr(why, "the build failed: /l"));
	/* pass/fail mode: k = 2 of the runs */
	s.sig_mode = true;
	p.max_iterations = 9;
	assert_int_equal(decide(&s, &steps, "{\"met\": 2, \"statuses\": [\"ok\", \"ok\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_BAD);
	assert_int_equal(decide(&s, &steps,
				"{\"not_met\": 3, \"statuses\": [\"ok\", \"ok\", \"ok\"]}", &final,
				why, sizeof(why)),
			 BISECT_GOOD);
	assert_int_equal(decide(&s, &steps, "{\"met\": 1, \"statuses\": [\"ok\", \"ok\", \"ok\"]}",
				&final, why, sizeof(why)),
			 BISECT_UNSURE);
	assert_false(final);
	bstore_steps_release(&steps);
}

/* whole bisections --------------------------------------------------------------- */

static void test_metric(void **state)
{
	struct fixture *f = *state;
	struct bisect_report r;
	json_t *res = NULL, *again = NULL, *steps;
	unsigned int total;

	start(f, "vmstat.compact_stall", NULL);
	/* a second start is refused while one is there */
	{
		struct bisect_start_args a = {
			.job = f->job, .good = "c0", .bad = "c7", .metric = "x", .alpha = 0.05
		};
		struct bisect_params p;
		char *progress;
		struct capture c;
		char *err;

		capture_start(&c);
		assert_int_equal(bisect_start(&f->env, &a, &p, &progress), -1);
		err = capture_end(&c);
		assert_non_null(strstr(err, "a bisection is already in"));
		free(err);
	}
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	{
		/* what the engine made reads as a result, and prints its first commit */
		struct bisect_result typed;

		assert_int_equal(bisect_result_from_json(res, &typed), 0);
		assert_true(typed.has_first);
		assert_true(typed.nrows >= 2);
		bisect_result_release(&typed);
	}
	assert_found(f, res);
	steps = json_object_get(res, "steps");
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 0), "role")),
			    "good");
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 1), "role")),
			    "bad");
	/* every commit measured once, in one round of 3 */
	for (int i = 0; i < NCOMMITS; i++)
		assert_true(f->calls[i] <= 1);
	assert_int_equal(f->calls[0], 1);
	assert_int_equal(f->calls[7], 1);
	assert_true(json_number_value(json_object_get(res, "confidence_value")) > 0.9);
	assert_int_equal(json_integer_value(json_object_get(res, "log2_range")), 3);
	/* run again: the same answer, nothing measured */
	total = f->total;
	assert_int_equal(bisect_run(&f->env, &again, &fail), 0);
	assert_int_equal(f->total, total);
	assert_true(json_equal(json_object_get(res, "first"), json_object_get(again, "first")));
	assert_int_equal(bisect_status(&f->env, true, &r), 0);
	assert_int_equal(r.state.status, BISECT_DONE);
	assert_string_equal(r.state.params.metric, "vmstat.compact_stall");
	assert_int_equal(r.result.nrows, json_array_size(steps));
	bisect_report_release(&r);
	json_decref(res);
	json_decref(again);
	reset(f);
}

static void test_refused(void **state)
{
	struct fixture *f = *state;
	struct bisect_report r;
	json_t *res = NULL;
	struct capture c;
	char *err;

	f->bad_value = 100; /* the endpoints alike */
	start(f, "vmstat.compact_stall", NULL);
	capture_start(&c);
	assert_int_equal(bisect_run(&f->env, &res, &fail), -1);
	assert_int_equal(fail, BISECT_FAIL_RUN);
	err = capture_end(&c);
	assert_null(res);
	assert_non_null(strstr(err, "refusing to bisect"));
	assert_non_null(strstr(err, "(n=3)"));
	free(err);
	assert_int_equal(f->total, 2);
	/* again: the same refusal, nothing measured again */
	capture_start(&c);
	assert_int_equal(bisect_run(&f->env, &res, &fail), -1);
	assert_int_equal(fail, BISECT_FAIL_RUN);
	free(capture_end(&c));
	assert_int_equal(f->total, 2);
	assert_int_equal(bisect_status(&f->env, false, &r), 0);
	assert_int_equal(r.state.status, BISECT_REFUSED);
	assert_non_null(strstr(json_string_value(json_object_get(r.state.result, "refused")),
			       "not a significant difference"));
	assert_int_equal(json_array_size(r.steps), 2);
	bisect_report_release(&r);
	f->bad_value = 120;
	reset(f);
}

/* the step git wants next, and its row */
static char *next_commit(struct fixture *f)
{
	struct bisect_session s;
	char *commit;

	assert_int_equal(session_open(&s, &f->env), 0);
	assert_int_equal(session_head(&s, &commit), 0);
	session_close(&s);
	return commit;
}

static void test_resume(void **state)
{
	struct fixture *f = *state;
	struct bisect_report r;
	struct bstore *bs;
	json_t *res = NULL, *data;
	char *dir, *commit;
	unsigned int done_before;
	long long seq;
	int ci;

	start(f, "vmstat.compact_stall", NULL);
	/* stopped in the first step's round (after both endpoints) */
	f->interrupt_at = 3;
	lab_quiet = true;
	{
		struct capture c;

		capture_start(&c);
		assert_int_equal(bisect_run(&f->env, &res, &fail), -1);
		assert_int_equal(fail, BISECT_FAIL_INTERRUPTED);
		free(capture_end(&c));
	}
	assert_null(res);
	assert_int_equal(bisect_status(&f->env, false, &r), 0);
	assert_int_equal(r.state.status, BISECT_RUNNING);
	assert_int_equal(json_array_size(r.steps), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(r.steps, 2), "state")),
			    "running");
	assert_int_equal(r.rows.n, 3);
	{
		/* the text names the step in progress */
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		bisect_print_status(out, &r);
		fclose(out);
		assert_non_null(strstr(text, "\nin progress: step "));
		assert_non_null(strstr(text, "status: running\n"));
		free(text);
	}
	bisect_report_release(&r);

	/* a kill after the verdict was stored, before git heard it */
	commit = next_commit(f);
	ci = commit_index(f, commit);
	dir = xasprintf("%s/bisect", f->results);
	bs = bstore_open(dir, false);
	assert_non_null(bs);
	seq = bstore_step_open(bs, commit, "step");
	data = json_pack("{s:[s], s:[f, f, f], s:[s, s, s], s:s, s:s}", "runs", "fake-x", "values",
			 100.0, 100.0, 100.0, "statuses", "ok", "ok", "ok", "verdict",
			 ci >= FIRST_BAD ? "bad" : "good", "why", "stored");
	assert_int_equal(bstore_step_set(bs, seq, "decided", data), 0);
	json_decref(data);
	bstore_close(bs);
	done_before = f->calls[ci];

	/* run again: the endpoints and the decided step are not measured again */
	f->interrupt_at = 0;
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_found(f, res);
	assert_int_equal(f->calls[0], 1);
	assert_int_equal(f->calls[7], 1);
	assert_int_equal(f->calls[ci], done_before);
	/* the stopped step's row was taken up again, not doubled */
	{
		json_t *st;
		size_t i;
		unsigned int rows = 0;

		json_array_foreach(json_object_get(res, "steps"), i, st)
			rows += !strcmp(json_string_value(json_object_get(st, "commit")), commit);
		assert_int_equal(rows, 1);
	}
	json_decref(res);
	free(commit);
	free(dir);
	reset(f);
}

static void test_replay(void **state)
{
	struct fixture *f = *state;
	json_t *res = NULL, *replayed = NULL;
	char *log, *path = xasprintf("%s/saved.log", f->dir);
	size_t len;
	unsigned int total;

	start(f, "vmstat.compact_stall", NULL);
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	log = bisect_log(&f->env, &len);
	assert_non_null(log);
	assert_non_null(strstr(log, BISECT_LOG_TAG "params {"));
	assert_non_null(strstr(log, "git bisect good"));
	assert_int_equal(write_file_atomic(path, log, len, 0644), 0);
	reset(f);
	total = f->total;
	assert_int_equal(bisect_replay(&f->env, path, &replayed, &fail), 0);
	assert_non_null(replayed);
	assert_found(f, replayed);
	assert_int_equal(f->total, total); /* nothing measured */
	assert_int_equal(json_array_size(json_object_get(replayed, "steps")),
			 json_array_size(json_object_get(res, "steps")));
	json_decref(res);
	json_decref(replayed);
	reset(f);
	/* a file that is no log */
	assert_int_equal(write_file_atomic(path, "git bisect start\n", 17, 0644), 0);
	{
		struct capture c;
		char *err;

		capture_start(&c);
		assert_int_equal(bisect_replay(&f->env, path, &replayed, &fail), -1);
		assert_int_equal(fail, BISECT_FAIL_USAGE);
		err = capture_end(&c);
		assert_non_null(strstr(err, "is not a log of 'mmlab bisect'"));
		free(err);
	}
	free(log);
	free(path);
}

/* a log of an unfinished bisection: replayed, then 'run' goes on from it */
static void test_replay_unfinished(void **state)
{
	struct fixture *f = *state;
	json_t *res = NULL;
	char *log, *path = xasprintf("%s/part.log", f->dir);
	unsigned int calls[NCOMMITS];
	struct capture c;
	size_t len;

	start(f, "vmstat.compact_stall", NULL);
	f->interrupt_at = 4; /* the endpoints and one step done */
	capture_start(&c);
	assert_int_equal(bisect_run(&f->env, &res, &fail), -1);
	assert_int_equal(fail, BISECT_FAIL_INTERRUPTED);
	free(capture_end(&c));
	log = bisect_log(&f->env, &len);
	assert_non_null(log);
	assert_int_equal(write_file_atomic(path, log, len, 0644), 0);
	memcpy(calls, f->calls, sizeof(calls));
	reset(f);
	assert_int_equal(bisect_replay(&f->env, path, &res, &fail), 0);
	assert_null(res); /* not finished */
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_found(f, res);
	/* the logged commits were not measured again */
	for (int i = 0; i < NCOMMITS; i++)
		assert_false(calls[i] && f->calls[i]);
	json_decref(res);
	free(log);
	free(path);
	reset(f);
}

static void test_signature(void **state)
{
	struct fixture *f = *state;
	json_t *res = NULL;

	start(f, NULL, "crash");
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_found(f, res);
	assert_string_equal(json_string_value(json_object_get(res, "mode")), "signature");
	assert_non_null(strstr(json_string_value(json_object_get(res, "confidence")), "100 %"));
	json_decref(res);
	reset(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_parse),
		cmocka_unit_test(test_decide),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_unfinished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signature, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
