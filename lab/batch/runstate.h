/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runstate.h - a queued run's status in the store (run.json "status") as
 * the queue's items move: "queued" when added, "running" once a boot
 * starts, "complete", "cancelled" or "incomplete" at the end. See
 * docs/queue.md.
 */
#ifndef MMLAB_BATCH_RUNSTATE_H
#define MMLAB_BATCH_RUNSTATE_H

#include <stdbool.h>

#include "batch/queue.h"
#include "batch/worker.h"
#include "store/store.h"

/*
 * Set run's status; "running" records this process (pid, host boot id),
 * "complete" and "cancelled" the time it finished. 0, or -1 after a
 * message.
 */
int runstate_set(struct store *s, const char *run, const char *status);

/*
 * Every iteration of boot item it is in the store (arg: the store); a
 * build item never is. A queue_stored_fn.
 */
bool runstate_item_stored(const struct queue_item *it, void *arg);

/*
 * After cancel or retry of queue job id: the run's status says what the
 * queue holds for it (cancelled, or queued again while nothing runs).
 */
void runstate_follow(struct queue *q, struct store *s, long long id);

/*
 * "mmlab queue finish": the run (an id, a prefix or "latest") is complete
 * when every boot of its plan is stored, else incomplete. BATCH_OK
 * complete, BATCH_FAILED incomplete (with a message naming where to look),
 * BATCH_BAD_INPUT no such run.
 */
enum batch_result runstate_finish(struct store *s, const char *run_arg);

#endif
