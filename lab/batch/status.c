// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - queue status, cancel and retry (see status.h).
 */
#include <jansson.h>

#include "batch/fold.h"
#include "batch/queue_status.h"
#include "batch/runstate.h"
#include "batch/taskrec.h"
#include "batch/slurm.h"
#include "batch/status.h"

/* the boots running now over every job, 0 if doc is not a status document */
static unsigned int running_now(const json_t *doc)
{
	struct queue_status st;
	unsigned int running = 0;

	if (queue_status_from_json(doc, &st))
		return 0;
	for (size_t i = 0; i < st.njobs; i++)
		running +=
			(unsigned int)qs_count_of(st.jobs[i].counts, st.jobs[i].ncounts, "running");
	queue_status_release(&st);
	return running;
}

json_t *batch_status(struct queue *q, struct store *s)
{
	json_t *st;
	unsigned int running;
	size_t i;

	/* what Slurm tasks on other hosts wrote, into the queue first */
	if (batch_fold(q, s) < 0)
		return NULL;
	st = queue_status(q, 0);
	if (!st)
		return NULL;
	running = running_now(st);
	if (running > 1) { /* ETA over the VMs running now */
		json_decref(st);
		st = queue_status(q, running);
		if (!st)
			return NULL;
	}
	for (i = 0; i < json_array_size(st); i++) {
		json_t *j = json_array_get(st, i);
		struct queue_status_job job;

		if (queue_status_job_from_json(j, &job))
			continue;
		if (job.has_slurm) {
			slurm_status_fill(j, s);
			batch_fold_tasks(q, s, j, TASKREC_STALE_S);
		}
		queue_status_job_release(&job);
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
