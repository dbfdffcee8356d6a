// SPDX-License-Identifier: GPL-2.0
/*
 * pool.c - the worker pool of "queue run" (see pool.h).
 */
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
#include "batch/worker.h"
#include "vm/placement.h"
#include "lib/util.h"

struct worker {
	pid_t pid;
	struct queue_item it;
	struct placement pl;
};

struct cached_job {
	char *run;
	struct job *job;
};

struct pool {
	struct queue *q;
	struct store *s;
	const struct pool_opts *o;
	const struct pool_ops *ops;
	struct queue_owner self;
	struct placer placer;
	struct worker *w;
	unsigned int nw, max; /* workers running; at most max VMs */
	unsigned int nvm, nbuild, build_max;
	struct cached_job *jobs;
	size_t njobs;
	/* set by fits() for the item it accepted */
	struct placement pending;
	bool pending_never;
	/* the worker being forked: what the child runs */
	const struct worker *starting;
	unsigned int done, failed;
};

static enum batch_result runner_boot_op(struct store *s, const struct queue_item *it,
					const struct boot_opts *bo, void *arg)
{
	(void)arg;
	return batch_result_of_run(runner_boot(s, it->run, it->variant, it->first, bo));
}

static enum batch_result build_op(struct store *s, struct queue *q, const struct queue_item *it,
				  const char *cache_dir, void *arg)
{
	(void)arg;
	return build_item_build(q, s, it, cache_dir) ? BATCH_FAILED : BATCH_OK;
}

static const struct pool_ops default_ops = {
	.boot = runner_boot_op,
	.build = build_op,
};

static struct job *cached_job(struct pool *p, const char *run)
{
	for (size_t i = 0; i < p->njobs; i++)
		if (!strcmp(p->jobs[i].run, run))
			return p->jobs[i].job;
	p->jobs = xrealloc(p->jobs, (p->njobs + 1) * sizeof(*p->jobs));
	p->jobs[p->njobs].run = xstrdup(run);
	p->jobs[p->njobs].job = load_run_job(p->s, run);
	return p->jobs[p->njobs++].job;
}

/* a queue_fits_fn: room for a build, or host CPUs and memory for the guest */
static bool fits(const struct queue_item *it, void *arg)
{
	struct pool *p = arg;
	struct job *job;
	int rc;

	p->pending_never = false;
	if (it->kind == ITEM_BUILD)
		return p->nbuild < p->build_max;
	if (p->nvm >= p->max)
		return false;
	job = cached_job(p, it->run);
	if (!job) {
		p->pending_never = true; /* claim it to fail it with the reason */
		return true;
	}
	rc = placer_place(&p->placer, &job->topo, &p->pending);
	if (rc < 0)
		p->pending_never = true;
	return rc <= 0;
}

static char *item_log(struct pool *p, const struct queue_item *it)
{
	char *dir = xasprintf("%s/%s/queue", store_dir(p->s), it->run);
	char *log = it->kind == ITEM_BUILD ? xasprintf("%s/build-%s.log", dir, it->variant) :
					     xasprintf("%s/%s-%u.log", dir, it->variant, it->first);

	mkdir_p(dir, 0755);
	free(dir);
	return log;
}

/* in the worker: one boot, on the host CPUs and nodes placed for it */
static enum batch_result boot_worker(struct store *s, struct queue *q, void *arg)
{
	const struct pool *p = arg;
	const struct worker *w = p->starting;
	struct boot_opts bo = { .cache_dir = p->o->cache_dir,
				.connect_uri = p->o->connect_uri,
				.vcpu_pins = w->pl.vcpu_pins,
				.memnodes = w->pl.numa ? w->pl.memnodes : NULL,
				.attempt = w->it.attempts };
	enum batch_result rc;

	(void)q;
	bo.placement = placement_json(&w->pl);
	rc = p->ops->boot(s, &w->it, &bo, p->ops->arg);
	json_decref(bo.placement);
	return rc;
}

/* in the worker: one kernel build; exit 0 built, 1 not */
static enum batch_result build_worker(struct store *s, struct queue *q, void *arg)
{
	const struct pool *p = arg;

	return p->ops->build(s, q, &p->starting->it, p->o->cache_dir, p->ops->arg);
}

static void started(struct pool *p, const struct worker *w, const char *log)
{
	const struct queue_item *it = &w->it;
	char *pj;
	json_t *pl;

	if (it->kind == ITEM_BUILD) {
		p->nbuild++;
		queue_set_placement(p->q, it->id, w->pid, NULL);
		lab_info("building the kernel of %s variant %s (pid %d), log %s", it->run,
			 it->variant, (int)w->pid, log);
		return;
	}
	p->nvm++;
	pl = placement_json(&w->pl);
	pj = json_dumps(pl, JSON_COMPACT);
	queue_set_placement(p->q, it->id, w->pid, pj);
	lab_info("started %s %s iteration %u (pid %d, host CPUs %s), log %s", it->run, it->variant,
		 it->first, (int)w->pid, pj, log);
	free(pj);
	json_decref(pl);
}

