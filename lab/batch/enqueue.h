/* SPDX-License-Identifier: GPL-2.0 */
/*
 * enqueue.h - adding a job to the queue: a run of the job file is created
 * in the store (runner_create(), nothing booted or built) and its boots
 * become queue items. "queue add" and "submit --slurm" both go through
 * here. See docs/queue.md.
 */
#ifndef MMLAB_BATCH_ENQUEUE_H
#define MMLAB_BATCH_ENQUEUE_H

#include <jansson.h>

#include "batch/queue.h"
#include "batch/worker.h"
#include "run/runner.h"
#include "store/store.h"

/*
 * Create a run of the job file at path and queue its boots; kernels built
 * from source become build items. ro: the runner's options (accel,
 * cache_dir, connect_uri; ro->job: the job of path already loaded, which
 * the runner frees; job_path and defer_builds are set here); slurm: NULL = local work for "queue run", else the Slurm
 * job ids as JSON text. BATCH_OK, BATCH_FAILED or BATCH_BAD_INPUT (a bad
 * job file); on BATCH_OK *run_out (malloc'd), *job_out and, if asked,
 * *rec_out (the run's record, its boot plan; run_record_release() it) are
 * set.
 */
struct run_record;
enum batch_result queue_add_job(struct queue *q, struct store *s, const char *path, int priority,
				const struct run_opts *ro, const char *slurm, char **run_out,
				long long *job_out, struct run_record *rec_out);

/*
 * "base, patched": the variants of boots (run.json "boots") whose kernels
 * are build requests, malloc'd; NULL when none is.
 */
char *queue_build_variants(const struct run_record *rec);

#endif
