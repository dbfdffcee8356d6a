/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect.h - the decisions of "mmlab bisect" (docs/bisect.md): whether two
 * endpoints differ enough to bisect, whether a tested commit is like the
 * good or the bad endpoint (metric mode: Welch tests and the position of
 * its mean between the endpoints; pass/fail mode: how often the signature
 * occurred), how sure the result is, and the YAML of the job that measures
 * one commit. Pure functions: the git and VM side is the engine
 * (session.h), the state is bisect_store.c.
 */
#ifndef MMLAB_BISECT_H
#define MMLAB_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "analysis/stats.h"

struct bisect_rule {
	double alpha; /* significance level of every test, 0.05 */
	double min_change; /* endpoints must differ by this fraction, 0.05 */
	int better; /* -1 lower is better, +1 higher is better, 0 either */
	double near; /* a step is "like" an endpoint within this fraction of the gap, 1/3 */
};

enum bisect_call {
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_UNSURE, /* more iterations, or skip */
};
const char *bisect_call_name(enum bisect_call c); /* "good", "bad", "unsure" */

/*
 * Metric mode, before the search: do the bad endpoint's values differ from
 * the good one's significantly (Welch p < alpha), by at least min_change
 * relative to the good mean (any non-zero change when the good mean is 0),
 * and in the worse direction (when better is set)? why gets the numbers
 * either way; *t the test.
 */
bool bisect_endpoints_ok(const double *good, size_t ng, const double *bad, size_t nb,
			 const struct bisect_rule *r, struct stats_test *t, char *why, size_t len);

/*
 * Metric mode, one step: pos = (mean_step - mean_good) / (mean_bad -
 * mean_good). GOOD when pos <= near and the step differs from the bad
 * endpoint (Welch p < alpha); BAD when pos >= 1 - near and it differs from
 * the good endpoint; else UNSURE. *p_wrong gets the p-value of the test
 * behind the call (the chance that a sample like the other endpoint would
 * look this different), NaN when UNSURE; *pos the position.
 */
enum bisect_call bisect_call_metric(const double *good, size_t ng, const double *bad, size_t nb,
				    const double *step, size_t ns, const struct bisect_rule *r,
				    double *pos, double *p_wrong, char *why, size_t len);

/*
 * Pass/fail mode: the signature was met in met of n runs, unknown in
 * unknown (runs that ended before it could be seen). BAD when met >= k,
 * GOOD when met == 0 and unknown == 0, else UNSURE.
 */
enum bisect_call bisect_call_signature(unsigned int met, unsigned int unknown, unsigned int n,
				       unsigned int k, char *why, size_t len);

/*
 * Pass/fail mode: the chance that n runs of a bad commit all miss a
 * signature that occurs with probability rate per run: (1 - rate)^n.
 */
double bisect_miss_prob(double rate, unsigned int n);

/*
 * The job measuring one commit, as YAML: the job file's text with name,
 * iterations and iterations_per_boot replaced and variants replaced by one
 * variant - variant number `variant` of the file (its sysctl, thp,
 * cmdline, revert/cherry_pick/apply kept; kernel dropped) named vname with
 * ref: commit; kernels.tree replaced by tree when it is not NULL. NULL and
 * a message in err when the text is not a job-shaped YAML mapping.
 */
char *bisect_step_yaml(const char *text, size_t len, size_t variant, const char *name,
		       const char *vname, const char *commit, const char *tree,
		       unsigned int iterations, unsigned int per_boot, char *err, size_t errlen);

/* the same with what the variant sets given (job/rewrite.h): a list entry */
char *bisect_step_yaml_set(const char *text, size_t len, size_t variant, const char *name,
			   const char *vname, const json_t *set, const char *tree,
			   unsigned int iterations, unsigned int per_boot, char *err,
			   size_t errlen);

/* a sample's size, mean (when n) and 95 % CI half-width (NaN under 2 values) */
struct bisect_sample {
	size_t n;
	double mean, ci95;
};
void bisect_sample(const double *x, size_t n, struct bisect_sample *out);

#endif
