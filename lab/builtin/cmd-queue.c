// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-queue.c - "mmlab queue add|run|status|cancel|retry" (and the
 * "build"/"exec"/"finish" steps Slurm jobs call): batch runs from
 * the resumable queue in lab/batch/queue.c, with concurrent, pinned VMs placed by
 * lab/vm/placement.c. See docs/queue.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "job/job.h"
#include "kernel/kernel.h"
#include "vm/placement.h"
#include "batch/queue.h"
#include "batch/queue_build.h"
#include "batch/queue_cli.h"
#include "store/results.h"
#include "run/runner.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/timefmt.h"
#include "lib/util.h"

#define STALE_S 120.0	/* another host's owner is dead after this silence */
#define HEARTBEAT_S 2.0

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab queue add [--priority N] [--accel M] [--json] JOB.yaml...\n"
		"       mmlab queue run [--jobs N] [--build-jobs M]\n"
		"       mmlab queue status [--json] [--items]\n"
		"       mmlab queue cancel ID\n"
		"       mmlab queue retry ID\n"
		"       mmlab queue build RUN --variant V (one kernel; what Slurm build steps run)\n"
		"       mmlab queue exec RUN --boot K     (one boot; what Slurm tasks run)\n"
		"       mmlab queue finish RUN            (mark a Slurm-run run complete)\n"
		"\n"
		"A resumable batch queue in the results store (RESULTS/queue.db). 'add'\n"
		"creates a run per job file and queues its boots (variant x iteration);\n"
		"'run' boots them, up to N VMs at once, each on its own host CPUs (and host\n"
		"NUMA nodes), until the queue is empty. 'run' is safe to kill -9 and start\n"
		"again: boots that were running are requeued, stored iterations are kept.\n"
		"\n"
		"options:\n"
		"  --priority N     higher runs first (default 0)\n"
		"  --accel M        auto, kvm or tcg (default: the job's)\n"
		"  --jobs N         at most N VMs at once (default: as many as the host's\n"
		"                   CPUs and free memory hold, one host CPU per vCPU)\n"
		"  --build-jobs M   kernel builds at once, beside the VMs (default 1); each\n"
		"                   kernel a job builds from source is one build item,\n"
		"                   shared by every queued job that needs the same kernel\n"
		"  --items          status: every item with its state and placement\n"
		"  --variant V      build: the variant whose kernel to build\n"
		"  --boot K         exec: the boot of the run's plan to run (0-based)\n"
		"  --json           machine-readable output\n"
		"  -h, --help       this help\n"
		"\n"
		"Exit status: 0 success, 1 a boot failed or the run was interrupted, 2 bad\n"
		"usage or input. See docs/queue.md.\n");
}

/* ------------------------------------------------------------------ */

static int run_status_set(struct store *s, const char *run, const char *status)
{
	json_t *rj = store_run_read(s, run);
	char now[TIME_STR_LEN];
	time_t t = time(NULL);
	int ret;

	if (!rj)
		return -1;
	json_object_set_new(rj, "status", json_string(status));
	if (!strcmp(status, "running")) {
		struct queue_owner o;

		queue_owner_self(&o);
		json_object_set_new(rj, "pid", json_integer(getpid()));
		json_object_set_new(rj, "host_boot_id", json_string(o.boot));
		json_object_del(rj, "finished");
	} else if (!strcmp(status, "complete") || !strcmp(status, "cancelled")) {
		time_iso(t, now);
		json_object_set_new(rj, "finished", json_string(now));
	}
	ret = store_run_write(s, run, rj);
	json_decref(rj);
	return ret;
}

