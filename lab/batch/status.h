/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h - the queue as its user sees and steers it: "queue status"
 * (with Slurm's view of submitted jobs), "queue cancel" and "queue retry"
 * (and the run status that follows). See docs/queue.md.
 */
#ifndef MMLAB_BATCH_STATUS_H
#define MMLAB_BATCH_STATUS_H

#include <jansson.h>

#include "batch/queue.h"
#include "store/store.h"

/*
 * queue_status() of every job, the ETA spread over the VMs running now,
 * and for jobs submitted to Slurm their tasks' states
 * (slurm_status_fill()). A new reference, NULL after a message.
 */
json_t *batch_status(struct queue *q, struct store *s);

/*
 * Cancel the queued items of queue job id (running ones finish), or queue
 * its failed and cancelled items again; the run's status follows. The
 * number of items moved, or -1 after a message (no such job).
 */
int batch_cancel(struct queue *q, struct store *s, long long id);
int batch_retry(struct queue *q, struct store *s, long long id);

#endif
