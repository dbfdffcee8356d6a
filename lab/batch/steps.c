// SPDX-License-Identifier: GPL-2.0
/*
 * steps.c - the steps of Slurm jobs (see steps.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/pool.h"
#include "batch/queue_build.h"
#include "batch/runstate.h"
#include "batch/steps.h"
#include "batch/worker.h"
#include "run/runner.h"
#include "lib/util.h"

/* where Slurm put this task: recorded in each stored iteration's "boot" */
static int exec_boot(struct store *s, const char *run, json_t *b, const char *cache_dir,
		     const char *connect_uri)
{
	/* Slurm counts the requeues of a task: a requeued task is a new attempt */
	const char *restarts = getenv("SLURM_RESTART_COUNT");
	char host[256] = "";
	uint64_t nr = 0;
	struct boot_opts bo = { .cache_dir = cache_dir, .connect_uri = connect_uri };
	int ret;

	gethostname(host, sizeof(host) - 1);
	bo.placement = json_pack("{s:s, s:s?, s:s?}", "host", host, "slurm_job",
				 getenv("SLURM_JOB_ID"), "slurm_array_task",
				 getenv("SLURM_ARRAY_TASK_ID"));
	if (restarts && !parse_uint(restarts, &nr) && nr < 1000000)
		bo.attempt = (unsigned int)nr + 1;
	ret = runner_boot(s, run, json_string_value(json_object_get(b, "variant")),
			  (unsigned int)json_integer_value(json_object_get(b, "first")), &bo);
	json_decref(bo.placement);
	return ret;
}

int step_exec(struct queue *q, struct store *s, const char *run_arg, const char *boot,
	      const char *cache_dir, const char *connect_uri)
{
	char *run = store_run_resolve(s, run_arg), *why;
	json_t *rj, *b;
	uint64_t k;
	int ret;

	if (!run)
		return EXIT_USAGE;
	rj = store_run_read(s, run);
	if (!boot || parse_uint(boot, &k) || !rj ||
	    !(b = json_array_get(json_object_get(rj, "boots"), k))) {
		lab_err("run %s has no boot number '%s'; give --boot 0..%zu", run, boot ? boot : "",
			json_array_size(json_object_get(rj, "boots")) - 1);
		json_decref(rj);
		free(run);
		return EXIT_USAGE;
	}
	if (build_kernel_ready(q, s, run, json_string_value(json_object_get(b, "variant")), &why)) {
		lab_err("run %s boot %s: %s", run, boot, why);
		free(why);
		json_decref(rj);
		free(run);
		return EXIT_RUN_FAILED;
	}
	ret = exec_boot(s, run, b, cache_dir, connect_uri);
	json_decref(rj);
	free(run);
	return ret == EXIT_INTERRUPTED ? EXIT_RUN_FAILED : ret;
}

/* where a Slurm build step's output goes (slurm.c names it) */
static char *build_step_log(struct store *s, const char *run, const char *variant)
{
	if (getenv("SLURM_JOB_ID"))
		return xasprintf("%s/%s/slurm/build-%s.out", store_dir(s), run, variant);
	return xstrdup("the output of 'mmlab queue build'");
}

struct build_child {
	const struct queue_item *it;
	const char *cache_dir;
};

static int build_child_fn(struct store *s, struct queue *q, void *arg)
{
	const struct build_child *bc = arg;

	return build_item_build(q, s, bc->it, bc->cache_dir) ? EXIT_RUN_FAILED : 0;
}

/* wait for the build child, heartbeating; its exit code, EXIT_INTERRUPTED if stopped */
static int build_wait(struct queue *q, const struct queue_owner *self, pid_t pid)
{
	double last_beat = 0;
	bool killed = false;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			lab_err("waiting for the build: %s", strerror(errno));
			return EXIT_INTERRUPTED;
		}
		if (worker_stop_requested() && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		if (now_monotonic() - last_beat > POOL_HEARTBEAT_S) {
			queue_heartbeat(q, self);
			last_beat = now_monotonic();
		}
		usleep(200000);
	}
	return worker_stop_requested() ? 3 : worker_exit_code(st);
}

