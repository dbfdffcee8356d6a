/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue_cli.h - what cmd-queue.c and cmd-submit.c share.
 */
#ifndef MMLAB_QUEUE_CLI_H
#define MMLAB_QUEUE_CLI_H

#include <jansson.h>

#include "batch/queue.h"
#include "store/results.h"

/*
 * Create a run of the job file at path (runner_create()) and queue its
 * boots; slurm NULL = local work for "queue run". Exit status (0, 1, 2);
 * on 0 *run_out (malloc'd), *job_out and, if asked, *boots_out (a new
 * reference) are set.
 */
int queue_add_job(struct queue *q, struct store *s, const char *path, int priority,
		  const char *accel, const char *slurm, char **run_out, long long *job_out,
		  json_t **boots_out);

/*
 * For a job submitted to Slurm (j["slurm"] = {"array","finish"}): ask
 * squeue (and sacct, where accounting is on) for the tasks' states, put
 * them in j["slurm"]["states"], and derive the items' states from the
 * store (done when stored) and Slurm (running, queued, failed).
 */
void slurm_status_fill(json_t *j, struct store *s);

/* sh single-quoted form of s; NULL (no message) if s holds a newline */
char *sh_quote(const char *s);

#endif
