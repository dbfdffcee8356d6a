// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the table of guest workloads. Each entry mirrors a program
 * in workloads/<name>.c and a section of docs/workloads.md; keep the three
 * in step. Metric names are stable identifiers: never rename one.
 */
#include <string.h>

#include "workload.h"

static const struct wl_param usemem_params[] = {
	{ .name = "threads", .type = WLP_UINT_LIST, .def = "1", .min = 1, .max = 1024,
	  .help = "thread count, or a list of counts run one after another" },
	{ .name = "size", .type = WLP_SIZE, .def = "25%", .allow_pct = true,
	  .min = 4096, .max = 0,
	  .help = "anonymous memory touched in total, split evenly across threads" },
	{ .name = "loops", .type = WLP_UINT, .def = "1", .min = 1, .max = 1000000,
	  .help = "passes over the memory in the measured phase" },
	{ .name = NULL },
};

static const struct wl_metric usemem_metrics[] = {
	{ "usemem.elapsed_s.T*", "s", false, "wall time of the measured phase, per thread count" },
	{ "usemem.system_s.T*", "s", false, "system CPU time of the measured phase, per thread count" },
	{ "usemem.user_s.T*", "s", false, "user CPU time of the measured phase, per thread count" },
	{ "usemem.throughput_mbs.T*", "MB/s", true, "bytes touched per second of wall time" },
	{ NULL },
};

static const struct wl_param noop_params[] = {
	{ .name = NULL },
};

static const struct wl_metric noop_metrics[] = {
	{ NULL },
};

static const struct wl_param crash_params[] = {
	{ .name = "delay_ms", .type = WLP_UINT, .def = "0", .min = 0, .max = 3600000,
	  .help = "wait this long in the measured phase before crashing" },
	{ .name = NULL },
};

static const struct wl_param hang_params[] = {
	{ .name = NULL },
};

static const struct workload_def usemem = {
	.name = "usemem",
	.summary = "anonymous memory pressure: threads fault and write a memory size",
	.params = usemem_params,
	.metrics = usemem_metrics,
};

static const struct workload_def noop = {
	.name = "noop",
	.summary = "does nothing; measures the lab's own overhead",
	.params = noop_params,
	.metrics = noop_metrics,
};

static const struct workload_def crash = {
	.name = "crash",
	.summary = "panics the guest through sysrq (tests crash handling)",
	.params = crash_params,
	.metrics = noop_metrics,
};

static const struct workload_def hang = {
	.name = "hang",
	.summary = "never finishes its measured phase (tests deadlines)",
	.params = hang_params,
	.metrics = noop_metrics,
};

static const struct wl_param writefile_params[] = {
	{ .name = "size", .type = WLP_SIZE, .def = "1M", .min = 4096, .max = 1ULL << 30,
	  .help = "bytes written to /var/log/mmlab/writefile.out and fsynced" },
	{ .name = NULL },
};

static const struct wl_metric writefile_metrics[] = {
	{ "writefile.elapsed_s", "s", false, "wall time of the write and fsync" },
	{ NULL },
};

static const struct workload_def writefile = {
	.name = "writefile",
	.summary = "writes a file to the root filesystem and fsyncs it (page cache on disk)",
	.params = writefile_params,
	.metrics = writefile_metrics,
};

static const struct workload_def *const all[] = {
	&usemem, &noop, &crash, &hang, &writefile, NULL,
};

const struct workload_def *workload_find(const char *name)
{
	for (size_t i = 0; all[i]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

const struct workload_def *const *workload_all(void)
{
	return all;
}