static int start_worker(struct pool *p, const struct queue_item *it)
{
	struct worker *w = &p->w[p->nw];
	char *log = item_log(p, it);
	char *what = xasprintf("a worker for %s %s/%u", it->run, it->variant, it->first);
	struct worker_spec spec = {
		.results_dir = store_dir(p->s),
		.open_queue = it->kind == ITEM_BUILD,
		.log = log,
		.fn = it->kind == ITEM_BUILD ? build_worker : boot_worker,
		.arg = p,
	};

	w->it = *it;
	if (it->kind == ITEM_BUILD)
		memset(&w->pl, 0, sizeof(w->pl));
	else
		w->pl = p->pending;
	p->starting = w;
	w->pid = worker_start(&spec, what);
	free(what);
	if (w->pid < 0) {
		free(log);
		if (it->kind == ITEM_BOOT)
			placer_release(&p->placer, &w->pl);
		queue_finish(p->q, it->id, ITEM_QUEUED, "fork failed");
		return -1;
	}
	p->nw++;
	started(p, w, log);
	free(log);
	return 0;
}

static void job_maybe_final(struct pool *p, const struct queue_item *it)
{
	bool final, all_done, cancelled;

	if (queue_job_final(p->q, it->job, &final, &all_done, &cancelled) || !final)
		return;
	runstate_set(p->s, it->run, cancelled ? "cancelled" : "complete");
	lab_info("run %s %s", it->run,
		 cancelled ? "cancelled" :
		 all_done  ? "complete" :
			     "complete, with failed boots ('mmlab queue status --items')");
}

/* a build worker ended: settle its item; a failure ends the jobs waiting */
static void build_reaped(struct pool *p, const struct worker *w, int code)
{
	char *log = item_log(p, &w->it), *e;
	struct queue_build_users users;

	p->nbuild--;
	if (build_item_settle(p->q, p->s, &w->it, log,
			      code == BATCH_INTERRUPTED || worker_stop_requested(), &e,
			      &users) == 0)
		p->failed++;
	for (size_t i = 0; i < users.n; i++) {
		struct queue_item it = { .job = users.v[i].job };

		snprintf(it.run, sizeof(it.run), "%s", users.v[i].run);
		job_maybe_final(p, &it);
	}
	queue_build_users_free(&users);
	free(e);
	free(log);
}

/* a boot worker ended: done when stored, else requeued or failed */
static void boot_reaped(struct pool *p, const struct worker *w, int code)
{
	const struct queue_item *it = &w->it;

	p->nvm--;
	placer_release(&p->placer, &w->pl);
	if (runstate_item_stored(it, p->s)) {
		queue_finish(p->q, it->id, ITEM_DONE, code ? "stored, not ok" : NULL);
		p->done++;
		lab_info("%s %s iteration %u: stored%s", it->run, it->variant, it->first,
			 code == BATCH_FAILED ? " (not ok: see 'mmlab results show')" : "");
	} else if (code == BATCH_INTERRUPTED || worker_stop_requested()) {
		queue_finish(p->q, it->id, ITEM_QUEUED, "interrupted");
	} else {
		char *log = item_log(p, it);
		char *e = xasprintf("the boot stored nothing (exit %d); see %s", code, log);

		queue_finish(p->q, it->id, ITEM_FAILED, e);
		lab_err("%s %s iteration %u: %s", it->run, it->variant, it->first, e);
		p->failed++;
		free(e);
		free(log);
	}
	job_maybe_final(p, it);
}

/* reap ended workers; block: until every worker has ended */
static void reap(struct pool *p, bool block)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		struct worker w;
		unsigned int i;

		for (i = 0; i < p->nw && p->w[i].pid != pid; i++)
			;
		if (i == p->nw)
			continue;
		w = p->w[i];
		p->w[i] = p->w[--p->nw];
		if (w.it.kind == ITEM_BUILD)
			build_reaped(p, &w, worker_exit_code(st));
		else
			boot_reaped(p, &w, worker_exit_code(st));
		if (block)
			block = p->nw > 0;
		if (!block && !p->nw)
			break;
	}
}

/* a claimed boot that cannot start: fail it with why */
static void boot_refused(struct pool *p, const struct queue_item *it, const char *why, bool say)
{
	queue_finish(p->q, it->id, ITEM_FAILED, why);
	if (say)
		lab_err("%s %s iteration %u: %s", it->run, it->variant, it->first, why);
	p->failed++;
	job_maybe_final(p, it);
}