static bool item_stored(const struct queue_item *it, void *arg)
{
	struct store *s = arg;

	if (it->kind == ITEM_BUILD)
		return false;	/* a build is never "stored": it runs again */
	for (unsigned int i = 0; i < it->count; i++)
		if (!store_iteration_done(s, it->run, it->variant, it->first + i))
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* queue run */

struct worker {
	pid_t pid;
	struct queue_item it;
	struct placement pl;
};

struct cached_job {
	char *run;
	struct job *job;
};

struct qrun {
	struct queue *q;
	struct store *s;
	struct queue_owner self;
	struct placer placer;
	struct worker *w;
	unsigned int nw, max;		/* workers running; at most max VMs */
	unsigned int nvm, nbuild, build_max;
	struct cached_job *jobs;
	size_t njobs;
	/* set by fits() for the item it accepted */
	struct placement pending;
	bool pending_never;
	unsigned int done, failed;
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static struct job *cached_job(struct qrun *qr, const char *run)
{
	for (size_t i = 0; i < qr->njobs; i++)
		if (!strcmp(qr->jobs[i].run, run))
			return qr->jobs[i].job;
	qr->jobs = xrealloc(qr->jobs, (qr->njobs + 1) * sizeof(*qr->jobs));
	qr->jobs[qr->njobs].run = xstrdup(run);
	qr->jobs[qr->njobs].job = load_run_job(qr->s, run);
	return qr->jobs[qr->njobs++].job;
}

static bool fits(const struct queue_item *it, void *arg)
{
	struct qrun *qr = arg;
	struct job *job;
	int rc;

	qr->pending_never = false;
	if (it->kind == ITEM_BUILD)
		return qr->nbuild < qr->build_max;
	if (qr->nvm >= qr->max)
		return false;
	job = cached_job(qr, it->run);
	if (!job) {
		qr->pending_never = true;	/* claim it to fail it with the reason */
		return true;
	}
	rc = placer_place(&qr->placer, &job->topo, &qr->pending);
	if (rc < 0)
		qr->pending_never = true;
	return rc <= 0;
}

static char *item_log(struct qrun *qr, const struct queue_item *it)
{
	char *dir = xasprintf("%s/%s/queue", store_dir(qr->s), it->run);
	char *log = it->kind == ITEM_BUILD ? xasprintf("%s/build-%s.log", dir, it->variant) :
		    xasprintf("%s/%s-%u.log", dir, it->variant, it->first);

	mkdir_p(dir, 0755);
	free(dir);
	return log;
}

static void __attribute__((noreturn)) worker_main(struct qrun *qr, struct worker *w,
						  pid_t parent, const char *log)
{
	struct boot_opts bo = { .cache_dir = gopts.cache_dir, .connect_uri = gopts.connect_uri,
				.vcpu_pins = w->pl.vcpu_pins,
				.memnodes = w->pl.numa ? w->pl.memnodes : NULL,
				.attempt = w->it.attempts };
	struct store *s;
	int fd, rc;

	/* die with the queue runner: our libvirt connection closes, and
	 * AUTODESTROY takes the domain with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(3);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	/* a connection of our own: SQLite and libvirt must not cross fork */
	s = store_open(qr->s ? store_dir(qr->s) : gopts.results_dir);
	if (!s)
		_exit(EXIT_RUN_FAILED);
	bo.placement = placement_json(&w->pl);
	rc = runner_boot(s, w->it.run, w->it.variant, w->it.first, &bo);
	json_decref(bo.placement);
	store_close(s);
	fflush(NULL);
	_exit(rc);
}

/* a build item, in a worker: exit 0 built, 1 not */
static void __attribute__((noreturn)) build_main(struct qrun *qr, const struct queue_item *it)
{
	struct store *s = store_open(store_dir(qr->s));
	struct queue *q = s ? queue_open(store_dir(qr->s)) : NULL;
	int rc = q ? build_item_build(q, s, it) : -1;

	queue_close(q);
	store_close(s);
	fflush(NULL);
	_exit(rc ? EXIT_RUN_FAILED : 0);
}

static int start_worker(struct qrun *qr, const struct queue_item *it)
{
	struct worker *w = &qr->w[qr->nw];
	char *log = item_log(qr, it);
	char *pj;
	json_t *p;
	pid_t parent = getpid(), pid;

	w->it = *it;
	if (it->kind == ITEM_BUILD)
		memset(&w->pl, 0, sizeof(w->pl));
	else
		w->pl = qr->pending;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		lab_err("cannot fork a worker for %s %s/%u: %s", it->run, it->variant,
			it->first, strerror(errno));
		free(log);
		if (it->kind == ITEM_BOOT)
			placer_release(&qr->placer, &w->pl);
		queue_finish(qr->q, it->id, ITEM_QUEUED, "fork failed");
		return -1;
	}
	if (pid == 0 && it->kind == ITEM_BUILD) {
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		build_main(qr, it);
	}
	if (pid == 0)
		worker_main(qr, w, parent, log);
	w->pid = pid;
	qr->nw++;
	if (it->kind == ITEM_BUILD) {
		qr->nbuild++;
		queue_set_placement(qr->q, it->id, pid, NULL);
		lab_info("building the kernel of %s variant %s (pid %d), log %s", it->run,
			 it->variant, (int)pid, log);
		free(log);
		return 0;
	}
	qr->nvm++;
	p = placement_json(&w->pl);
	pj = json_dumps(p, JSON_COMPACT);
	queue_set_placement(qr->q, it->id, pid, pj);
	lab_info("started %s %s iteration %u (pid %d, host CPUs %s), log %s", it->run,
		 it->variant, it->first, (int)pid, pj, log);
	free(pj);
	json_decref(p);
	free(log);
	return 0;
}

static void job_maybe_final(struct qrun *qr, const struct queue_item *it)
{
	bool final, all_done, cancelled;

	if (queue_job_final(qr->q, it->job, &final, &all_done, &cancelled) || !final)
		return;
	run_status_set(qr->s, it->run, cancelled ? "cancelled" : "complete");
	lab_info("run %s %s", it->run, cancelled ? "cancelled" : all_done ?
		 "complete" : "complete, with failed boots ('mmlab queue status --items')");
}

/* a build worker ended: settle its item; a failure ends the jobs waiting */
static void build_reaped(struct qrun *qr, const struct worker *w, int code)
{
	char *log = item_log(qr, &w->it), *e;
	json_t *users, *u;
	size_t i;

	if (build_item_settle(qr->q, qr->s, &w->it, log, code == 3 || stop_requested, &e,
			      &users) == 0)
		qr->failed++;
	json_array_foreach(users, i, u) {
		struct queue_item it = { .job = json_integer_value(json_object_get(u, "job")) };

		snprintf(it.run, sizeof(it.run), "%s", json_string_value(json_object_get(u, "run")));
		job_maybe_final(qr, &it);
	}
	json_decref(users);
	free(e);
	free(log);
}

static void reap(struct qrun *qr, bool block)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		unsigned int i;

		for (i = 0; i < qr->nw && qr->w[i].pid != pid; i++)
			;
		if (i == qr->nw)
			continue;
		struct worker w = qr->w[i];

		qr->w[i] = qr->w[--qr->nw];
		if (w.it.kind == ITEM_BUILD) {
			qr->nbuild--;
			build_reaped(qr, &w, code);
			if (block)
				block = qr->nw > 0;
			if (!block && !qr->nw)
				break;
			continue;
		}
		qr->nvm--;
		placer_release(&qr->placer, &w.pl);
		if (item_stored(&w.it, qr->s)) {
			queue_finish(qr->q, w.it.id, ITEM_DONE, code ? "stored, not ok" : NULL);
			qr->done++;
			lab_info("%s %s iteration %u: stored%s", w.it.run, w.it.variant,
				 w.it.first, code == 1 ? " (not ok: see 'mmlab results show')" : "");
		} else if (code == 3 || stop_requested) {
			queue_finish(qr->q, w.it.id, ITEM_QUEUED, "interrupted");
		} else {
			char *log = item_log(qr, &w.it);
			char *e = xasprintf("the boot stored nothing (exit %d); see %s", code, log);

			queue_finish(qr->q, w.it.id, ITEM_FAILED, e);
			lab_err("%s %s iteration %u: %s", w.it.run, w.it.variant, w.it.first, e);
			qr->failed++;
			free(e);
			free(log);
		}
		job_maybe_final(qr, &w.it);
		if (block)
			block = qr->nw > 0;
		if (!block && !qr->nw)
			break;
	}
}

