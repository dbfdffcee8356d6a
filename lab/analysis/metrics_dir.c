// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_dir.c - direction and presentation of metrics. Order of rules:
 * the workload table (workload.c), then time.*, then the counter table
 * below applied to the last component of vmstat/numastat/node counters,
 * then the derived metrics; anything else is neutral.
 */
#include <fnmatch.h>
#include <string.h>

#include "analysis/metrics_dir.h"
#include "lib/util.h"
#include "job/workload.h"

struct dir_rule {
	const char *pattern; /* fnmatch() pattern on the counter name */
	enum metric_dir dir;
};

/*
 * /proc/vmstat and numastat counters, by their own name: docs/metrics.md,
 * "Direction of counters" (tests/unit/analysis/test_metrics_dir.c checks both agree).
 */
static const struct dir_rule counter_rules[] = {
	{ "compact_stall", DIR_LOWER },
	{ "compact_fail", DIR_LOWER },
	{ "compact_migrate_scanned", DIR_LOWER },
	{ "compact_free_scanned", DIR_LOWER },
	{ "compact_isolated", DIR_LOWER },
	{ "compact_daemon_*scanned", DIR_LOWER },
	{ "pgmigrate_fail", DIR_LOWER },
	{ "pgmajfault", DIR_LOWER },
	{ "allocstall*", DIR_LOWER },
	{ "pgscan_*", DIR_LOWER },
	{ "pgsteal_direct*", DIR_LOWER },
	{ "thp_fault_fallback*", DIR_LOWER },
	{ "thp_collapse_alloc_failed", DIR_LOWER },
	{ "thp_split_*", DIR_LOWER },
	{ "numa_pte_updates", DIR_LOWER },
	{ "numa_huge_pte_updates", DIR_LOWER },
	{ "numa_hint_faults", DIR_LOWER },
	{ "numa_hint_faults_local", DIR_HIGHER },
	{ "numa_miss", DIR_LOWER },
	{ "numa_foreign", DIR_LOWER },
	{ "numa_other", DIR_LOWER },
	{ "other_node", DIR_LOWER },
	{ "numa_hit", DIR_HIGHER },
	{ "numa_local", DIR_HIGHER },
	{ "local_node", DIR_HIGHER },
	{ "oom_kill", DIR_LOWER },
	/* workload dependent: more is neither better nor worse */
	{ "compact_success", DIR_NEUTRAL },
	{ "thp_fault_alloc", DIR_NEUTRAL },
	{ "thp_collapse_alloc", DIR_NEUTRAL },
	{ "pgmigrate_success", DIR_NEUTRAL },
	{ "numa_pages_migrated", DIR_NEUTRAL },
	/* everything else (pgfault, nr_* gauges, ...): neutral */
};

static const struct dir_rule derived_rules[] = {
	{ "derived.compact_scan_efficiency", DIR_HIGHER },
	{ "derived.compaction_cost", DIR_LOWER },
	{ "derived.autonuma_cost", DIR_LOWER },
	{ "derived.numa_hint_local_pct", DIR_HIGHER },
	{ "derived.promotion_rate", DIR_NEUTRAL },
	{ "derived.demotion_rate", DIR_NEUTRAL },
	{ "derived.hot_fast_pct", DIR_HIGHER },
};

static int workload_rule(const char *name, enum metric_dir *d)
{
	const struct workload_def *const *all = workload_all();

	for (size_t i = 0; all[i]; i++) {
		for (const struct wl_metric *m = all[i]->metrics; m->name; m++) {
			if (!fnmatch(m->name, name, 0)) {
				*d = m->higher_is_better ? DIR_HIGHER : DIR_LOWER;
				return 0;
			}
		}
	}
	return -1;
}

static bool is_counter(const char *name)
{
	return !strncmp(name, "vmstat.", 7) || !strncmp(name, "numastat.", 9) ||
	       !fnmatch("node[0-9]*.*", name, 0);
}

enum metric_dir metric_direction(const char *name)
{
	enum metric_dir d;
	const char *leaf;

