/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fold.h - the submitting host folds what Slurm tasks on other hosts
 * wrote (task records, taskrec.h, and built kernels) into its queue:
 * the one writer of the SQLite files. "queue status" and "queue run" call
 * it; the results index folds its part itself (store_sync()). See
 * docs/queue.md, "Several hosts".
 */
#ifndef MMLAB_BATCH_FOLD_H
#define MMLAB_BATCH_FOLD_H

#include <jansson.h>

#include "batch/queue.h"
#include "store/store.h"

/*
 * Settle the build items of Slurm jobs whose build task ended (its record
 * done or failed): the kernel goes to every run waiting for it, a failed
 * build fails the boots waiting for it. The number settled, or -1.
 */
int batch_fold(struct queue *q, struct store *s);

/*
 * Add "task": {"state", "host", "attempt", "beat", "reason", "lost"} to
 * each boot item of Slurm job j (a queue_status() entry) that has a task
 * record; "lost": a running record whose heartbeat this host has not seen
 * change for stale_s of its own monotonic clock (the notes in q keep what
 * it saw).
 */
void batch_fold_tasks(struct queue *q, struct store *s, json_t *j, double stale_s);

#endif
