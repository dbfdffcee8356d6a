/* SPDX-License-Identifier: GPL-2.0 */
/*
 * params.h - the parameters of a bisection as a struct: what "mmlab bisect
 * start" decided (the tree, the endpoints, the mode and its thresholds, the
 * job that measures a commit). They are JSON only where they are stored:
 * in bisect.db (bisect_store.c), in the replayable log's "# mmlab-bisect
 * params" line (result.c) and in "mmlab bisect status --json"; every other
 * reader uses the fields, so a mistyped name does not compile.
 *
 * The JSON object, as stored since the first version of "mmlab bisect":
 *
 *   {"id", "tree", "job_file", "job_dir", "job_text", "variant_name",
 *    "variant", "good", "bad", "metric" | null, "signature" | null,
 *    "direction": "lower" | "higher" | null, "min_change", "alpha",
 *    "iterations", "max_iterations", "k", "iterations_per_boot",
 *    "reverse", "paths": [..], "range_commits", "good_ref", "bad_ref",
 *    "kernels": [{...}, ...] (a list bisection; "tree" is then null)}
 */
#ifndef MMLAB_BISECT_PARAMS_H
#define MMLAB_BISECT_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/util.h"

/* the bounds bisect_params_from_json() checks */
#define BISECT_MAX_ITERATIONS 1000 /* --iterations, --n, --k */
#define BISECT_MAX_ROUNDS 3000 /* --max-iterations (3 N by default) */
#define BISECT_LIST_MAX 1000 /* --kernels: entries in the list */

struct bisect_params {
	char *id; /* 6 hex digits; runs are named bisect-<id>-<seq>-<round> */
	char *tree; /* the git tree (absolute path) */
	char *job_file; /* the job as given to --job (absolute path) */
	char *job_dir; /* its directory: relative paths in the job resolve there */
	char *job_text; /* the job file's text, as read at start */
	char *variant_name; /* the job's variant that gives the settings */
	unsigned int variant; /* its index in the job's variants */
	char *good, *bad; /* the endpoints, full commit ids */
	char *good_ref, *bad_ref; /* as the user named them; may be NULL */
	char *metric; /* metric mode: the expression, else NULL */
	char *signature; /* pass/fail mode: the signature, else NULL */
	int better; /* --direction: -1 lower, +1 higher, 0 either */
	double min_change; /* fraction, 0.05 */
	double alpha; /* significance level, 0.05 */
	unsigned int iterations; /* per endpoint and per first round of a step */
	unsigned int max_iterations; /* a step may grow to this many */
	unsigned int k; /* pass/fail: bad when met in at least k runs */
	unsigned int iterations_per_boot; /* the job's */
	bool reverse; /* looking for the fix: terms broken/fixed */
	struct strlist paths; /* git bisect start -- PATHS */
	unsigned long long range_commits; /* commits in good..bad (paths applied) */
	/*
	 * A bisection over a list of kernels (--kernels FILE; bisect_list.c):
	 * the entries, oldest first, each what the step's variant sets (a
	 * job/rewrite.h "set": {"kernel", "cmdline", "sysctl", "thp"}); the
	 * "commits" are then k1..kN, good and bad the first and the last.
	 * NULL: a commit bisection in tree.
	 */
	json_t *kernels;
};

/* free the strings; p is zeroed */
void bisect_params_release(struct bisect_params *p);

/* the stored form above; never NULL; a new reference */
json_t *bisect_params_to_json(const struct bisect_params *p);

/*
 * Fill p from the stored form. 0, or -1 with the first problem in err
 * ("no 'tree'", "'iterations' is not an integer from 1 to 1000") and p
 * released; nothing is printed, the caller says where the JSON came from.
 */
int bisect_params_from_json(json_t *j, struct bisect_params *p, char *err, size_t len);

/* "lower", "higher" or NULL (either) for p->better */
const char *bisect_direction_name(int better);

#endif
