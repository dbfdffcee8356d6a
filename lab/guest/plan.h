/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - the guest plan of one boot: the flat key=value file the agent
 * reads at start (collectors/plan.c parses it; the guest never sees YAML).
 * It travels in the boot's payload (image/payload.h), as /mmlab/plan.
 *
 *   run, variant, iteration_first, iterations, workload,
 *   param.<name>, sysctl.<name>, thp.enabled, thp.defrag,
 *   collect.enabled=0 (collectors off) or collect.tracepoints=<a,b,..>,
 *   collect.file.<i>=<encoded path> (collect_files)
 *   tier.report, tier.kmem, tier.demotion (a tiered topology; tier.modules
 *   comes with the modules, lab/kernel/tiermods.h)
 *   own=1 and own.* for a command workload (common/proto.h): the
 *   workload kind's lines (run/own.c), after param.*
 */
#ifndef MMLAB_GUEST_PLAN_H
#define MMLAB_GUEST_PLAN_H

#include "job/job.h"
#include "lib/util.h"

/* a workload kind's lines of the plan (struct workload_ops, run/run.h) */
typedef void guest_plan_fn(struct kvlist *plan, const struct job_workload *w);

/*
 * add the plan of the boot of job's variant v running iterations first..;
 * workload_plan, when not NULL, adds the workload kind's lines
 */
void guest_plan(struct kvlist *plan, const char *run_id, const struct job *job,
		const struct job_variant *v, unsigned int first, unsigned int count,
		guest_plan_fn *workload_plan);

/* '%' and bytes outside '!'..'~' as %XX: a plan value is one trimmed line (malloc'd) */
char *guest_plan_encode(const char *v);

#endif
