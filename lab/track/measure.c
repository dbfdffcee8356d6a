// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - a run of every point of the series and every job of the
 * track, created through the queue (batch/enqueue.h) and booted by its
 * worker pool: concurrent pinned VMs, kernels built from source as build
 * items shared by every run that needs them.
 *
 * Nothing is measured twice. The job of a point is written to
 * jobs/JOB--POINT.yaml before its run is created, and the run's id is
 * written to state.json right after; a track run killed in between finds
 * the run by its job file (a run whose boots never reached the queue is
 * left and made anew). The queue itself requeues the boots of a killed
 * pool and keeps every stored iteration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/enqueue.h"
#include "batch/pool.h"
#include "batch/queue.h"
#include "batch/submit.h"
#include "job/job.h"
#include "job/rewrite.h"
#include "store/run_record.h"
#include "track/internal.h"

/* whether run's own copy of its job (<run>/job.yaml) is text, byte for byte */
static bool run_job_is(struct track *t, const char *run, const char *text, size_t len)
{
	char *copy = xasprintf("%s/%s/job.yaml", store_dir(t->store), run);
	size_t n = 0;
	char *buf = read_file(copy, &n, 1u << 20);
	bool same = buf && n == len && !memcmp(buf, text, len);

	free(buf);
	free(copy);
	return same;
}

char *track_find_run(struct track *t, const char *path, bool complete_only)
{
	struct run_row *rows;
	char *found = NULL, *same = NULL, *text;
	size_t n, len = 0;

	if (store_run_rows(t->store, &rows, &n))
		return NULL;
	text = read_file(path, &len, 1u << 20);
	for (size_t i = 0; i < n && !found; i++) {
		const struct run_row *r = &rows[i];
		bool complete = !strcmp(r->status, "complete");

		if (r->job_file && !strcmp(r->job_file, path) && (complete || !complete_only))
			found = xstrdup(r->run);
		else if (!same && complete && text && run_job_is(t, r->run, text, len))
			same = xstrdup(r->run);
	}
	run_rows_free(rows, n);
	free(text);
	if (found) {
		free(same);
		return found;
	}
	return same;
}

char *track_job_dir(const struct track *t, size_t j)
{
	char *d = xstrdup(t->def.jobs[j].path), *slash = strrchr(d, '/');

	if (slash)
		*slash = '\0';
	return d;
}

char *track_job_file(struct track *t, size_t j, const char *file_name,
		     const struct track_variant *variants, size_t nvariants,
		     unsigned int iterations, bool *existed)
{
	const struct track_job *tj = &t->def.jobs[j];
	struct job_rewrite_variant rv[2];
	struct job_rewrite rw = { .name = tj->name,
				  .variants = rv,
				  .tree = t->def.tree,
				  .config = t->def.config,
				  .iterations = iterations };
	char err[256], *jobs = xasprintf("%s/jobs", t->dir), *path, *text, *yaml = NULL;
	size_t len;

	for (size_t i = 0; i < nvariants && i < ARRAY_SIZE(rv); i++) {
		rv[i] = (struct job_rewrite_variant){
			.name = variants[i].name,
			.from = tj->from,
			.set = variants[i].set,
			.drop_ops = true,
		};
		rw.nvariants++;
	}
	path = xasprintf("%s/%s", jobs, file_name);
	*existed = path_exists(path);
	text = read_file(tj->path, &len, 1u << 20);
	if (text)
		yaml = job_rewrite_yaml(text, len, &rw, err, sizeof(err));
	if (text && !yaml)
		lab_err("%s: the job of %s could not be made: %s", tj->path, file_name, err);
	if (!yaml || mkdir_p(jobs, 0755) || write_file_atomic(path, yaml, strlen(yaml), 0644)) {
		free(path);
		path = NULL;
	}
	free(yaml);
	free(text);
	free(jobs);
	return path;
}

struct job *track_load_job(struct track *t, size_t j, const char *path)
{
	char *dir = track_job_dir(t, j), *text;
	struct job *job = NULL;
	size_t len;

