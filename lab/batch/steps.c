// SPDX-License-Identifier: GPL-2.0
/*
 * steps.c - the steps of Slurm jobs (see steps.h). They run on any host
 * of the cluster and so open no SQLite file: the store is opened as files
 * alone, the queue not at all; each step writes its task record
 * (taskrec.h) and the submitting host folds it in (fold.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/queue_build.h"
#include "batch/steps.h"
#include "batch/taskrec.h"
#include "batch/worker.h"
#include "store/run_record.h"
#include "run/runner.h"
#include "lib/util.h"

/* Slurm counts the requeues of a task: a requeued task is a new attempt */
static unsigned int slurm_attempt(void)
{
	const char *restarts = getenv("SLURM_RESTART_COUNT");
	uint64_t nr = 0;

	if (restarts && !parse_uint(restarts, &nr) && nr < 1000000)
		return (unsigned int)nr + 1;
	return 1;
}

/*
 * Wait for the step's child, heartbeating its record me every
 * TASKREC_BEAT_S. A record that another attempt of the same task took
 * over (a requeue race) stops the child: *lost is set, and that attempt
 * owns the record. Returns the child's exit code (its batch result, or
 * 128 + the signal that killed it), BATCH_INTERRUPTED if stopped.
 */
static int task_watch(const char *dir, const char *run, struct taskrec *me, pid_t pid, bool *lost)
{
	double last = now_monotonic();
	bool killed = false;
	struct taskrec cur;
	int st;

	*lost = false;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			lab_err("waiting for the task's child: %s", strerror(errno));
			return BATCH_INTERRUPTED;
		}
		if ((worker_stop_requested() || *lost) && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		if (!*lost && now_monotonic() - last >= TASKREC_BEAT_S) {
			if (taskrec_read(dir, run, me->task, &cur, NULL) == 0 &&
			    !taskrec_same_owner(&cur, me)) {
				lab_err("task %s of run %s was taken over by attempt %u on %s (pid "
					"%lld); this attempt %u stops and stores nothing more",
					me->task, run, cur.attempt, cur.host, cur.pid, me->attempt);
				*lost = true;
				continue;
			}
			me->beat++;
			taskrec_write(dir, run, me);
			last = now_monotonic();
		}
		usleep(200000);
	}
	return worker_stop_requested() || *lost ? BATCH_INTERRUPTED : worker_exit_code(st);
}

/* run fn in a child under the task record me; the final record says how it ended */
static enum batch_result task_run(struct store *s, const char *run, struct taskrec *me,
				  worker_fn fn, void *arg, const char *failed_what)
{
	struct worker_spec spec = {
		.results_dir = store_dir(s), .files_only = true, .fn = fn, .arg = arg
	};
	bool lost = false;
	pid_t pid;
	int rc;

	if (taskrec_write(store_dir(s), run, me))
		return BATCH_FAILED;
	worker_stop_catch();
	pid = worker_start(&spec, me->task);
	rc = pid < 0 ? BATCH_FAILED : task_watch(store_dir(s), run, me, pid, &lost);
	worker_stop_release();
	if (lost)
		return BATCH_FAILED; /* the record is the other attempt's now */
	me->state = rc ? TASK_FAILED : TASK_DONE;
	if (rc == BATCH_INTERRUPTED)
		snprintf(me->reason, sizeof(me->reason), "interrupted (SIGINT or SIGTERM)");
	else if (rc)
		snprintf(me->reason, sizeof(me->reason), "%s (exit %d)", failed_what, rc);
	taskrec_write(store_dir(s), run, me);
	return rc == BATCH_OK ? BATCH_OK : rc == BATCH_BAD_INPUT ? BATCH_BAD_INPUT : BATCH_FAILED;
}

struct exec_child {
	const char *run, *variant;
	unsigned int first, attempt;
	const char *cache_dir, *connect_uri;
};

/* where Slurm put this task: recorded in each stored iteration's "boot" */
static enum batch_result exec_child_fn(struct store *s, struct queue *q, void *arg)
{
	const struct exec_child *ec = arg;
	struct boot_opts bo = { .cache_dir = ec->cache_dir,
				.connect_uri = ec->connect_uri,
				.attempt = ec->attempt };
	char host[256] = "";
	int ret;

	(void)q;
	gethostname(host, sizeof(host) - 1);
	bo.placement = json_pack("{s:s, s:s?, s:s?}", "host", host, "slurm_job",
				 getenv("SLURM_JOB_ID"), "slurm_array_task",
				 getenv("SLURM_ARRAY_TASK_ID"));
	ret = runner_boot(s, ec->run, ec->variant, ec->first, &bo);
	json_decref(bo.placement);
	return batch_result_of_run(ret);
}

/*
 * The variant's kernel, if it waits for a build that did not hand it on:
 * why (malloc'd), naming the build's task record; NULL when ready.
 */
static char *kernel_missing(struct store *s, const char *run, const struct run_record *rec,
			    const char *variant)
{
	const struct run_variant *v = run_record_variant(rec, variant);
	const char *req = v && v->has_kernel ? v->kernel.request : NULL, *bv = variant;
	struct taskrec t;
	char *task, *why;
	int rc;

	if (!req || !v->kernel.build_pending)
		return NULL;
	/* the build job is named after the first variant of the run that needs it */
	for (size_t i = 0; i < rec->nboots; i++)
		if (rec->boots[i].build && !strcmp(rec->boots[i].build, req)) {
			bv = rec->boots[i].variant;
			break;
		}
	task = xasprintf("build-%s", bv);
	rc = taskrec_read(store_dir(s), run, task, &t, NULL);
	why = xasprintf("the kernel of variant '%s' was not built (build %.12s: %s%s%s; its "
			"output is %s/%s/slurm/build-%s.out)",
			variant, req, rc ? "no record" : taskrec_state_name(t.state),
			!rc && *t.reason ? ", " : "", !rc ? t.reason : "", store_dir(s), run, bv);
	free(task);
	return why;
}

