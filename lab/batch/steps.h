/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steps.h - what the jobs "mmlab submit --slurm" submits run on their
 * Slurm node, each in its own process: one boot of a run ("queue exec",
 * an array task) and the kernel build of a run's variant ("queue build", a
 * build job). The finishing job's step is runstate_finish(). See
 * docs/queue.md.
 */
#ifndef MMLAB_BATCH_STEPS_H
#define MMLAB_BATCH_STEPS_H

#include "batch/queue.h"
#include "store/results.h"

/*
 * Boot number boot (a decimal string: the array task id) of run's plan,
 * in this process, placed where Slurm put it (recorded: host, Slurm job
 * and task); a task Slurm requeued is the next attempt. Exit status: 0
 * ok, 1 an iteration not ok or the boot interrupted, 2 no such run or
 * boot. cache_dir and connect_uri: for the runner (runner_boot()).
 */
int step_exec(struct queue *q, struct store *s, const char *run_arg, const char *boot,
	      const char *cache_dir, const char *connect_uri);

/*
 * The kernel of run's variant, built into the kernel cache cache_dir: the
 * variant's build item is claimed as a queue run worker would (this
 * process owns it, with heartbeats), built in a child, and settled, so
 * every run waiting for that kernel gets it. An item another process is
 * building is waited for; a done one is only handed on. Exit status: 0
 * built (or nothing to build), 1 failed or interrupted, 2 no such run or
 * variant.
 */
int step_build(struct queue *q, struct store *s, const char *run_arg, const char *variant,
	       const char *cache_dir);

#endif
