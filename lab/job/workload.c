// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the table of guest workloads. Each entry mirrors a program
 * in workloads/<name>.c and a section of docs/workloads.md; keep the three
 * in step. Metric names are stable identifiers: never rename one.
 */
#include <string.h>

#include "job/workload.h"

static const struct wl_param usemem_params[] = {
	{ .name = "threads",
	  .type = WLP_UINT_LIST,
	  .def = "1",
	  .min = 1,
	  .max = 1024,
	  .help = "thread count, or a list of counts run one after another" },
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "25%",
	  .allow_pct = true,
	  .min = 4096,
	  .max = 0,
	  .help = "anonymous memory touched in total, split evenly across threads" },
	{ .name = "loops",
	  .type = WLP_UINT,
	  .def = "1",
	  .min = 1,
	  .max = 1000000,
	  .help = "passes over the memory in the measured phase" },
	{ .name = "file",
	  .type = WLP_SIZE,
	  .def = "0",
	  .allow_pct = true,
	  .min = 0,
	  .max = 0,
	  .help = "file-backed memory (a MAP_SHARED tmpfs file per thread) touched in total" },
	{ .name = "step",
	  .type = WLP_UINT,
	  .def = "4096",
	  .min = 1,
	  .max = 1ULL << 30,
	  .help = "bytes between two writes (4096: every page)" },
	{ .name = NULL },
};

static const struct wl_metric usemem_metrics[] = {
	{ "usemem.elapsed_s.T*", "s", false, "wall time of the measured phase, per thread count" },
	{ "usemem.system_s.T*", "s", false,
	  "system CPU time of the measured phase, per thread count" },
	{ "usemem.user_s.T*", "s", false, "user CPU time of the measured phase, per thread count" },
	{ "usemem.throughput_mbs.T*", "MB/s", true, "bytes touched per second of wall time" },
	{ .name = NULL },
};

static const struct wl_param thpfault_params[] = {
	{ .name = "threads",
	  .type = WLP_UINT_LIST,
	  .def = "1",
	  .min = 1,
	  .max = 256,
	  .help = "thread count, or a list of counts run one after another" },
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "70%",
	  .allow_pct = true,
	  .min = 8 << 20,
	  .max = 0,
	  .help = "memory fragmented in the setup (capped at 90% of MemAvailable); a quarter of it is faulted" },
	{ .name = "madvise",
	  .type = WLP_BOOL,
	  .def = "true",
	  .help = "MADV_HUGEPAGE on the faulted region" },
	{ .name = NULL },
};

static const struct wl_metric thpfault_metrics[] = {
	{ "thpfault.fault_huge_us.T*", "us", false, "mean latency of faults that got a huge page" },
	{ "thpfault.fault_huge_us_p50.T*", "us", false, "median of the same" },
	{ "thpfault.fault_huge_us_p90.T*", "us", false, "90th percentile of the same" },
	{ "thpfault.fault_huge_us_p99.T*", "us", false, "99th percentile of the same" },
	{ "thpfault.fault_base_us.T*", "us", false,
	  "mean latency of 2 MB-range faults that fell back to a base page" },
	{ "thpfault.fault_base_us_p50.T*", "us", false, "median of the same" },
	{ "thpfault.fault_base_us_p90.T*", "us", false, "90th percentile of the same" },
	{ "thpfault.fault_base_us_p99.T*", "us", false, "99th percentile of the same" },
	{ "thpfault.huge_pct.T*", "%", true, "faults that got a huge page" },
	{ "thpfault.local_pct.T*", "%", true, "faults whose page is on the faulting CPU's node" },
	{ "thpfault.faults.T*", "count", false, "2 MB faults timed" },
	{ "thpfault.region_mb", "MiB", false, "size of the faulted region" },
	{ .name = NULL },
};

static const struct wl_param compact_params[] = {
	{ .name = "mode",
	  .type = WLP_ENUM,
	  .def = "all",
	  .choices = "all|node|proactive",
	  .help = "all: vm.compact_memory; node: nodeN/compact; proactive: vm.compaction_proactiveness over a window" },
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "60%",
	  .allow_pct = true,
	  .min = 8 << 20,
	  .max = 0,
	  .help = "memory fragmented in the setup" },
	{ .name = "node",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 1023,
	  .help = "the node compacted in mode node" },
	{ .name = "proactiveness",
	  .type = WLP_UINT,
	  .def = "20",
	  .min = 0,
	  .max = 100,
	  .help = "vm.compaction_proactiveness in mode proactive" },
	{ .name = "window_s",
	  .type = WLP_UINT,
	  .def = "5",
	  .min = 1,
	  .max = 3600,
	  .help = "seconds measured in mode proactive" },
	{ .name = "order",
	  .type = WLP_UINT,
	  .def = "9",
	  .min = 0,
	  .max = 10,
	  .help = "the order of the unusable index and free block counts" },
	{ .name = NULL },
};