static int claim_and_start(struct qrun *qr)
{
	struct queue_item it;
	int rc;

	while ((qr->nvm < qr->max || qr->nbuild < qr->build_max) && !stop_requested) {
		char *why;

		rc = queue_claim(qr->q, &qr->self, fits, qr, &it);
		if (rc)
			return rc < 0 ? -1 : 0;
		if (it.kind == ITEM_BUILD) {
			if (start_worker(qr, &it))
				return -1;
			continue;
		}
		if (!qr->pending_never &&
		    build_kernel_ready(qr->q, qr->s, it.run, it.variant, &why)) {
			placer_release(&qr->placer, &qr->pending);
			queue_finish(qr->q, it.id, ITEM_FAILED, why ? why : "cannot write run.json");
			lab_err("%s %s iteration %u: %s", it.run, it.variant, it.first,
				why ? why : "cannot write run.json");
			free(why);
			qr->failed++;
			job_maybe_final(qr, &it);
			continue;
		}
		if (qr->pending_never) {
			queue_finish(qr->q, it.id, ITEM_FAILED,
				     "the job does not fit on this host (or its job file is gone)");
			qr->failed++;
			job_maybe_final(qr, &it);
			continue;
		}
		/* first boot of the run: it is running now, under our pid */
		run_status_set(qr->s, it.run, "running");
		if (start_worker(qr, &it))
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

static int queue_run(struct queue *q, struct store *s, unsigned int jobs,
		     unsigned int build_jobs)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct qrun qr = { .q = q, .s = s };
	struct host_topo *h = xmalloc(sizeof(*h));
	double last_beat = 0;
	long long other;
	int rc, ret = 0;

	queue_owner_self(&qr.self);
	if (host_topo_read(NULL, h)) {
		free(h);
		return EXIT_RUN_FAILED;
	}
	rc = queue_runner_register(q, &qr.self, STALE_S, &other);
	if (rc) {
		if (rc > 0)
			lab_err("'mmlab queue run' is already running on %s as pid %lld; it "
				"picks up jobs added meanwhile: wait for it, or stop it first",
				store_dir(s), other);
		free(h);
		return EXIT_RUN_FAILED;
	}
	placer_init(&qr.placer, h);
	qr.max = jobs ? jobs : host_cpus(h);
	qr.build_max = build_jobs;
	free(h);
	qr.w = xcalloc(qr.max + qr.build_max, sizeof(*qr.w));
	rc = queue_recover(q, &qr.self, STALE_S, item_stored, s);
	if (rc > 0)
		lab_info("requeued or completed %d boot%s of a queue runner that died", rc,
			 rc == 1 ? "" : "s");
	lab_info("queue %s: up to %u VM%s at once on %s CPUs, %u kernel build%s", store_dir(s),
		 qr.max, qr.max == 1 ? "" : "s", qr.placer.host.numa ? "pinned NUMA" : "pinned",
		 qr.build_max, qr.build_max == 1 ? "" : "s");
	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		reap(&qr, false);
		if (stop_requested)
			break;
		if (claim_and_start(&qr)) {
			ret = EXIT_RUN_FAILED;
			break;
		}
		if (!qr.nw)
			break;	/* nothing running and nothing claimable: empty */
		if (now_monotonic() - last_beat > HEARTBEAT_S) {
			queue_heartbeat(q, &qr.self);
			last_beat = now_monotonic();
		}
		usleep(200000);
	}
	if (stop_requested) {
		for (unsigned int i = 0; i < qr.nw; i++)
			kill(qr.w[i].pid, SIGTERM);
		lab_info("stopping: %u boot%s interrupted and requeued", qr.nw,
			 qr.nw == 1 ? "" : "s");
		while (qr.nw)
			reap(&qr, true);
		ret = EXIT_RUN_FAILED;
	}
	queue_runner_unregister(q, &qr.self);
	lab_info("queue run: %u boot%s stored, %u failed", qr.done, qr.done == 1 ? "" : "s",
		 qr.failed);
	for (size_t i = 0; i < qr.njobs; i++) {
		free(qr.jobs[i].run);
		job_free(qr.jobs[i].job);
	}
	free(qr.jobs);
	free(qr.w);
	return ret ? ret : qr.failed ? EXIT_RUN_FAILED : 0;
}

