/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_summary.h - the statistics `mmlab run` prints at its end: per
 * variant, its iterations ok out of all and the mean +- standard deviation
 * of the headline metrics over its ok iterations (stats_summarize()); the
 * mean of one metric for the observer check. Printing is cmd-run.c's.
 */
#ifndef MMLAB_RUN_SUMMARY_H
#define MMLAB_RUN_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/stats.h"
#include "store/iteration_record.h"
#include "lib/util.h"

/* one variant's iterations, as read (borrowed) */
struct run_summary_in {
	const char *name;
	const struct iteration_record *its;
	size_t n;
};

struct run_summary_var {
	const char *name; /* borrowed from the input */
	size_t ok, all; /* iterations ok, stored */
	struct stats_summary *cells; /* per metric of the summary; n == 0: none */
};

struct run_summary {
	struct strlist metrics; /* the headline metrics in any ok iteration, sorted */
	struct run_summary_var *vars;
	size_t nvars;
};

/*
 * A headline metric: the fixed time and vmstat ones and the workload's
 * own ("<workload>.*").
 */
bool run_summary_metric(const char *name, const char *workload);
/* the summary of n variants of a run of workload; run_summary_release() it */
void run_summary_build(const struct run_summary_in *in, size_t n, const char *workload,
		       struct run_summary *out);
void run_summary_release(struct run_summary *s);
/* the mean of metric over the ok iterations of its[0..n); *nok of them; NaN when none */
double run_summary_mean(const struct iteration_record *its, size_t n, const char *metric,
			size_t *nok);

#endif
