/* SPDX-License-Identifier: GPL-2.0 */
/*
 * precision.h - the stopping rule of `mmlab run --until-significant`: is
 * every target metric of every variant measured precisely enough yet?
 * docs/compare.md ("Adding iterations until precise") is the reference.
 */
#ifndef MMLAB_PRECISION_H
#define MMLAB_PRECISION_H

#include <jansson.h>

/* the targets when --metrics is not given */
#define PRECISION_DEFAULT_METRICS "time.elapsed_s,time.system_s"

struct precision_opts {
	const char *globs; /* comma-separated fnmatch patterns; NULL = default */
	double precision; /* relative CI half-width to reach: 0.02 = 2 % */
	double conf; /* confidence of the interval, 0.95 */
};

/*
 * Look at the ok iterations of every variant of run (the shape of
 * store_load_run()): for each metric matching the globs and each variant,
 * the relative half-width of the conf interval of the mean
 * (stats_ci_halfwidth_rel(); 0 when every sample is the same value).
 * Returns 1 when every one is below precision, 0 when some are not (or a
 * variant lacks a target metric or has fewer than 2 samples), -1 when no
 * target metric is in the run at all. *detail (when detail is not NULL)
 * gets a new object {"metrics": [{"metric", "variant", "n", "mean",
 * "halfwidth_rel"}], "worst": <the entry with the largest half-width>}.
 */
int precision_check(const json_t *run, const struct precision_opts *o, json_t **detail);

#endif