/* ------------------------------------------------------------------ */

int queue_add_job(struct queue *q, struct store *s, const char *path, int priority,
		  const char *accel, const char *slurm, char **run_out, long long *job_out,
		  json_t **boots_out)
{
	/* kernels built from source become the queue's build items */
	struct run_opts o = { .cache_dir = gopts.cache_dir, .connect_uri = gopts.connect_uri,
			      .job_path = path, .accel = accel, .defer_builds = true };
	json_t *rj, *boots;
	char *run = NULL;
	long long id = 0;
	int ret = runner_create(s, &o, &run);

	if (ret)
		return ret;
	rj = store_run_read(s, run);
	boots = json_incref(json_object_get(rj, "boots"));
	id = rj ? queue_add(q, run, json_string_value(json_object_get(rj, "job")), priority,
			    boots, slurm) : -1;
	json_decref(rj);
	if (id < 0) {
		json_decref(boots);
		free(run);
		return EXIT_RUN_FAILED;
	}
	*run_out = run;
	*job_out = id;
	if (boots_out)
		*boots_out = boots;
	else
		json_decref(boots);
	return 0;
}

static int parse_prio(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < -1000000 || v > 1000000) {
		lab_err("--priority wants an integer, not '%s'", s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* "base, patched": the variants whose kernels are build requests, or NULL */
static char *kernels_to_build(json_t *boots)
{
	struct strlist names = { 0 };
	char *list = NULL;
	json_t *b;
	size_t i, k;

	json_array_foreach(boots, i, b) {
		const char *v = json_string_value(json_object_get(b, "variant"));

		if (!json_string_value(json_object_get(b, "build")) || !v)
			continue;
		for (k = 0; k < names.n && strcmp(names.v[k], v); k++)
			;
		if (k == names.n)
			strlist_push(&names, v);
	}
	if (names.n)
		list = strlist_join(&names, ", ");
	strlist_free(&names);
	return list;
}

static int do_add(struct queue *q, struct store *s, int argc, char **argv, int priority,
		  const char *accel, bool json)
{
	json_t *out = json_array();
	int ret = 0;

	if (optind >= argc) {
		lab_err("queue add wants job files; see 'mmlab queue --help'");
		json_decref(out);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		char *run = NULL, *kernels;
		long long id;
		json_t *boots;
		int rc = queue_add_job(q, s, argv[i], priority, accel, NULL, &run, &id, &boots);

		if (rc) {
			ret = rc;
			continue;
		}
		kernels = kernels_to_build(boots);
		if (!json)
			printf("queued job %lld: run %s, %zu boot%s%s%s (%s)\n", id, run,
			       json_array_size(boots), json_array_size(boots) == 1 ? "" : "s",
			       kernels ? ", kernels built from source: " : "",
			       kernels ? kernels : "", argv[i]);
		json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:i}", "id",
			(json_int_t)id, "run", run, "file", argv[i], "boots",
			(int)json_array_size(boots)));
		free(kernels);
		json_decref(boots);
		free(run);
	}
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	}
	json_decref(out);
	return ret;
}

