/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - execute a job into the results store (the engine behind
 * "mmlab run", and for any command that needs measured runs: the queue,
 * bisect, repro). How it is built: lab/run/run.h.
 */
#ifndef MMLAB_RUN_RUNNER_H
#define MMLAB_RUN_RUNNER_H

#include <stdbool.h>

#include "job/job.h"
#include "store/store.h"

struct run_opts {
	/* where things are: the command layer's global options */
	const char *cache_dir; /* kernels, images, the accel verdict (required) */
	const char *connect_uri; /* libvirt; NULL = $MMLAB_LIBVIRT_URI or qemu:///system */

	const char *job_path; /* a new run of this job file, */
	struct job *job; /* or of this loaded job (the runner frees it), */
	const char *resume; /* or finish this incomplete run */
	bool sequential; /* boots variant by variant, not interleaved */
	bool seeded; /* seed is given; else from the clock */
	unsigned long seed;
	const char *accel; /* "auto", "kvm", "tcg" or NULL = the job's */
	bool reprobe; /* redo the KVM probe */
	/*
	 * --until-significant: after the job's iterations, add rounds of one
	 * iteration per variant (shuffled) until every target metric's
	 * relative CI half-width is below precision in every variant, or
	 * every variant has max_iterations (precision.h, docs/compare.md).
	 */
	bool until_significant;
	unsigned int max_iterations;
	double precision; /* 0.02 = 2 % */
	const char *metrics; /* target globs; NULL = PRECISION_DEFAULT_METRICS */
	bool observer_check; /* each variant twice: with and without tracepoints */
	/*
	 * runner_create(): source variants are not built now but recorded
	 * as build requests (kernel "build_pending", boots' "build"), for
	 * the queue's build items (docs/queue.md)
	 */
	bool defer_builds;
};

/*
 * What a run, a created run or a boot came to. The values are the exit
 * statuses of lib/util.h (EXIT_RUN_FAILED, EXIT_USAGE, EXIT_INTERRUPTED),
 * because a queue worker is a process that exits with its boot's outcome
 * (batch/worker.c); a command maps an outcome to its exit status by name
 * (builtin/cmd-run.c).
 */
enum run_outcome {
	RUN_OK = 0, /* every iteration ok */
	RUN_FAILED = 1, /* a run that failed, or an iteration not ok */
	RUN_BAD_INPUT = 2, /* the job, a kernel, the run to resume, the guest's set-up */
	RUN_INTERRUPTED = 3, /* runner_boot(): SIGINT/SIGTERM, nothing stored */
};

struct run_result {
	char *run_id; /* NULL when no run was created */
	unsigned int failed_iterations; /* stored, but not ok */
	bool interrupted;
};

/*
 * RUN_OK, RUN_FAILED (also a run that was interrupted: res->interrupted
 * says so), RUN_BAD_INPUT. SIGINT/SIGTERM during the run destroy the domain
 * and leave the run "incomplete".
 */
enum run_outcome runner_run(struct store *s, const struct run_opts *o, struct run_result *res);
void run_result_release(struct run_result *res);

/*
 * The queue's entry points (lab/batch/queue.c, docs/queue.md).
 *
 * runner_create() makes a run of o->job_path (or o->job) without booting
 * anything: kernels resolved, KVM or TCG chosen, host facts and the boot
 * plan recorded in run.json ("boots": [{"variant","first","count"}] in the
 * run's order, with "build": the request when o->defer_builds left the
 * variant's kernel to a build item), status "queued". *run_id is malloc'd.
 * RUN_OK, RUN_FAILED or RUN_BAD_INPUT, as runner_run().
 */
enum run_outcome runner_create(struct store *s, const struct run_opts *o, char **run_id);

struct boot_opts {
	const char *cache_dir; /* as in struct run_opts (required) */
	const char *connect_uri;
	const char *cpuset; /* host CPUs of every vCPU, or NULL */
	const int *vcpu_pins; /* host CPU per vCPU, or NULL */
	const int *memnodes; /* host node per guest node, or NULL */
	json_t *placement; /* stored in each iteration's "boot" */
	unsigned int attempt; /* 1 for the first try of this boot, 2 for
					   the next...; names its domain (vm.h) */
};

/*
 * Run one boot of a created run: the boot of variant whose first iteration
 * is first, placed as bo says, set up as runner_run() sets up its boots
 * (the workload's module, the disk image); each of its iterations is
 * stored as in runner_run(). A boot already stored is not run again. The
 * domains of earlier attempts of the boot (a killed runner's) are
 * destroyed first. Does not change run.json. Returns RUN_OK, RUN_FAILED
 * (an iteration not ok), RUN_BAD_INPUT, RUN_INTERRUPTED (SIGINT/SIGTERM;
 * nothing stored).
 */
enum run_outcome runner_boot(struct store *s, const char *run_id, const char *variant,
			     unsigned int first, const struct boot_opts *bo);

#endif