/* build it (claimed) in a child, heartbeating; the child's exit code, EXIT_INTERRUPTED if stopped */
static int build_in_child(struct queue *q, struct store *s, const struct queue_owner *self,
			  const struct queue_item *it, const char *cache_dir)
{
	struct build_child bc = { .it = it, .cache_dir = cache_dir };
	struct worker_spec spec = {
		.results_dir = store_dir(s), .open_queue = true, .fn = build_child_fn, .arg = &bc
	};
	pid_t pid = worker_start(&spec, "the build");

	return pid < 0 ? 3 : build_wait(q, self, pid);
}

/*
 * The run's variant's kernel record, if it still waits for a build: its
 * request (malloc'd) in *req. 0 wait for it, 1 nothing to build, 2 no
 * such variant (message).
 */
static int pending_request(struct store *s, const char *run, const char *variant, char **req)
{
	json_t *rj = store_run_read(s, run);
	json_t *k = variant ? run_variant_kernel(rj, variant, NULL) : NULL;
	int ret = 0;

	*req = NULL;
	if (!k) {
		lab_err("run %s has no variant '%s'; give --variant NAME", run,
			variant ? variant : "");
		ret = 2;
	} else if (!json_is_true(json_object_get(k, "build_pending")) ||
		   !json_is_string(json_object_get(k, "request"))) {
		lab_info("run %s variant '%s' has its kernel (%s): nothing to build", run, variant,
			 json_string_value(json_object_get(k, "path")) ?: "not built from source");
		ret = 1;
	} else {
		*req = xstrdup(json_string_value(json_object_get(k, "request")));
	}
	json_decref(rj);
	return ret;
}

/*
 * Claim request's build item for self, waiting while another process
 * builds it. 0 claimed (*it), 1 it was settled by someone else (handed on
 * to the run: *ret is the exit status), -1 *ret set after a message.
 */
static int claim_build(struct queue *q, struct store *s, const struct queue_owner *self,
		       const char *run, const char *variant, const char *req, struct queue_item *it,
		       int *ret)
{
	bool waiting = false;
	char *why;

	*ret = EXIT_RUN_FAILED;
	for (;;) {
		enum item_state state;
		long long bid;
		int rc;

		json_decref(queue_build_result(q, req, &state, &bid));
		if (!bid) {
			lab_err("the queue in %s has no build item for request %.12s of run %s "
				"variant '%s'",
				store_dir(s), req, run, variant);
			return -1;
		}
		if (state == ITEM_DONE || state == ITEM_FAILED || state == ITEM_CANCELLED) {
			/* built (or failed) by someone else: hand on the outcome */
			if (build_kernel_ready(q, s, run, variant, &why)) {
				lab_err("%s", why);
				free(why);
				return -1;
			}
			lab_info("run %s variant '%s': the kernel was built by build item %lld",
				 run, variant, bid);
			*ret = 0;
			return 1;
		}
		rc = queue_claim_item(q, self, bid, it);
		if (rc <= 0)
			return rc;
		if (!waiting)
			lab_info("build item %lld (request %.12s) is being built by another "
				 "process; waiting for it",
				 bid, req);
		waiting = true;
		queue_recover(q, self, POOL_STALE_S, runstate_item_stored, s);
		sleep(5);
	}
}

int step_build(struct queue *q, struct store *s, const char *run_arg, const char *variant,
	       const char *cache_dir)
{
	char *run = store_run_resolve(s, run_arg), *req, *log, *e;
	struct queue_owner self;
	struct queue_item it;
	json_t *users;
	int ret, rc;

	if (!run)
		return EXIT_USAGE;
	rc = pending_request(s, run, variant, &req);
	if (rc) {
		free(run);
		return rc == 1 ? 0 : EXIT_USAGE;
	}
	queue_owner_self(&self);
	if (claim_build(q, s, &self, run, variant, req, &it, &ret))
		goto out;
	/* SIGINT/SIGTERM stop the build; its item is settled either way */
	worker_stop_catch();
	rc = build_in_child(q, s, &self, &it, cache_dir);
	log = build_step_log(s, run, variant);
	if (build_item_settle(q, s, &it, log, rc == EXIT_INTERRUPTED, &e, &users) == 1)
		ret = 0;
	else if (!e)
		lab_err("the build of run %s variant '%s' was interrupted; it is queued again", run,
			variant);
	worker_stop_release();
	json_decref(users);
	free(e);
	free(log);
out:
	free(req);
	free(run);
	return ret;
}