static void print_item(json_t *it)
{
	const char *err = json_string_value(json_object_get(it, "error"));
	char *pl;

	if (!strcmp(json_string_value(json_object_get(it, "kind")) ?: "", "build")) {
		printf("     item %lld kernel build of %s (request %.12s, %lld boots need it): "
		       "%s%s%s\n", (long long)json_integer_value(json_object_get(it, "id")),
		       json_string_value(json_object_get(it, "variant")),
		       json_string_value(json_object_get(it, "request")),
		       (long long)json_integer_value(json_object_get(it, "needed_by")),
		       json_string_value(json_object_get(it, "state")), err ? ": " : "",
		       err ?: "");
		return;
	}
	pl = json_object_get(it, "placement") ?
	     json_dumps(json_object_get(it, "placement"), JSON_COMPACT) : NULL;
	printf("     item %lld %s/%lld: %s%s%s%s%s\n",
	       (long long)json_integer_value(json_object_get(it, "id")),
	       json_string_value(json_object_get(it, "variant")),
	       (long long)json_integer_value(json_object_get(it, "first")),
	       json_string_value(json_object_get(it, "state")), pl ? " " : "", pl ? pl : "",
	       err ? ": " : "", err ?: "");
	free(pl);
}

static void print_status(json_t *st, bool items)
{
	size_t i, k;
	json_t *j, *it;

	printf("%-4s %-40s %4s %5s %5s %6s %6s %6s %8s\n", "ID", "RUN", "PRI", "DONE",
	       "RUN", "QUEUED", "FAILED", "CANCEL", "ETA");
	json_array_foreach(st, i, j) {
		json_t *c = json_object_get(j, "counts"), *eta = json_object_get(j, "eta_s");
		char etab[32] = "-";

		if (json_is_number(eta))
			snprintf(etab, sizeof(etab), "%.0fs", json_number_value(eta));
		printf("%-4lld %-40s %4lld %5lld %5lld %6lld %6lld %6lld %8s\n",
		       (long long)json_integer_value(json_object_get(j, "id")),
		       json_string_value(json_object_get(j, "run")),
		       (long long)json_integer_value(json_object_get(j, "priority")),
		       (long long)json_integer_value(json_object_get(c, "done")),
		       (long long)json_integer_value(json_object_get(c, "running")),
		       (long long)json_integer_value(json_object_get(c, "queued")),
		       (long long)json_integer_value(json_object_get(c, "failed")),
		       (long long)json_integer_value(json_object_get(c, "cancelled")), etab);
		if (json_object_size(json_object_get(j, "builds"))) {
			const char *key;
			json_t *v;
			const char *sep = "";

			printf("     kernel builds:");
			json_object_foreach(json_object_get(j, "builds"), key, v) {
				printf("%s %lld %s", sep, (long long)json_integer_value(v), key);
				sep = ",";
			}
			putchar('\n');
		}
		if (json_is_object(json_object_get(j, "slurm"))) {
			json_t *sl = json_object_get(j, "slurm");
			const char *key;
			json_t *v;

			printf("     slurm: array job %s, finish job %s",
			       json_string_value(json_object_get(sl, "array")) ?: "?",
			       json_string_value(json_object_get(sl, "finish")) ?: "?");
			json_object_foreach(json_object_get(sl, "builds"), key, v)
				printf(", build job %s (%s)", json_string_value(v), key);
			json_object_foreach(json_object_get(sl, "states"), key, v)
				printf(", %s %s", key, json_string_value(v));
			putchar('\n');
		}
		if (!items)
			continue;
		json_array_foreach(json_object_get(j, "items"), k, it)
			print_item(it);
	}
}

