// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the workload kinds of a run (struct workload_ops, run.h):
 * the table from a job's kind (job_workload_kind()) to its ops, and the
 * built-in kind's, which has nothing to do around the boots: its program
 * is in the image, its plan is the workload's name and param.* lines that
 * every kind has, and the stream parser reads its metrics.
 */
#include "run/run.h"

static int builtin_prepare(struct run *r)
{
	(void)r;
	return 0;
}

static void builtin_plan(struct kvlist *plan, const struct job_workload *w)
{
	(void)plan;
	(void)w;
}

static void builtin_collect(void *ctx, const struct guest_record *rec)
{
	(void)ctx;
	(void)rec;
}

static void builtin_record(struct run *r, const struct boot_out *out, struct iteration_out *io,
			   const char *dir)
{
	(void)r;
	(void)out;
	(void)io;
	(void)dir;
}

static const struct workload_ops workload_builtin_ops = {
	.name = "built-in",
	.prepare = builtin_prepare,
	.plan = builtin_plan,
	.collect = builtin_collect,
	.record = builtin_record,
};

static const struct workload_ops *const kinds[WORKLOAD_NKINDS] = {
	[WORKLOAD_BUILTIN] = &workload_builtin_ops,
	[WORKLOAD_OWN] = &workload_own_ops,
	[WORKLOAD_MMTESTS] = &workload_mmtests_ops,
};

const struct workload_ops *run_workload(const struct run *r)
{
	return kinds[job_workload_kind(&r->job->workload)];
}