static const struct wl_metric compact_metrics[] = {
	{ "compact.time_s", "s", false, "time of the compaction trigger (or the window)" },
	{ "compact.unusable_before", "ratio", false, "unusable free space index at order before" },
	{ "compact.unusable_after", "ratio", false, "the same after compaction" },
	{ "compact.free_blocks_before", "count", true, "free blocks of the order before" },
	{ "compact.free_blocks_after", "count", true, "free blocks of the order after" },
	{ "compact.thp_tries", "count", false, "2 MB THP faults tried after the phase" },
	{ "compact.thp_success_pct", "%", true, "of those, the ones that got a huge page" },
	{ .name = NULL },
};

static const struct wl_param numamigrate_params[] = {
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "32M",
	  .allow_pct = true,
	  .min = 4096,
	  .max = 0,
	  .help = "bytes of each of the two ranges" },
	{ .name = "cpu_node",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 63,
	  .help = "the node whose CPUs run the workload" },
	{ .name = "mem_node",
	  .type = WLP_UINT,
	  .def = "1",
	  .min = 0,
	  .max = 63,
	  .help = "the node the memory is placed on first" },
	{ .name = "wait_s",
	  .type = WLP_UINT,
	  .def = "30",
	  .min = 1,
	  .max = 3600,
	  .help = "longest wait for AutoNUMA convergence" },
	{ .name = "converge_pct",
	  .type = WLP_UINT,
	  .def = "90",
	  .min = 1,
	  .max = 100,
	  .help = "share of local pages that counts as converged" },
	{ .name = "autonuma",
	  .type = WLP_BOOL,
	  .def = "true",
	  .help = "write 1 to kernel.numa_balancing in the setup" },
	{ .name = NULL },
};

static const struct wl_metric numamigrate_metrics[] = {
	{ "numamigrate.converged", "0/1", true, "1 when converge_pct of the pages became local" },
	{ "numamigrate.converge_s", "s", false, "time until then (wait_s when never)" },
	{ "numamigrate.local_pct_end", "%", true, "local pages at the end of part 1" },
	{ "numamigrate.autonuma_hint_faults", "count", false, "numa_hint_faults during part 1" },
	{ "numamigrate.autonuma_pages_migrated", "pages", false,
	  "numa_pages_migrated during part 1" },
	{ "numamigrate.move_pages_requested", "pages", false,
	  "pages move_pages(2) was asked to move" },
	{ "numamigrate.move_pages_moved", "pages", true, "pages it moved to the target node" },
	{ "numamigrate.move_pages_per_s", "pages/s", true, "move_pages(2) throughput" },
	{ .name = NULL },
};

static const struct wl_param pagebench_params[] = {
	{ .name = "max_order",
	  .type = WLP_UINT,
	  .def = "4",
	  .min = 0,
	  .max = 10,
	  .help = "orders 0..max_order are timed" },
	{ .name = "iters",
	  .type = WLP_UINT,
	  .def = "100",
	  .min = 1,
	  .max = 1000000,
	  .help = "batches per order" },
	{ .name = "batch",
	  .type = WLP_UINT,
	  .def = "64",
	  .min = 1,
	  .max = 4096,
	  .help = "blocks allocated before they are freed" },
	{ .name = NULL },
};

static const struct wl_metric pagebench_metrics[] = {
	{ "pagebench.alloc_cycles.o*", "cycles", false, "alloc_pages cycles per call at order K" },
	{ "pagebench.free_cycles.o*", "cycles", false, "__free_pages cycles per call at order K" },
	{ "pagebench.failed.o*", "count", false, "allocations that failed at order K" },
	{ .name = NULL },
};

static const struct wl_param noop_params[] = {
	{ .name = NULL },
};

static const struct wl_metric noop_metrics[] = {
	{ .name = NULL },
};

static const struct wl_param crash_params[] = {
	{ .name = "delay_ms",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 3600000,
	  .help = "wait this long in the measured phase before crashing" },
	{ .name = "probability",
	  .type = WLP_UINT,
	  .def = "100",
	  .min = 0,
	  .max = 100,
	  .help = "crash in this percentage of the iterations; the others finish normally" },
	{ .name = "seed",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 0xffffffffULL,
	  .help = "0: random draw; else the draw is a fixed function of seed and iteration" },
	{ .name = NULL },
};