static int do_status(struct queue *q, struct store *s, bool json, bool items)
{
	json_t *st = queue_status(q, 0), *j;
	size_t i;
	unsigned int running = 0;

	if (!st)
		return EXIT_RUN_FAILED;
	json_array_foreach(st, i, j)
		running += (unsigned int)json_integer_value(json_object_get(
			json_object_get(j, "counts"), "running"));
	if (running > 1) {	/* ETA over the VMs running now */
		json_decref(st);
		st = queue_status(q, running);
	}
	json_array_foreach(st, i, j)
		if (json_is_object(json_object_get(j, "slurm")))
			slurm_status_fill(j, s);
	if (json) {
		json_dumpf(st, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		print_status(st, items);
	}
	json_decref(st);
	return 0;
}

/* after cancel/retry: the run's status says what the queue holds for it */
static void run_status_follow(struct queue *q, struct store *s, long long id)
{
	json_t *st = queue_status(q, 1), *j;
	bool final, all_done, cancelled;
	size_t i;

	if (!st || queue_job_final(q, id, &final, &all_done, &cancelled)) {
		json_decref(st);
		return;
	}
	json_array_foreach(st, i, j) {
		const char *run = json_string_value(json_object_get(j, "run"));

		if (json_integer_value(json_object_get(j, "id")) != id || !run)
			continue;
		if (final && cancelled)
			run_status_set(s, run, "cancelled");
		else if (!final && !json_integer_value(json_object_get(
				json_object_get(j, "counts"), "running")))
			run_status_set(s, run, "queued");
	}
	json_decref(st);
}

static int parse_id(const char *s, long long *id)
{
	uint64_t v;

	if (!s || parse_uint(s, &v) || !v) {
		lab_err("wants a queue job id (a number from 'mmlab queue status'), not '%s'",
			s ? s : "");
		return -1;
	}
	*id = (long long)v;
	return 0;
}

/* one boot of a run, in this process: what a Slurm array task runs */
static int do_exec(struct queue *q, struct store *s, const char *run_arg, const char *boot)
{
	char *run = store_run_resolve(s, run_arg), *why;
	json_t *rj, *b, *pl;
	uint64_t k;
	char host[256] = "";
	int ret;

	if (!run)
		return EXIT_USAGE;
	rj = store_run_read(s, run);
	if (!boot || parse_uint(boot, &k) || !rj ||
	    !(b = json_array_get(json_object_get(rj, "boots"), k))) {
		lab_err("run %s has no boot number '%s'; give --boot 0..%zu", run,
			boot ? boot : "", json_array_size(json_object_get(rj, "boots")) - 1);
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
	gethostname(host, sizeof(host) - 1);
	pl = json_pack("{s:s, s:s?, s:s?}", "host", host, "slurm_job",
		       getenv("SLURM_JOB_ID"), "slurm_array_task", getenv("SLURM_ARRAY_TASK_ID"));
	{
		/* Slurm counts the requeues of a task: a requeued task is a new attempt */
		const char *restarts = getenv("SLURM_RESTART_COUNT");
		uint64_t nr = 0;
		struct boot_opts bo = { .cache_dir = gopts.cache_dir,
					.connect_uri = gopts.connect_uri, .placement = pl };

		if (restarts && !parse_uint(restarts, &nr) && nr < 1000000)
			bo.attempt = (unsigned int)nr + 1;

		ret = runner_boot(s, run, json_string_value(json_object_get(b, "variant")),
				  (unsigned int)json_integer_value(json_object_get(b, "first")), &bo);
	}
	json_decref(pl);
	json_decref(rj);
	free(run);
	return ret == 3 ? EXIT_RUN_FAILED : ret;
}

/* where a Slurm build step's output goes (cmd-submit.c names it) */
static char *build_step_log(struct store *s, const char *run, const char *variant)
{
	if (getenv("SLURM_JOB_ID"))
		return xasprintf("%s/%s/slurm/build-%s.out", store_dir(s), run, variant);
	return xstrdup("the output of 'mmlab queue build'");
}

/* build it (claimed) in a child, heartbeating; the child's exit code */
static int build_in_child(struct queue *q, struct store *s, const struct queue_owner *self,
			  const struct queue_item *it)
{
	struct sigaction sa = { .sa_handler = on_stop };
	pid_t parent = getpid(), pid;
	double last_beat = 0;
	int st;

	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		lab_err("cannot fork the build: %s", strerror(errno));
		return 3;
	}
	if (pid == 0) {
		struct store *cs;
		struct queue *cq;
		int rc;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* connections of our own: SQLite must not cross fork */
		cs = store_open(store_dir(s));
		cq = cs ? queue_open(store_dir(s)) : NULL;
		rc = cq ? build_item_build(cq, cs, it) : -1;
		queue_close(cq);
		store_close(cs);
		fflush(NULL);
		_exit(rc ? EXIT_RUN_FAILED : 0);
	}
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			lab_err("waiting for the build: %s", strerror(errno));
			return 3;
		}
		if (stop_requested == 1) {
			kill(pid, SIGTERM);
			stop_requested = 2;
		}
		if (now_monotonic() - last_beat > HEARTBEAT_S) {
			queue_heartbeat(q, self);
			last_beat = now_monotonic();
		}
		usleep(200000);
	}
	if (stop_requested)
		return 3;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The kernel build of a run's variant, in this process: what a Slurm
 * build step runs. It claims the variant's build item as a queue run
 * worker would (this process owns it, with heartbeats), builds in a child
 * and settles the item: every run waiting for that kernel gets it. An item
 * another process is building is waited for; a done one is only handed on.
 */