/* start what fits until nothing does; -1 when a worker cannot be forked */
static int claim_and_start(struct pool *p)
{
	struct queue_item it;
	char *why;
	int rc;

	while ((p->nvm < p->max || p->nbuild < p->build_max) && !worker_stop_requested()) {
		rc = queue_claim(p->q, &p->self, fits, p, &it);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (it.kind == ITEM_BUILD) {
			if (start_worker(p, &it))
				return -1;
			continue;
		}
		if (!p->pending_never && build_kernel_ready(p->q, p->s, it.run, it.variant, &why)) {
			placer_release(&p->placer, &p->pending);
			boot_refused(p, &it, why ? why : "cannot write run.json", true);
			free(why);
			continue;
		}
		if (p->pending_never) {
			boot_refused(p, &it,
				     "the job does not fit on this host (or its job file "
				     "is gone)",
				     false);
			continue;
		}
		/* first boot of the run: it is running now, under our pid */
		runstate_set(p->s, it.run, "running");
		if (start_worker(p, &it))
			return -1;
	}
	return 0;
}

static unsigned int host_cpus(const struct host_topo *h)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < h->nnodes; i++)
		n += h->nodes[i].ncpus;
	return n;
}

/* register as the store's runner, place on this host, recover; 0 or -1 */
static int pool_init(struct pool *p)
{
	struct host_topo *h = xmalloc(sizeof(*h));
	long long other;
	int rc;

	queue_owner_self(&p->self);
	if (host_topo_read(NULL, h)) {
		free(h);
		return -1;
	}
	rc = queue_runner_register(p->q, &p->self, POOL_STALE_S, &other);
	if (rc) {
		if (rc > 0)
			lab_err("'mmlab queue run' is already running on %s as pid %lld; it "
				"picks up jobs added meanwhile: wait for it, or stop it first",
				store_dir(p->s), other);
		free(h);
		return -1;
	}
	placer_init(&p->placer, h);
	p->max = p->o->jobs ? p->o->jobs : host_cpus(h);
	p->build_max = p->o->build_jobs;
	free(h);
	p->w = xcalloc(p->max + p->build_max, sizeof(*p->w));
	rc = queue_recover(p->q, &p->self, POOL_STALE_S, runstate_item_stored, p->s);
	if (rc > 0)
		lab_info("requeued or completed %d boot%s of a queue runner that died", rc,
			 rc == 1 ? "" : "s");
	lab_info("queue %s: up to %u VM%s at once on %s CPUs, %u kernel build%s", store_dir(p->s),
		 p->max, p->max == 1 ? "" : "s", p->placer.host.numa ? "pinned NUMA" : "pinned",
		 p->build_max, p->build_max == 1 ? "" : "s");
	return 0;
}

/* until empty or stopped: reap, claim and start, heartbeat; 0 or -1 */
static int pool_loop(struct pool *p)
{
	double last_beat = 0;

	for (;;) {
		reap(p, false);
		if (worker_stop_requested())
			return 0;
		if (claim_and_start(p))
			return -1;
		if (!p->nw)
			return 0; /* nothing running and nothing claimable: empty */
		if (now_monotonic() - last_beat > POOL_HEARTBEAT_S) {
			queue_heartbeat(p->q, &p->self);
			last_beat = now_monotonic();
		}
		usleep(200000);
	}
}

/* SIGTERM every worker and wait for them: their items are queued again */
static void pool_stop(struct pool *p)
{
	for (unsigned int i = 0; i < p->nw; i++)
		kill(p->w[i].pid, SIGTERM);
	lab_info("stopping: %u boot%s interrupted and requeued", p->nw, p->nw == 1 ? "" : "s");
	while (p->nw)
		reap(p, true);
}

static void pool_free(struct pool *p)
{
	for (size_t i = 0; i < p->njobs; i++) {
		free(p->jobs[i].run);
		job_free(p->jobs[i].job);
	}
	free(p->jobs);
	free(p->w);
	free(p);
}

int pool_run(struct queue *q, struct store *s, const struct pool_opts *o)
{
	struct pool *p = xcalloc(1, sizeof(*p));
	int ret;

	p->q = q;
	p->s = s;
	p->o = o;
	p->ops = o->ops ? o->ops : &default_ops;
	ret = pool_init(p);
	if (ret) {
		pool_free(p);
		return ret;
	}
	worker_stop_catch();
	ret = pool_loop(p);
	if (worker_stop_requested()) {
		pool_stop(p);
		ret = -1;
	}
	queue_runner_unregister(q, &p->self);
	lab_info("queue run: %u boot%s stored, %u failed", p->done, p->done == 1 ? "" : "s",
		 p->failed);
	if (!ret && p->failed)
		ret = -1;
	pool_free(p);
	worker_stop_release();
	return ret;
}