enum batch_result step_exec(struct store *s, const char *run_arg, const char *boot,
			    const char *cache_dir, const char *connect_uri)
{
	char *run = store_run_resolve(s, run_arg), *why = NULL, *task;
	struct exec_child ec = { .cache_dir = cache_dir, .connect_uri = connect_uri };
	struct taskrec me;
	struct run_record rec = { 0 };
	bool read;
	uint64_t k;
	enum batch_result ret = BATCH_BAD_INPUT;

	if (!run)
		return BATCH_BAD_INPUT;
	read = !store_record_read(s, run, &rec);
	if (!boot || parse_uint(boot, &k) || !read || k >= rec.nboots) {
		lab_err("run %s has no boot number '%s'; give --boot 0..%zu", run, boot ? boot : "",
			rec.nboots - 1);
		goto out;
	}
	ec.run = run;
	ec.variant = rec.boots[k].variant;
	ec.first = rec.boots[k].first;
	ec.attempt = slurm_attempt();
	why = kernel_missing(s, run, &rec, ec.variant);
	if (why) {
		lab_err("run %s boot %s: %s", run, boot, why);
		ret = BATCH_FAILED;
		goto out;
	}
	task = xasprintf("boot-%llu", (unsigned long long)k);
	taskrec_self(&me, task, ec.attempt);
	free(task);
	ret = task_run(s, run, &me, exec_child_fn, &ec, "the boot failed");
out:
	free(why);
	run_record_release(&rec);
	free(run);
	return ret;
}

/*
 * The run's variant's kernel record, if it still waits for a build: its
 * request (malloc'd) in *req. 0 wait for it, 1 nothing to build, 2 no
 * such variant (message).
 */
static int pending_request(struct store *s, const char *run, const char *variant, char **req)
{
	struct run_record rec = { 0 };
	const struct run_variant *v = NULL;
	int ret = 0;

	*req = NULL;
	if (variant && !store_record_read(s, run, &rec))
		v = run_record_variant(&rec, variant);
	if (!v || !v->has_kernel) {
		lab_err("run %s has no variant '%s'; give --variant NAME", run,
			variant ? variant : "");
		ret = 2;
	} else if (!v->kernel.build_pending || !v->kernel.request) {
		lab_info("run %s variant '%s' has its kernel (%s): nothing to build", run, variant,
			 v->kernel.path ?: "not built from source");
		ret = 1;
	} else {
		*req = xstrdup(v->kernel.request);
	}
	run_record_release(&rec);
	return ret;
}

struct build_child {
	const char *run, *variant, *request, *cache_dir;
};

/* hand the outcome to every variant of the run that needs the request */
static int kernels_hand_on(struct store *s, const struct build_child *bc, json_t *res)
{
	struct run_record rec;
	char *path, *text;
	int ret = 0;
	json_t *f;

	if (store_record_read(s, bc->run, &rec))
		return 0; /* said; nothing to hand on */
	f = json_pack("{s:s, s:O}", "request", bc->request, "kernel", res);
	text = json_dumps(f, JSON_INDENT(2) | JSON_SORT_KEYS);
	for (size_t i = 0; i < rec.nvariants; i++) {
		const char *name = rec.variants[i].name;
		const char *req = rec.variants[i].kernel.request;
		char *dir;

		if (!text || !req || strcmp(req, bc->request))
			continue;
		dir = xasprintf("%s/%s/kernels", store_dir(s), bc->run);
		path = store_kernel_file(s, bc->run, name);
		if (mkdir_p(dir, 0755) || write_file_atomic(path, text, strlen(text), 0644))
			ret = -1;
		free(path);
		free(dir);
	}
	free(text);
	json_decref(f);
	run_record_release(&rec);
	return ret;
}

static enum batch_result build_child_fn(struct store *s, struct queue *q, void *arg)
{
	const struct build_child *bc = arg;
	int rc;
	json_t *res =
		build_variant_kernel(s, bc->run, bc->variant, bc->request, bc->cache_dir, &rc);

	(void)q;
	if (res && kernels_hand_on(s, bc, res))
		rc = -1;
	json_decref(res);
	return rc || !res ? BATCH_FAILED : BATCH_OK;
}

enum batch_result step_build(struct store *s, const char *run_arg, const char *variant,
			     const char *cache_dir)
{
	char *run = store_run_resolve(s, run_arg), *req, *task;
	struct build_child bc = { .variant = variant, .cache_dir = cache_dir };
	struct taskrec me;
	enum batch_result ret;
	int rc;

	if (!run)
		return BATCH_BAD_INPUT;
	rc = pending_request(s, run, variant, &req);
	if (rc) {
		free(run);
		return rc == 1 ? BATCH_OK : BATCH_BAD_INPUT;
	}
	bc.run = run;
	bc.request = req;
	task = xasprintf("build-%s", variant);
	taskrec_self(&me, task, slurm_attempt());
	snprintf(me.request, sizeof(me.request), "%s", req);
	free(task);
	ret = task_run(s, run, &me, build_child_fn, &bc, "the kernel build failed");
	free(req);
	free(run);
	return ret;
}