static int do_build(struct queue *q, struct store *s, const char *run_arg,
		    const char *variant)
{
	char *run = store_run_resolve(s, run_arg), *req = NULL, *why = NULL, *log, *e;
	struct queue_owner self;
	struct queue_item it;
	bool waiting = false;
	json_t *rj, *k, *users;
	int ret = EXIT_RUN_FAILED, rc;

	if (!run)
		return EXIT_USAGE;
	rj = store_run_read(s, run);
	k = variant ? run_variant_kernel(rj, variant, NULL) : NULL;
	if (!k) {
		lab_err("run %s has no variant '%s'; give --variant NAME", run,
			variant ? variant : "");
		json_decref(rj);
		free(run);
		return EXIT_USAGE;
	}
	if (!json_is_true(json_object_get(k, "build_pending")) ||
	    !json_is_string(json_object_get(k, "request"))) {
		lab_info("run %s variant '%s' has its kernel (%s): nothing to build", run, variant,
			 json_string_value(json_object_get(k, "path")) ?: "not built from source");
		json_decref(rj);
		free(run);
		return 0;
	}
	req = xstrdup(json_string_value(json_object_get(k, "request")));
	json_decref(rj);
	queue_owner_self(&self);
	for (;;) {
		enum item_state state;
		long long bid;
		json_t *res = queue_build_result(q, req, &state, &bid);

		json_decref(res);
		if (!bid) {
			lab_err("the queue in %s has no build item for request %.12s of run %s "
				"variant '%s'", store_dir(s), req, run, variant);
			goto out;
		}
		if (state == ITEM_DONE || state == ITEM_FAILED || state == ITEM_CANCELLED) {
			/* built (or failed) by someone else: hand on the outcome */
			if (build_kernel_ready(q, s, run, variant, &why)) {
				lab_err("%s", why);
				goto out;
			}
			lab_info("run %s variant '%s': the kernel was built by build item %lld",
				 run, variant, bid);
			ret = 0;
			goto out;
		}
		rc = queue_claim_item(q, &self, bid, &it);
		if (rc < 0)
			goto out;
		if (rc == 0)
			break;
		if (!waiting)
			lab_info("build item %lld (request %.12s) is being built by another process; "
				 "waiting for it", bid, req);
		waiting = true;
		queue_recover(q, &self, STALE_S, item_stored, s);
		sleep(5);
	}
	rc = build_in_child(q, s, &self, &it);
	log = build_step_log(s, run, variant);
	if (build_item_settle(q, s, &it, log, rc == 3, &e, &users) == 1)
		ret = 0;
	else if (!e)
		lab_err("the build of run %s variant '%s' was interrupted; it is queued again",
			run, variant);
	json_decref(users);
	free(e);
	free(log);
out:
	free(why);
	free(req);
	free(run);
	return ret;
}

/* every boot stored: complete; else incomplete (exit 1) */
static int do_finish(struct store *s, const char *run_arg)
{
	char *run = store_run_resolve(s, run_arg);
	json_t *rj, *b;
	size_t i, missing = 0;

	if (!run)
		return EXIT_USAGE;
	rj = store_run_read(s, run);
	json_array_foreach(json_object_get(rj, "boots"), i, b) {
		struct queue_item it = { .first = (unsigned int)json_integer_value(
						 json_object_get(b, "first")),
					 .count = (unsigned int)json_integer_value(
						 json_object_get(b, "count")) };

		snprintf(it.run, sizeof(it.run), "%s", run);
		snprintf(it.variant, sizeof(it.variant), "%s",
			 json_string_value(json_object_get(b, "variant")) ?: "");
		missing += !item_stored(&it, s);
	}
	json_decref(rj);
	if (run_status_set(s, run, missing ? "incomplete" : "complete")) {
		free(run);
		return EXIT_RUN_FAILED;
	}
	if (missing)
		lab_err("run %s: %zu boot%s not stored; 'mmlab queue status --items' and the "
			"Slurm task logs under %s/%s/slurm say why", run, missing,
			missing == 1 ? "" : "s", store_dir(s), run);
	else
		lab_info("run %s complete", run);
	free(run);
	return missing ? EXIT_RUN_FAILED : 0;
}

