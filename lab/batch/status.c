// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - queue status, cancel and retry (see status.h).
 */
#include <jansson.h>

#include "batch/fold.h"
#include "batch/runstate.h"
#include "batch/taskrec.h"
#include "batch/slurm.h"
#include "batch/status.h"

json_t *batch_status(struct queue *q, struct store *s)
{
	json_t *st, *j;
	unsigned int running = 0;
	size_t i;

	/* what Slurm tasks on other hosts wrote, into the queue first */
	if (batch_fold(q, s) < 0)
		return NULL;
	st = queue_status(q, 0);
	if (!st)
		return NULL;
	json_array_foreach(st, i, j)
		running += (unsigned int)json_integer_value(
			json_object_get(json_object_get(j, "counts"), "running"));
	if (running > 1) { /* ETA over the VMs running now */
		json_decref(st);
		st = queue_status(q, running);
	}
	json_array_foreach(st, i, j)
		if (json_is_object(json_object_get(j, "slurm"))) {
			slurm_status_fill(j, s);
			batch_fold_tasks(q, s, j, TASKREC_STALE_S);
		}
	return st;
}

int batch_cancel(struct queue *q, struct store *s, long long id)
{
	int n = queue_cancel(q, id);

	if (n > 0)
		runstate_follow(q, s, id);
	return n;
}

int batch_retry(struct queue *q, struct store *s, long long id)
{
	int n = queue_retry(q, id);

	if (n > 0)
		runstate_follow(q, s, id);
	return n;
}
