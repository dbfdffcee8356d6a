/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect.h - the agent's optional collectors around a measured phase:
 * tracepoint hit counts (tracefs hist triggers), kernel-thread CPU time
 * (kcompactd*, kswapd*, khugepaged), dmesg warnings, the extfrag indexes
 * (debugfs) and a 1 Hz time series of vmstat fields and per-node free
 * pages. Results go out as COUNTS and SERIES records (common/proto.h).
 */
#ifndef MMLAB_COLLECTORS_COLLECT_H
#define MMLAB_COLLECTORS_COLLECT_H

#include "plan.h"

#define TRACEFS "/sys/kernel/tracing"
#define COLLECT_MAX_EVENTS 512
#define COLLECT_MAX_SAMPLES 20000 /* 5.5 hours at 1 Hz */

/*
 * Resolve the plan's tracepoint patterns against tracefs and attach a hist
 * trigger to each event. 0, or -1 after sending SETUP_ERROR with the reason
 * (the caller then runs no iteration).
 */
int collect_setup(const struct plan *p, const int *nodes, int nnodes);
/* just before "go": baselines, start the sampler */
void collect_begin(unsigned int iter);
/* just after "done": stop the sampler, read again, send COUNTS + SERIES */
void collect_end(unsigned int iter);

/* exposed for unit tests: sum of "hitcount:" values in a hist file */
unsigned long long collect_hist_hits(const char *text, unsigned long long *dropped);
/* utime+stime ticks from a /proc/<pid>/stat line; comm copied out */
int collect_parse_stat(const char *text, char *comm, size_t commlen, unsigned long long *ticks);

#endif
