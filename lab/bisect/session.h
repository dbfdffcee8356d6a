/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - the bisect engine: what "mmlab bisect" (lab/builtin/
 * cmd-bisect.c) calls. One bisection per results directory, in
 * RESULTS/bisect/ (docs/bisect.md, "State"): bisect.db (bisect_store.h),
 * wt/ (a lab-owned --no-checkout worktree of the tree, where git keeps its
 * bisect state), jobs/ (the YAML of each measured job), bisect.log (the
 * replayable log) and lock (held by bisect_run()).
 *
 * Every function prints its own error (lib/util.h's convention) and says
 * what it did on stderr (lab_info); what the command prints on stdout is
 * handed back. Functions return 0 or -1 unless said otherwise; where the
 * command's exit status (docs/bisect.md, "Exit status") depends on why,
 * an enum bisect_failure says it, and lab/builtin/cmd-bisect.c maps it.
 *
 * The engine files: session.c (the state directory, its lock, the
 * worktree and git; start, reset, status, log), start.c (the parameters
 * from the options and the job), measure.c (measuring a commit and the
 * verdict loop of 'run'), result.c (the result, the log and replay),
 * print.c (the result and the status for a terminal).
 */
#ifndef MMLAB_BISECT_SESSION_H
#define MMLAB_BISECT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "bisect/bisect_store.h"
#include "bisect/params.h"
#include "bisect/result_json.h"

/* why an engine call returned -1 */
enum bisect_failure {
	BISECT_FAIL_USAGE, /* no bisection here, its lock held, a log that does not read */
	BISECT_FAIL_RUN, /* refused, an endpoint failed, only skips left, a write failed */
	BISECT_FAIL_INTERRUPTED, /* SIGINT/SIGTERM: 'run' goes on from where it stopped */
};

/* one round of measuring a commit (a run of n iterations) */
struct bisect_round {
	long long seq; /* the step's row in bisect.db */
	unsigned int round; /* 0, 1, ...: the step's runs so far */
	const char *commit;
	unsigned int n; /* iterations */
};

/*
 * Measure a round into data (a step's data, docs in measure.c): 0, 1
 * interrupted, -1 failed after a message. The engine's own builds and
 * boots the commit through the runner; unit tests pass a fake.
 */
typedef int (*bisect_measure_fn)(void *ctx, const struct bisect_params *p,
				 const struct bisect_round *r, json_t *data);

/* what the engine needs from the command line's global options */
struct bisect_env {
	const char *results_dir; /* the results store; the bisection is in its bisect/ */
	const char *state_dir; /* or here (a track's bisections); NULL: RESULTS/bisect */
	const char *cache_dir; /* kernel cache and images: for the runner */
	const char *connect_uri; /* libvirt URI (NULL: the default): for the runner */
	bisect_measure_fn measure; /* NULL: build, boot and run (runner.h) */
	void *measure_ctx;
};

/* "mmlab bisect start": the options as given; 0 for a number = its default */
struct bisect_start_args {
	const char *job; /* --job FILE */
	const char *good, *bad; /* --good, --bad REF */
	const char *kernels; /* --kernels FILE: a list bisection (no good, bad, tree, paths) */
	const char *metric; /* --metric EXPR, or */
	const char *signature; /* --signature SIG */
	int better; /* --direction: -1 lower, +1 higher, 0 either */
	double min_change, alpha; /* --min-change, --alpha */
	unsigned int k, n; /* --k (default 1), --n (default 3) */
	unsigned int iterations; /* --iterations (default: the job's, or --n) */
	unsigned int max_iterations; /* --max-iterations (default 3 N, N with --signature) */
	bool reverse; /* --reverse */
	const struct strlist *paths; /* --paths, or NULL */
	const char *tree; /* --tree, or NULL: the job's kernels.tree */
	const char *variant; /* --variant, or NULL: the job's first */
	const char *job_dir; /* relative paths of the job against this; NULL: its own */
};

/*
 * Check the job and the endpoints, make the worktree and the state, let git
 * pick the first commit. 0 with the parameters in *p and git's
 * "Bisecting: ..." line in *progress (malloc'd), or -1 after a message.
 */
int bisect_start(const struct bisect_env *env, const struct bisect_start_args *a,
		 struct bisect_params *p, char **progress);

/*
 * Measure the endpoints, refuse when they do not differ as asked, then
 * test the commits git picks until it names the first bad one. Resumes
 * where an earlier run stopped. *result (NULL unless git finished, also
 * when it had before) is the result (docs/bisect.md, "Result"). 0 when it
 * names a first bad commit, else -1 with *why.
 */
int bisect_run(const struct bisect_env *env, json_t **result, enum bisect_failure *why);

/* "mmlab bisect status" */
struct bisect_report {
	struct bisect_state state;
	json_t *steps; /* bstore_steps(): for --json */
	struct bstore_steps rows; /* the same, typed: for the text */
	bool has_result; /* asked for: */
	struct bisect_result result; /* the result so far (its rows) */
};
/* 0, or -1 after a message when there is no bisection */
int bisect_status(const struct bisect_env *env, bool with_result, struct bisect_report *r);
void bisect_report_release(struct bisect_report *r);
/* state, with "steps": what 'status --json' prints; a new reference */
json_t *bisect_report_json(const struct bisect_report *r);

/* the replayable log's text (malloc'd, *len bytes), NULL after a message */
char *bisect_log(const struct bisect_env *env, size_t *len);

/* end the bisection; *kept (malloc'd) is the directory its state moved to; 0 or -1, *why */
int bisect_reset(const struct bisect_env *env, char **kept, enum bisect_failure *why);

/*
 * Start a bisection from a log 'mmlab bisect log' printed: its parameters
 * and measured steps, and git's verdicts replayed. *result as for
 * bisect_run(): NULL when git has not finished ('run' goes on). 0, or -1
 * with *why (USAGE: the log or the new state; RUN: git finished without a
 * first bad commit).
 */
int bisect_replay(const struct bisect_env *env, const char *file, json_t **result,
		  enum bisect_failure *why);

/* the result (bisect_run(), bisect_replay(): bisect_result_from_json()) and the status for a terminal */
void bisect_print_result(FILE *f, const struct bisect_result *r);
void bisect_print_status(FILE *f, const struct bisect_report *r);

/* "Bisecting: 3 revisions left to test after this (roughly 2 steps)" of git's output */
char *bisect_progress_line(const char *out);

#endif
