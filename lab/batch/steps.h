/* SPDX-License-Identifier: GPL-2.0 */
/*
 * steps.h - what the jobs "mmlab submit --slurm" submits run on their
 * Slurm node, each in its own process: one boot of a run ("queue exec",
 * an array task) and the kernel build of a run's variant ("queue build", a
 * build job). The finishing job's step is runstate_finish(). See
 * docs/queue.md.
 *
 * Both may run on another host than the store's: they open no SQLite
 * file. s is opened with store_open_files(); each writes its task record
 * RESULTS/<run>/tasks/boot-<K>.json or build-<variant>.json (taskrec.h),
 * heartbeats it every 2 s from the parent of a forked child that does the
 * work, and the submitting host folds the records in (fold.h).
 */
#ifndef MMLAB_BATCH_STEPS_H
#define MMLAB_BATCH_STEPS_H

#include "batch/worker.h"
#include "store/store.h"

/*
 * Boot number boot (a decimal string: the array task id) of run's plan,
 * in this process, placed where Slurm put it (recorded: host, Slurm job
 * and task); a task Slurm requeued is the next attempt. BATCH_OK,
 * BATCH_FAILED an iteration not ok or the boot interrupted,
 * BATCH_BAD_INPUT no such run or boot. cache_dir and connect_uri: for the
 * runner (runner_boot()).
 */
enum batch_result step_exec(struct store *s, const char *run_arg, const char *boot,
			    const char *cache_dir, const char *connect_uri);

/*
 * The kernel of run's variant, built into the kernel cache cache_dir (a
 * kernel another job built is a cache hit) in a child, at the commit the
 * job's ref resolved when it was submitted. The outcome goes to
 * <run>/kernels/<variant>.json of every variant of the run that needs the
 * same request (store_kernel_file()), where the run's boots find it; the
 * queue's build item is settled by the submitting host (fold.h). A
 * variant that has its kernel has nothing to build. BATCH_OK built (or
 * nothing to build), BATCH_FAILED failed or interrupted, BATCH_BAD_INPUT
 * no such run or variant.
 */
enum batch_result step_build(struct store *s, const char *run_arg, const char *variant,
			     const char *cache_dir);

#endif