	text = read_file(path, &len, 1u << 20);
	if (text && job_load_buffer(path, text, len, dir, &job))
		job = NULL;
	free(text);
	free(dir);
	return job;
}

/* a created run of a loaded job: through the local queue, or submitted to Slurm */
static int create_run(struct track *t, struct queue *q, const char *path, struct job *job,
		      const struct track_run_opts *o, char **run)
{
	struct run_opts ro = { .cache_dir = t->env->cache_dir,
			       .connect_uri = t->env->connect_uri,
			       .job = job };
	struct submit_opts so = { .mmlab = o->mmlab,
				  .cache_dir = t->env->cache_dir,
				  .connect_uri = t->env->connect_uri,
				  .partition = o->partition,
				  .build_minutes = 120 };
	struct submitted_list out = { 0 };
	long long qjob;
	int ret;

	if (!o->slurm)
		return queue_add_job(q, t->store, path, 0, &ro, NULL, run, &qjob, NULL);
	ret = submit_job(q, t->store, path, job, &so, &out);
	if (!ret && out.n)
		*run = xstrdup(out.v[0].run);
	else if (!ret)
		ret = -1;
	submitted_list_release(&out);
	return ret;
}

/* whether run.json says the run is complete (every boot stored) */
static bool run_complete(struct track *t, const char *run)
{
	struct run_record rec;
	bool complete;

	if (store_record_read(t->store, run, &rec))
		return false;
	complete = !strcmp(run_record_status(&rec), "complete");
	run_record_release(&rec);
	return complete;
}

/* the run of point and job j, created and queued when there is none */
static int ensure_run(struct track *t, struct queue *q, struct track_point *pt, size_t j,
		      const struct track_run_opts *o)
{
	const char *job = t->def.jobs[j].name;
	struct track_variant var = { pt->label, pt->set };
	char *file, *path, *run = NULL;
	struct track_slot *slot;
	struct job *loaded;
	bool existed;
	int ret;

	t->state.has_runs = true;
	pt->in_runs = true;
	if (track_point_slot(pt, job))
		return 0;
	file = xasprintf("%s--%s.yaml", job, pt->label);
	path = track_job_file(t, j, file, &var, 1, t->def.iterations, &existed);
	free(file);
	if (!path)
		return -1;
	/*
	 * A run of this derived job: one an earlier track run made (its job
	 * file is this path: only if the file existed), or a complete run,
	 * made here or on another lab server and imported, whose job is this
	 * job's text. Only one this host made and never queued is made anew.
	 */
	run = track_find_run(t, path, !existed);
	if (run && queue_job_of_run(q, run) < 0 && !run_complete(t, run)) {
		lab_warn("run %s of %s never reached the queue (a track run killed while "
			 "creating it); making it anew",
			 run, path);
		free(run);
		run = NULL;
	} else if (run && !existed) {
		lab_info("track %s: kernel %s of job %s: run %s measured it already", t->def.name,
			 pt->label, job, run);
	}
	if (!run) {
		loaded = track_load_job(t, j, path);
		ret = loaded ? create_run(t, q, path, loaded, o, &run) : -1;
		if (ret) {
			lab_err("track %s: kernel %s of job %s could not be queued (above)",
				t->def.name, pt->label, job);
			free(path);
			return -1;
		}
	}
	slot = track_point_slot_add(pt, job);
	slot->run = run;
	slot->job_file = path;
	slot->status = xstrdup("queued");
	return track_save(t);
}

/* measured, failed (no iteration ok) or queued (iterations still to come) */
static const char *run_state(struct track *t, const char *run, const char *variant)
{
	unsigned int done = 0, ok = 0, want = t->def.iterations;
	struct track_stored_run r;

	if (track_run_load(t->store, run, &r))
		return "failed";
	for (size_t i = 0; i < r.nvars; i++) {
		if (strcmp(r.vars[i].name ?: "", variant))
			continue;
		for (size_t k = 0; k < r.vars[i].nits; k++) {
			done += r.vars[i].its[k].done;
			ok += r.vars[i].its[k].ok;
		}
	}
	track_run_release(&r);
	return done < want ? "queued" : ok ? "measured" : "failed";
}

