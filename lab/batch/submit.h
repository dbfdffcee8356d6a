/* SPDX-License-Identifier: GPL-2.0 */
/*
 * submit.h - "mmlab submit --slurm": create each run in the (shared)
 * results store, queue its boots as Slurm's work rather than "queue run"'s,
 * and submit them with sbatch: a build job per kernel the run builds from
 * source ("mmlab queue build RUN --variant V"), one array job per run
 * depending on them, a task per boot ("mmlab queue exec RUN --boot
 * $SLURM_ARRAY_TASK_ID"), then a finishing job depending on it ("mmlab
 * queue finish RUN"). The scripts go to RESULTS/<run>/slurm. See
 * docs/queue.md.
 */
#ifndef MMLAB_BATCH_SUBMIT_H
#define MMLAB_BATCH_SUBMIT_H

#include <stddef.h>

#include <jansson.h>

#include "batch/queue.h"
#include "batch/worker.h"
#include "store/store.h"
#include "lib/util.h"

struct submit_opts {
	const char *mmlab; /* this binary, as the nodes run it */
	const char *cache_dir; /* MMLAB_CACHE of the nodes (shared) */
	const char *connect_uri; /* libvirt here, for creating the runs */
	const char *partition; /* or NULL: Slurm's default */
	const char *accel; /* "auto", "kvm", "tcg" or NULL: the job's */
	unsigned int minutes; /* --time of a task; 0: from the job's timeouts */
	unsigned int build_cpus; /* of a build job; 0: sinfo, when first needed */
	unsigned int build_minutes; /* --time of a build job */
	int priority; /* recorded in the queue */
};

/* a run submitted whole: what "mmlab submit" prints */
struct submitted {
	long long id; /* the queue's job */
	char *run, *file;
	size_t boots;
	struct strlist build_variants, build_ids; /* a build job per kernel: its variant, its id */
	char *array_job, *finish_job;
};
struct submitted_list {
	struct submitted *v;
	size_t n;
};
void submitted_list_release(struct submitted_list *l);
/*
 * l as "mmlab submit --json" prints it: [{"id","run","file","boots",
 * "build_jobs":{variant: id},"array_job","finish_job"}]; a new reference
 */
json_t *submitted_list_json(const struct submitted_list *l);

/*
 * Submit each job file of paths, one after the other; a job that cannot be
 * submitted whole is cancelled (queue and Slurm). Appends to out what was
 * submitted. BATCH_OK all submitted, BATCH_BAD_INPUT a bad job, else
 * BATCH_FAILED.
 */
enum batch_result submit_jobs(struct queue *q, struct store *s, char *const paths[], size_t n,
			      struct submit_opts *o, struct submitted_list *out);

/*
 * One job file, as submit_jobs() does, appending what was submitted to
 * out; loaded: the job of path
 * already loaded (with its own directory for relative paths; the runner
 * frees it), or NULL to load path.
 */
struct job;
enum batch_result submit_job(struct queue *q, struct store *s, const char *path, struct job *loaded,
			     struct submit_opts *o, struct submitted_list *out);

#endif
