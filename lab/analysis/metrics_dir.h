/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics_dir.h - which way is better for a metric, and how compare shows
 * it (a full statistics block, an Ops row, a Duration row). The rules are
 * documented in docs/compare.md ("Direction") and follow docs/metrics.md.
 */
#ifndef MMLAB_METRICS_DIR_H
#define MMLAB_METRICS_DIR_H

#include <stddef.h>

enum metric_dir {
	DIR_NEUTRAL, /* neither: a change is shown and tested, not judged */
	DIR_LOWER, /* lower is better (times, stalls, failures) */
	DIR_HIGHER, /* higher is better (throughput, THP successes) */
};

enum metric_kind {
	KIND_MAIN, /* Amean/Hmean, Stddev, CoeffVar, Min, Max, BAmean-95 */
	KIND_OPS, /* one "Ops" row: mean of per-iteration counter deltas */
	KIND_DURATION, /* one "Duration" row (time.user_s/system_s/elapsed_s) */
};

/* the groups of the evidence tables, in the order they are shown */
enum metric_group {
	GROUP_WORKLOAD, /* the workload's own metrics, user formulas */
	GROUP_DURATION, /* time.user_s, time.system_s, time.elapsed_s */
	GROUP_OPS, /* vmstat counters, built-in derived, rate.* */
	GROUP_NUMA, /* node<N>.*, numastat.*, vmstat.numa_*, tiering */
	GROUP_COLLECTORS, /* kthread.*, extfrag.*, dmesg.*, trace.* */
	GROUP_COUNT
};

enum metric_dir metric_direction(const char *name);
enum metric_kind metric_kind(const char *name);
/*
 * The group of a metric shown as kind, by name: rate.* rows are Ops,
 * kthread/extfrag/dmesg/trace collectors, other KIND_MAIN metrics the
 * workload's. (compare.c puts user formulas in the workload group.)
 */
enum metric_group metric_group(const char *name, enum metric_kind kind);
const char *metric_group_name(enum metric_group g); /* "workload", ... */
const char *metric_group_title(enum metric_group g); /* "Workload metrics", ... */

/* the i-th counter rule (pattern on the counter's own name), NULL past the end */
const char *metric_counter_rule(size_t i, enum metric_dir *d);

const char *metric_dir_name(enum metric_dir d); /* "lower" "higher" "neutral" */
/* "lower"/"higher"/"neutral" (also "-", "up", "down"); -1 if unknown */
int metric_dir_parse(const char *s, enum metric_dir *d);

#endif