static const struct wl_metric crash_metrics[] = {
	{ "crash.crashed", "", false, "0 when the iteration did not crash (reported only then)" },
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

static const struct workload_def thpfault = {
	.name = "thpfault",
	.summary = "THP fault latency under fragmentation (after thpscale)",
	.params = thpfault_params,
	.metrics = thpfault_metrics,
};

static const struct workload_def compact = {
	.name = "compact",
	.summary = "explicit or proactive compaction of a fragmented guest",
	.params = compact_params,
	.metrics = compact_metrics,
};

static const struct workload_def numamigrate = {
	.name = "numamigrate",
	.summary = "AutoNUMA convergence and move_pages(2) throughput across nodes",
	.params = numamigrate_params,
	.metrics = numamigrate_metrics,
};

static const struct workload_def pagebench = {
	.name = "pagebench",
	.summary = "page allocator cycles per alloc/free (a kernel module built per variant)",
	.params = pagebench_params,
	.metrics = pagebench_metrics,
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
	.metrics = crash_metrics,
};

static const struct workload_def hang = {
	.name = "hang",
	.summary = "never finishes its measured phase (tests deadlines)",
	.params = hang_params,
	.metrics = noop_metrics,
};

static const struct wl_param writefile_params[] = {
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "1M",
	  .min = 4096,
	  .max = 1ULL << 30,
	  .help = "bytes written to /var/log/mmlab/writefile.out and fsynced" },
	{ .name = NULL },
};

static const struct wl_metric writefile_metrics[] = {
	{ "writefile.elapsed_s", "s", false, "wall time of the write and fsync" },
	{ .name = NULL },
};

static const struct workload_def writefile = {
	.name = "writefile",
	.summary = "writes a file to the root filesystem and fsyncs it (page cache on disk)",
	.params = writefile_params,
	.metrics = writefile_metrics,
};

static const struct wl_param tiering_params[] = {
	{ .name = "size",
	  .type = WLP_SIZE,
	  .def = "75%",
	  .allow_pct = true,
	  .min = 8 << 20,
	  .max = 0,
	  .help = "the working set, hot and cold: make it larger than the fast tier" },
	{ .name = "hot",
	  .type = WLP_SIZE,
	  .def = "10%",
	  .allow_pct = true,
	  .min = 1 << 20,
	  .max = 0,
	  .help = "the hot set, read again and again (less than size)" },
	{ .name = "duration_s",
	  .type = WLP_UINT,
	  .def = "30",
	  .min = 1,
	  .max = 86400,
	  .help = "seconds the hot set is read in the measured phase" },
	{ .name = "interval_s",
	  .type = WLP_UINT,
	  .def = "2",
	  .min = 1,
	  .max = 3600,
	  .help = "seconds between two samples of throughput and placement" },
	{ .name = "age_cold",
	  .type = WLP_BOOL,
	  .def = "true",
	  .help = "MADV_COLD on each 16M of the cold set once written (inactive, not young)" },
	{ .name = "start",
	  .type = WLP_ENUM,
	  .def = "slow",
	  .choices = "slow|fast|any",
	  .help = "where the hot set is faulted in during the setup" },
	{ .name = "scan_delay_ms",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 3600000,
	  .help = "NUMA balancing scan_delay_ms (debugfs) for the run; 0 leaves it" },
	{ .name = "scan_period_min_ms",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 3600000,
	  .help = "NUMA balancing scan_period_min_ms (debugfs); 0 leaves it" },
	{ .name = "scan_period_max_ms",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 3600000,
	  .help = "NUMA balancing scan_period_max_ms (debugfs); 0 leaves it" },
	{ .name = "scan_size_mb",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 1048576,
	  .help = "NUMA balancing scan_size_mb (debugfs); 0 leaves it" },
	{ .name = "hot_threshold_ms",
	  .type = WLP_UINT,
	  .def = "0",
	  .min = 0,
	  .max = 3600000,
	  .help = "NUMA balancing hot_threshold_ms (debugfs, tiering mode); 0 leaves it" },
	{ .name = NULL },
};

static const struct wl_metric tiering_metrics[] = {
	{ "tiering.hot_mbs.i*", "MB/s", true, "hot-set read throughput in sampling interval K" },
	{ "tiering.hot_fast_pct.i*", "%", true,
	  "hot-set pages on the fast tier at the end of interval K" },
	{ "tiering.hot_mbs_first", "MB/s", true, "hot-set throughput in the first interval" },
	{ "tiering.hot_mbs_last", "MB/s", true, "hot-set throughput in the last interval" },
	{ "tiering.hot_mbs_mean", "MB/s", true, "mean over the intervals" },
	{ "tiering.hot_pages", "pages", false, "hot-set pages resident at the end" },
	{ "tiering.hot_fast_pages", "pages", true, "of them on the fast tier" },
	{ "tiering.cold_pages", "pages", false, "cold-set pages resident at the end" },
	{ "tiering.cold_fast_pages", "pages", false, "of them on the fast tier" },
	{ "tiering.resident_mb.node*", "MiB", false, "working set resident on node N at the end" },
	{ "tiering.fill_s", "s", false, "faulting the cold set in (the pressure)" },
	{ .name = NULL },
};

static const struct workload_def tiering = {
	.name = "tiering",
	.summary =
		"a hot and a cold set larger than the fast tier: demotion, promotion, hot-set placement",
	.params = tiering_params,
	.metrics = tiering_metrics,
};

static const struct workload_def *const all[] = {
	&usemem, &thpfault, &compact,	&numamigrate, &pagebench, &noop,
	&crash,	 &hang,	    &writefile, &tiering,     NULL,
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
