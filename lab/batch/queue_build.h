/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue_build.h - the queue's kernel build items: build one, and hand its
 * outcome to every run whose variants wait for it. "queue run" does this
 * in its build workers, a Slurm build step ("queue build") in its own
 * process; both go through these. See docs/queue.md.
 */
#ifndef MMLAB_QUEUE_BUILD_H
#define MMLAB_QUEUE_BUILD_H

#include <stdbool.h>

#include <jansson.h>

#include "job/job.h"
#include "batch/queue.h"
#include "store/store.h"

/* the job of a run, loaded from its copy in the store; NULL if unreadable */
struct job *load_run_job(struct store *s, const char *run);

/*
 * Before a boot of run's variant: the kernel its build item made goes into
 * run.json (the build may have been done before this job was added).
 * 0 ready (or not a built kernel), -1 with *why when it was not built.
 */
int build_kernel_ready(struct queue *q, struct store *s, const char *run, const char *variant,
		       char **why);

/*
 * Build the kernel of run's variant (request) through the kernel cache in
 * cache_dir, at the commit its request resolved when it was queued,
 * touching no queue: what a Slurm build step on another host runs. The
 * outcome (kernel_info_json(), or {"build_failed": true}; a new
 * reference), NULL when the run cannot be read; *rc 0 built, -1 not.
 */
json_t *build_variant_kernel(struct store *s, const char *run, const char *variant,
			     const char *request, const char *cache_dir, int *rc);

/*
 * Build the kernel of build item it (claimed, running) through the kernel
 * cache in cache_dir, at the commit its request resolved when it was
 * queued, and store the outcome (kernel_info_json()) in the queue. 0
 * built, -1 not.
 */
int build_item_build(struct queue *q, struct store *s, const struct queue_item *it,
		     const char *cache_dir);

/*
 * The build item it ended: its outcome becomes the kernel of every variant
 * waiting for it (run.json) before the item is done; a failed build fails
 * the queued boots that wait for it, naming the build log and log (the
 * worker's). Without an outcome and with interrupted, the item is queued
 * again. Returns 1 done, 0 failed (*err: why; *users, if asked: who
 * waited, for the caller to finish their jobs; queue_build_users_free()
 * it), -1 requeued.
 */
int build_item_settle(struct queue *q, struct store *s, const struct queue_item *it,
		      const char *log, bool interrupted, char **err,
		      struct queue_build_users *users);

#endif