int cmd_queue(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "priority", required_argument, NULL, 'p' },
		{ "accel", required_argument, NULL, 'a' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "build-jobs", required_argument, NULL, 'b' },
		{ "boot", required_argument, NULL, 'k' },
		{ "variant", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "items", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub, *accel = NULL, *boot = NULL, *variant = NULL;
	bool json = false, items = false;
	int priority = 0, c, ret;
	uint64_t jobs = 0, build_jobs = 1;
	struct queue *q;
	struct store *s;
	long long id = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	sub = argv[1];
	argc--;
	argv++;
	optind = 0;	/* reinitialise getopt: options may follow operands */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_prio(optarg, &priority))
				return EXIT_USAGE;
			break;
		case 'a': accel = optarg; break;
		case 'j':
			if (parse_uint(optarg, &jobs) || !jobs || jobs > PLACE_MAX_CPUS) {
				lab_err("--jobs wants a number of VMs from 1 to %d, not '%s'",
					PLACE_MAX_CPUS, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			if (parse_uint(optarg, &build_jobs) || !build_jobs || build_jobs > 64) {
				lab_err("--build-jobs wants a number of builds from 1 to 64, not '%s'",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'k': boot = optarg; break;
		case 'v': variant = optarg; break;
		case 'J': json = true; break;
		case 'i': items = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (accel && strcmp(accel, "auto") && strcmp(accel, "kvm") && strcmp(accel, "tcg")) {
		lab_err("--accel is auto, kvm or tcg, not '%s'", accel);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "add") && strcmp(sub, "run") && strcmp(sub, "status") &&
	    strcmp(sub, "cancel") && strcmp(sub, "retry") && strcmp(sub, "exec") &&
	    strcmp(sub, "finish") && strcmp(sub, "build")) {
		lab_err("no queue command '%s'; 'mmlab queue --help' lists them", sub);
		return EXIT_USAGE;
	}
	if ((!strcmp(sub, "run") || !strcmp(sub, "status")) && optind != argc) {
		lab_err("'mmlab queue %s' takes no arguments; see 'mmlab queue --help'", sub);
		return EXIT_USAGE;
	}
	if ((!strcmp(sub, "cancel") || !strcmp(sub, "retry")) &&
	    (optind != argc - 1 || parse_id(argv[optind], &id)))
		return EXIT_USAGE;
	if ((!strcmp(sub, "exec") || !strcmp(sub, "finish") || !strcmp(sub, "build")) &&
	    optind != argc - 1) {
		lab_err("'mmlab queue %s' wants one run; see 'mmlab queue --help'", sub);
		return EXIT_USAGE;
	}
	s = store_open(gopts.results_dir);
	if (!s)
		return EXIT_RUN_FAILED;
	if (!strcmp(sub, "finish")) {
		ret = do_finish(s, argv[optind]);
		store_close(s);
		return ret;
	}
	q = queue_open(gopts.results_dir);
	if (!q) {
		store_close(s);
		return EXIT_RUN_FAILED;
	}
	if (!strcmp(sub, "exec")) {
		ret = do_exec(q, s, argv[optind], boot);
	} else if (!strcmp(sub, "build")) {
		ret = do_build(q, s, argv[optind], variant);
	} else if (!strcmp(sub, "add")) {
		ret = do_add(q, s, argc, argv, priority, accel, json);
	} else if (!strcmp(sub, "run")) {
		ret = queue_run(q, s, (unsigned int)jobs, (unsigned int)build_jobs);
	} else if (!strcmp(sub, "status")) {
		ret = do_status(q, s, json, items);
	} else {
		int n = !strcmp(sub, "cancel") ? queue_cancel(q, id) : queue_retry(q, id);

		ret = n < 0 ? EXIT_USAGE : 0;
		if (n > 0)
			run_status_follow(q, s, id);
		if (n >= 0 && !strcmp(sub, "cancel"))
			printf("job %lld: %d queued boot%s cancelled (running ones finish)\n",
			       id, n, n == 1 ? "" : "s");
		else if (n >= 0)
			printf("job %lld: %d boot%s queued again\n", id, n, n == 1 ? "" : "s");
	}
	queue_close(q);
	store_close(s);
	return ret;
}
