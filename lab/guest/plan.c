// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - the guest plan of one boot (see plan.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "guest/plan.h"
#include "job/job_own.h"
#include "lib/strbuf.h"
#include "proto.h"

static void plan_collectors(const struct job_collectors *jc, const struct job_variant *v,
			    struct kvlist *plan)
{
	char *list;

	if (jc->disabled) {
		kvlist_set(plan, "collect.enabled", "0");
		return;
	}
	if (v->no_tracepoints || !jc->tracepoints.n)
		return;
	list = strlist_join(&jc->tracepoints, ",");
	kvlist_set(plan, "collect.tracepoints", list);
	free(list);
}

static void plan_prefixed(struct kvlist *plan, const char *prefix, const struct kvlist *from)
{
	for (size_t i = 0; i < from->n; i++) {
		char *k = xasprintf("%s.%s", prefix, from->v[i].key);

		kvlist_set(plan, k, from->v[i].value);
		free(k);
	}
}

/* collect_files: collect.file.<i>, encoded (the job checked each path) */
static void plan_files(const struct strlist *files, struct kvlist *plan)
{
	char enc[MMPATH_ENC_MAX + 1], key[48];

	for (size_t i = 0; i < files->n; i++) {
		if (mmpath_encode(files->v[i], enc, sizeof(enc)))
			continue; /* longer than MMPATH_MAX: the job refuses it */
		snprintf(key, sizeof(key), "collect.file.%zu", i);
		kvlist_set(plan, key, enc);
	}
}

/* the topology's memory tiers: the kmem nodes, demotion, the TIERS record */
static void plan_tiers(const struct job_topology *t, struct kvlist *plan)
{
	struct strbuf kmem = STRBUF_INIT;
	int demotion = topology_demotion(t);

	if (!topology_is_tiered(t) && demotion < 0)
		return;
	kvlist_set(plan, "tier.report", "1");
	for (unsigned int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kmem)
			strbuf_addf(&kmem, "%s%u", kmem.len ? "," : "", i);
	if (kmem.len)
		kvlist_set(plan, "tier.kmem", kmem.buf);
	if (demotion >= 0)
		kvlist_set(plan, "tier.demotion", demotion ? "1" : "0");
	strbuf_release(&kmem);
}

/* '%' and bytes outside '!'..'~' as %XX: a plan value is one trimmed line */
char *guest_plan_encode(const char *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (const unsigned char *c = (const unsigned char *)v; *c; c++)
		if (*c == '%' || *c <= ' ' || *c > '~')
			strbuf_addf(&sb, "%%%02X", *c);
		else
			strbuf_addf(&sb, "%c", *c);
	return strbuf_detach(&sb);
}

void guest_plan(struct kvlist *plan, const char *run_id, const struct job *job,
		const struct job_variant *v, unsigned int first, unsigned int count,
		guest_plan_fn *workload_plan)
{
	char num[32];

	kvlist_set(plan, "run", run_id);
	kvlist_set(plan, "variant", v->name);
	snprintf(num, sizeof(num), "%u", first);
	kvlist_set(plan, "iteration_first", num);
	snprintf(num, sizeof(num), "%u", count);
	kvlist_set(plan, "iterations", num);
	kvlist_set(plan, "workload", job->workload.name);
	plan_prefixed(plan, "param", &job->workload.params);
	if (workload_plan)
		workload_plan(plan, &job->workload);
	plan_prefixed(plan, "sysctl", &v->sysctl);
	if (v->thp_enabled)
		kvlist_set(plan, "thp.enabled", v->thp_enabled);
	if (v->thp_defrag)
		kvlist_set(plan, "thp.defrag", v->thp_defrag);
	plan_collectors(&job->collectors, v, plan);
	plan_files(&job->collect_files, plan);
	plan_tiers(&job->topo, plan);
}