	if (!workload_rule(name, &d))
		return d;
	if (!strncmp(name, "time.", 5))
		return DIR_LOWER;
	/* collectors (docs/metrics.md): kernel thread CPU, warnings, fragmentation */
	if (!strncmp(name, "kthread.", 8) || !strncmp(name, "dmesg.", 6) ||
	    !strncmp(name, "extfrag.", 8))
		return DIR_LOWER;
	for (size_t i = 0; i < ARRAY_SIZE(derived_rules); i++)
		if (!strcmp(derived_rules[i].pattern, name))
			return derived_rules[i].dir;
	if (!is_counter(name))
		return DIR_NEUTRAL;
	leaf = strrchr(name, '.') + 1;
	for (size_t i = 0; i < ARRAY_SIZE(counter_rules); i++)
		if (!fnmatch(counter_rules[i].pattern, leaf, 0))
			return counter_rules[i].dir;
	return DIR_NEUTRAL;
}

enum metric_kind metric_kind(const char *name)
{
	if (!strcmp(name, "time.user_s") || !strcmp(name, "time.system_s") ||
	    !strcmp(name, "time.elapsed_s"))
		return KIND_DURATION;
	if (is_counter(name) || !strncmp(name, "trace.", 6) || !strncmp(name, "derived.", 8) ||
	    !strncmp(name, "rate.", 5))
		return KIND_OPS;
	return KIND_MAIN;
}

static bool is_collector(const char *name)
{
	static const char *const prefix[] = { "kthread.", "extfrag.", "dmesg.", "trace." };

	for (size_t i = 0; i < ARRAY_SIZE(prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static bool is_numa(const char *name)
{
	static const char *const pat[] = {
		"node[0-9]*.*",
		"numastat.*",
		"vmstat.numa_*",
		"vmstat.pgpromote_*",
		"vmstat.pgdemote_*",
		"derived.autonuma_cost",
		"derived.numa_hint_local_pct",
		"derived.promotion_rate",
		"derived.demotion_rate",
		"derived.hot_fast_pct",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pat); i++)
		if (!fnmatch(pat[i], name, 0))
			return true;
	return false;
}

enum metric_group metric_group(const char *name, enum metric_kind kind)
{
	if (kind == KIND_DURATION)
		return GROUP_DURATION;
	if (!strncmp(name, "rate.", 5))
		return GROUP_OPS;
	if (is_collector(name))
		return GROUP_COLLECTORS;
	if (kind == KIND_MAIN)
		return GROUP_WORKLOAD;
	return is_numa(name) ? GROUP_NUMA : GROUP_OPS;
}

const char *metric_group_name(enum metric_group g)
{
	static const char *const names[GROUP_COUNT] = {
		"workload", "duration", "ops", "numa", "collectors",
	};

	return g < GROUP_COUNT ? names[g] : "?";
}

const char *metric_group_title(enum metric_group g)
{
	static const char *const titles[GROUP_COUNT] = {
		"Workload metrics",
		"Duration",
		"Ops (vmstat)",
		"Per-node and NUMA",
		"Collectors (kthread, extfrag, dmesg, tracepoints)",
	};

	return g < GROUP_COUNT ? titles[g] : "?";
}

const char *metric_counter_rule(size_t i, enum metric_dir *d)
{
	if (i >= ARRAY_SIZE(counter_rules))
		return NULL;
	*d = counter_rules[i].dir;
	return counter_rules[i].pattern;
}

const char *metric_dir_name(enum metric_dir d)
{
	return d == DIR_LOWER ? "lower" : d == DIR_HIGHER ? "higher" : "neutral";
}

int metric_dir_parse(const char *s, enum metric_dir *d)
{
	if (!strcmp(s, "lower") || !strcmp(s, "down"))
		*d = DIR_LOWER;
	else if (!strcmp(s, "higher") || !strcmp(s, "up"))
		*d = DIR_HIGHER;
	else if (!strcmp(s, "neutral") || !strcmp(s, "-") || !*s)
		*d = DIR_NEUTRAL;
	else
		return -1;
	return 0;
}
