// SPDX-License-Identifier: GPL-2.0
/*
 * test_guest_plan.c - the guest plan the host writes for one boot
 * (lab/guest/plan.c): the keys collectors/plan.c reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guest/plan.h"
#include "job/job_own.h"
#include "run/run.h"

static void job_init(struct job *job, struct job_variant *v)
{
	memset(job, 0, sizeof(*job));
	memset(v, 0, sizeof(*v));
	v->name = "always";
	kvlist_set(&v->sysctl, "vm.compaction_proactiveness", "20");
	v->thp_enabled = "always";
	job->variants = v;
	job->nvariants = 1;
	job->workload.name = "usemem";
	kvlist_set(&job->workload.params, "size", "1048576");
	kvlist_set(&job->workload.params, "threads", "1,2");
	strlist_push(&job->collectors.tracepoints, "compaction:*");
	strlist_push(&job->collectors.tracepoints, "migrate:mm_migrate_pages");
}

static void job_fini(struct job *job, struct job_variant *v)
{
	kvlist_free(&v->sysctl);
	kvlist_free(&job->workload.params);
	strlist_free(&job->collectors.tracepoints);
}

static void test_plan(void **state)
{
	struct job job;
	struct job_variant v;
	struct kvlist p = { 0 };

	(void)state;
	job_init(&job, &v);
	guest_plan(&p, "20260101-000000-demo-abcd", &job, &v, 3, 2, NULL);
	assert_string_equal(kvlist_get(&p, "run"), "20260101-000000-demo-abcd");
	assert_string_equal(kvlist_get(&p, "variant"), "always");
	assert_string_equal(kvlist_get(&p, "iteration_first"), "3");
	assert_string_equal(kvlist_get(&p, "iterations"), "2");
	assert_string_equal(kvlist_get(&p, "workload"), "usemem");
	assert_string_equal(kvlist_get(&p, "param.size"), "1048576");
	assert_string_equal(kvlist_get(&p, "param.threads"), "1,2");
	assert_string_equal(kvlist_get(&p, "sysctl.vm.compaction_proactiveness"), "20");
	assert_string_equal(kvlist_get(&p, "thp.enabled"), "always");
	assert_null(kvlist_get(&p, "thp.defrag"));
	assert_string_equal(kvlist_get(&p, "collect.tracepoints"),
			    "compaction:*,migrate:mm_migrate_pages");
	assert_null(kvlist_get(&p, "collect.enabled"));
	assert_int_equal(p.n, 10);
	kvlist_free(&p);

	/* the observer check's twin counts no tracepoint */
	v.no_tracepoints = true;
	guest_plan(&p, "r", &job, &v, 0, 1, NULL);
	assert_null(kvlist_get(&p, "collect.tracepoints"));
	kvlist_free(&p);

	/* collectors off */
	job.collectors.disabled = true;
	guest_plan(&p, "r", &job, &v, 0, 1, NULL);
	assert_string_equal(kvlist_get(&p, "collect.enabled"), "0");
	assert_null(kvlist_get(&p, "collect.file.0"));
	assert_null(kvlist_get(&p, "tier.report"));
	kvlist_free(&p);

	/* a tiered topology: the kmem nodes, demotion on by default, TIERS */
	job.topo.nnodes = 3;
	job.topo.nodes[0] = (struct job_node){ .cpus = 1, .memory_kib = 1 << 20 };
	job.topo.nodes[1] = (struct job_node){ .cpus = 0, .memory_kib = 1 << 18, .kmem = true };
	job.topo.nodes[2] = (struct job_node){ .cpus = 0, .memory_kib = 1 << 18, .kmem = true };
	guest_plan(&p, "r", &job, &v, 0, 1, NULL);
	assert_string_equal(kvlist_get(&p, "tier.report"), "1");
	assert_string_equal(kvlist_get(&p, "tier.kmem"), "1,2");
	assert_string_equal(kvlist_get(&p, "tier.demotion"), "1");
	kvlist_free(&p);
	job.topo.demotion = -1;
	job.topo.nodes[1].kmem = job.topo.nodes[2].kmem = false;
	guest_plan(&p, "r", &job, &v, 0, 1, NULL);
	assert_string_equal(kvlist_get(&p, "tier.report"), "1");
	assert_null(kvlist_get(&p, "tier.kmem"));
	assert_string_equal(kvlist_get(&p, "tier.demotion"), "0");
	kvlist_free(&p);

	/* collect_files: in order, encoded so that a value holds no space */
	strlist_push(&job.collect_files, "/var/log/mmlab/writefile.out");
	strlist_push(&job.collect_files, "/tmp/a b=c");
	guest_plan(&p, "r", &job, &v, 0, 1, NULL);
	assert_string_equal(kvlist_get(&p, "collect.file.0"), "/var/log/mmlab/writefile.out");
	assert_string_equal(kvlist_get(&p, "collect.file.1"), "/tmp/a%20b%3Dc");
	kvlist_free(&p);
	strlist_free(&job.collect_files);
	job_fini(&job, &v);
}

static size_t plan_index(const struct kvlist *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].key, key))
			return i;
	fail_msg("%s is not in the plan", key);
	return p->n;
}

/* a command workload's lines (run/own.c's plan hook): after param.*, encoded */
static void test_plan_command(void **state)
{
	struct job job;
	struct job_variant v;
	struct job_own own = { .timeout_s = 30, .phase = OWN_PHASE_HANDSHAKE };
	struct kvlist p = { 0 };

	(void)state;
	job_init(&job, &v);
	strlist_push(&own.argv, "./prog");
	strlist_push(&own.argv, "a b%");
	strlist_push(&own.read, "/proc/meminfo");
	job.workload.own = &own;
	assert_ptr_equal(workload_own_ops.plan, run_own_plan);
	guest_plan(&p, "r", &job, &v, 0, 1, workload_own_ops.plan);
	assert_string_equal(kvlist_get(&p, "own"), "1");
	assert_string_equal(kvlist_get(&p, "own.phase"), "handshake");
	assert_string_equal(kvlist_get(&p, "own.timeout_s"), "30");
	assert_string_equal(kvlist_get(&p, "own.arg.0"), "./prog");
	assert_string_equal(kvlist_get(&p, "own.arg.1"), "a%20b%25");
	assert_string_equal(kvlist_get(&p, "own.read.0"), "/proc/meminfo");
	assert_null(kvlist_get(&p, "own.dmesg"));
	assert_null(kvlist_get(&p, "own.module"));
	assert_true(plan_index(&p, "param.threads") < plan_index(&p, "own"));
	assert_true(plan_index(&p, "own.read.0") <
		    plan_index(&p, "sysctl.vm.compaction_proactiveness"));
	assert_int_equal(p.n, 10 + 6);
	kvlist_free(&p);

	/* a module: its name and its parameters, encoded */
	own.has_module = true;
	own.module.name = "wlmod";
	own.module.param_text = "a=1 b=2";
	own.read_dmesg = true;
	guest_plan(&p, "r", &job, &v, 0, 1, workload_own_ops.plan);
	assert_string_equal(kvlist_get(&p, "own.dmesg"), "1");
	assert_string_equal(kvlist_get(&p, "own.module"), "wlmod");
	assert_string_equal(kvlist_get(&p, "own.module_params"), "a=1%20b=2");
	kvlist_free(&p);
	strlist_free(&own.argv);
	strlist_free(&own.read);
	job_fini(&job, &v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
