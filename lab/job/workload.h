/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - the table of guest workloads: their parameters (with types
 * and defaults, used to validate job files) and the metrics they report
 * (used by docs/metrics.md and the compare module). The guest programs live
 * in workloads/<name>.c; docs/workloads.md describes each.
 */
#ifndef MMLAB_JOB_WORKLOAD_H
#define MMLAB_JOB_WORKLOAD_H

#include <stdbool.h>

enum wl_param_type {
	WLP_UINT, /* decimal integer */
	WLP_UINT_LIST, /* integer or YAML list of integers -> "1,2,4" */
	WLP_SIZE, /* K/M/G suffix; "NN%" of guest memory when allow_pct */
	WLP_BOOL, /* true/false -> "1"/"0" */
	WLP_ENUM, /* one of choices (a |-separated string) */
};

struct wl_param {
	const char *name;
	enum wl_param_type type;
	const char *def; /* default in job-file syntax ("25%", "1") */
	bool allow_pct; /* WLP_SIZE: may be a percentage of guest memory */
	unsigned long long min, max; /* WLP_UINT / list entries / size bytes; 0,0 = unbounded */
	const char *choices; /* WLP_ENUM */
	const char *help;
};

struct wl_metric {
	const char *
		name; /* full stable name, "usemem.elapsed_s"; may end in ".T<N>" family marker "*" */
	const char *unit;
	bool higher_is_better;
	const char *help;
};

struct workload_def {
	const char *name;
	const char *summary;
	const struct wl_param *params; /* terminated by name == NULL */
	const struct wl_metric *metrics; /* terminated by name == NULL */
};

const struct workload_def *workload_find(const char *name);
const struct workload_def *const *workload_all(void); /* NULL-terminated */

#endif
