/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - execute a job into the results store (the engine behind
 * "mmlab run", and for any command that needs measured runs).
 */
#ifndef MMLAB_RUNNER_H
#define MMLAB_RUNNER_H

#include <stdbool.h>

#include "job.h"
#include "results.h"

struct run_opts {
	const char *job_path;	/* a new run of this job file, */
	struct job *job;	/* or of this loaded job (the runner frees it), */
	const char *resume;	/* or finish this incomplete run */
	bool sequential;	/* boots variant by variant, not interleaved */
	bool seeded;		/* seed is given; else from the clock */
	unsigned long seed;
	const char *accel;	/* "auto", "kvm", "tcg" or NULL = the job's */
	bool reprobe;		/* redo the KVM probe */
	bool observer_check;	/* each variant twice: with and without tracepoints */
};

struct run_result {
	char *run_id;		/* NULL when no run was created */
	unsigned int failed_iterations;	/* stored, but not ok */
	bool interrupted;
};

/*
 * Returns the exit status (cmd.h): 0 every iteration ok, 1 a run that
 * failed or was interrupted, 2 bad input (the job, a kernel, the run to
 * resume). SIGINT/SIGTERM during the run destroy the domain and leave the
 * run "incomplete".
 */
int runner_run(struct store *s, const struct run_opts *o, struct run_result *res);
void run_result_release(struct run_result *res);

#endif