void track_counts(struct track *t, unsigned int *done, unsigned int *queued, unsigned int *failed)
{
	*done = *queued = *failed = 0;
	for (size_t i = 0; i < t->state.npoints; i++) {
		const struct track_point *p = &t->state.points[i];

		for (size_t k = 0; k < p->nslots; k++) {
			const char *s = p->slots[k].status ?: "";

			*done += !strcmp(s, "measured");
			*failed += !strcmp(s, "failed");
			*queued += !strcmp(s, "queued");
		}
	}
}

/* a run whose queue job is final but not all done failed (a build, a boot) */
static bool queue_gave_up(struct queue *q, const char *run)
{
	long long job = queue_job_of_run(q, run);
	bool final = false, all_done = false, cancelled = false;

	return job >= 0 && !queue_job_final(q, job, &final, &all_done, &cancelled) && final &&
	       !all_done;
}

/* the status of every run not yet final, from the store and the queue */
static unsigned int refresh(struct track *t, struct queue *q)
{
	unsigned int pending = 0;

	for (size_t i = 0; i < t->state.npoints; i++) {
		struct track_point *pt = &t->state.points[i];

		t->state.has_runs = true;
		pt->in_runs = true;
		for (size_t j = 0; j < t->def.njobs; j++) {
			struct track_slot *r = track_point_slot(pt, t->def.jobs[j].name);
			const char *s;

			if (!r || !r->run || strcmp(r->status ?: "", "queued"))
				continue;
			s = run_state(t, r->run, pt->label);
			if (!strcmp(s, "queued") && queue_gave_up(q, r->run))
				s = "failed";
			free(r->status);
			r->status = xstrdup(s);
			pending += !strcmp(s, "queued");
		}
	}
	return pending;
}

/* --slurm: wait for the submitted runs, a look every 15 s; the runs still pending */
static unsigned int wait_slurm(struct track *t, struct queue *q)
{
	unsigned int pending = refresh(t, q), was = 0;

	while (pending) {
		if (pending != was)
			lab_info("track %s: waiting for %u run%s on Slurm", t->def.name, pending,
				 pending == 1 ? "" : "s");
		was = pending;
		if (!track_sleep(15))
			break;
		pending = refresh(t, q);
		if (track_save(t))
			break;
	}
	return pending;
}

int track_measure(struct track *t, const struct track_run_opts *o)
{
	struct pool_opts po = { .jobs = o->jobs,
				.build_jobs = 1,
				.cache_dir = t->env->cache_dir,
				.connect_uri = t->env->connect_uri };
	struct queue *q = queue_open(t->env->results_dir);
	unsigned int pending;
	int ret = 0;

	if (!q)
		return -1;
	for (size_t i = 0; i < t->state.npoints && !ret; i++)
		for (size_t j = 0; j < t->def.njobs && !ret; j++)
			ret = ensure_run(t, q, &t->state.points[i], j, o);
	pending = ret ? 0 : refresh(t, q);
	if (!ret && pending) {
		lab_info("track %s: %u run%s to measure through the %s", t->def.name, pending,
			 pending == 1 ? "" : "s", o->slurm ? "Slurm cluster" : "queue");
		if (o->slurm) {
			pending = wait_slurm(t, q);
		} else {
			pool_run(q, t->store, &po);
			pending = refresh(t, q);
		}
		if (track_save(t))
			ret = -1;
		if (pending) {
			lab_err("track %s: %u run%s not finished (interrupted, or the queue stopped); "
				"'mmlab track run %s' goes on from here (submitted runs are not "
				"submitted again)",
				t->def.name, pending, pending == 1 ? "" : "s", t->def.name);
			ret = -1;
		}
	}
	queue_close(q);
	return ret ? -1 : track_save(t);
}
