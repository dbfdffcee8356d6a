/* SPDX-License-Identifier: GPL-2.0 */
/*
 * precision.h - the stopping rule of `mmlab run --until-significant`: is
 * every target metric of every variant measured precisely enough yet?
 * docs/compare.md ("Adding iterations until precise") is the reference.
 */
#ifndef MMLAB_PRECISION_H
#define MMLAB_PRECISION_H

#include <jansson.h>

struct iteration_record;

/* the targets when --metrics is not given */
#define PRECISION_DEFAULT_METRICS "time.elapsed_s,time.system_s"

struct precision_opts {
	const char *globs; /* comma-separated fnmatch patterns; NULL = default */
	double precision; /* relative CI half-width to reach: 0.02 = 2 % */
	double conf; /* confidence of the interval, 0.95 */
};

/* one target metric in one variant */
struct precision_entry {
	char *metric;
	char *variant; /* "?" for a variant without a name */
	size_t n; /* its ok iterations with the metric */
	double mean; /* NaN without a sample */
	double halfwidth_rel; /* NaN (infinite) when it has no interval: n < 2 */
};

struct precision_result {
	struct precision_entry *e; /* per metric (sorted), then per variant */
	size_t n;
	size_t worst; /* the entry with the largest half-width; n when there is none */
};

/* a variant of the run: its name and its stored iterations (borrowed) */
struct precision_var {
	const char *name;
	const struct iteration_record *its;
	size_t n;
};

/*
 * Look at the ok iterations of the nv variants (store_variant_iterations()
 * reads them): for each metric matching the globs and each variant,
 * the relative half-width of the conf interval of the mean
 * (stats_ci_halfwidth_rel(); 0 when every sample is the same value).
 * Returns 1 when every one is below precision, 0 when some are not (or a
 * variant lacks a target metric or has fewer than 2 samples), -1 when no
 * target metric is in the run at all. res (when not NULL) gets every
 * entry; precision_result_release() it.
 */
int precision_check(const struct precision_var *vars, size_t nv, const struct precision_opts *o,
		    struct precision_result *res);
void precision_result_release(struct precision_result *res);

/*
 * What run.json records of it (until_significant, docs/compare.md):
 * {"metric", "variant", "n", "mean", "halfwidth_rel"} with null for a
 * number that is not finite (new reference); all entries as an array
 * (new reference). precision_json.c.
 */
json_t *precision_entry_json(const struct precision_entry *e);
/* a new reference */
json_t *precision_result_json(const struct precision_result *res);

#endif
