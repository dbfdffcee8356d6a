// SPDX-License-Identifier: GPL-2.0
/*
 * test_runner.c - the runner's parts that need no VM (lab/run/): the
 * observer check's twins of source variants (the twin of a "ref:" variant
 * once had no ref and crashed the run), the boots of a run and their
 * recorded order, the rounds --until-significant adds, and finding a
 * queue item's boot in the plan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"

#include "run/run.h"

static const char yaml[] =
	"name: k\n"
	"kernels: { tree: ../linux }\n"
	"variants:\n"
	"  - { name: base, ref: v6.4-rc2 }\n"
	"  - { name: fix, ref: v6.4-rc2, revert: 7efc3b726103, cherry_pick: [a1, b2],\n"
	"      apply: [p/series.mbox], sysctl: { vm.swappiness: 0 }, cmdline: quiet }\n"
	"  - { name: distro, kernel: distro, thp: { enabled: always } }\n"
	"collectors: { tracepoints: [\"compaction:*\"] }\n"
	"topology: { nodes: 2, memory_per_node: 256M }\n"
	"workload: { name: noop }\n"
	"iterations: 4\n"
	"iterations_per_boot: 2\n";

static struct job *load(void)
{
	struct job *job = NULL;

	assert_int_equal(job_load_buffer("k.yaml", yaml, strlen(yaml), "/jobs", &job), 0);
	return job;
}

static void test_twins_of_source_variants(void **state)
{
	struct job *job = load();

	(void)state;
	run_add_observer_twins(job);
	assert_int_equal(job->nvariants, 6);
	for (size_t i = 0; i < 3; i++) {
		const struct job_variant *v = &job->variants[i], *t = &job->variants[3 + i];
		char *name = xasprintf("%s.nocollect", v->name);

		assert_string_equal(t->name, name);
		free(name);
		assert_false(v->no_tracepoints);
		assert_true(t->no_tracepoints);
		assert_int_equal(t->kernel_kind, v->kernel_kind);
	}
	/* what the twins of source variants lost before variant_dup() */
	assert_string_equal(job->variants[3].ref, "v6.4-rc2");
	assert_string_equal(job->variants[4].ref, "v6.4-rc2");
	assert_int_equal(job->variants[4].revert.n, 1);
	assert_string_equal(job->variants[4].revert.v[0], "7efc3b726103");
	assert_int_equal(job->variants[4].cherry_pick.n, 2);
	assert_string_equal(job->variants[4].cherry_pick.v[1], "b2");
	assert_string_equal(job->variants[4].apply.v[0], "/jobs/p/series.mbox");
	assert_string_equal(kvlist_get(&job->variants[4].sysctl, "vm.swappiness"), "0");
	assert_string_equal(job->variants[4].cmdline, "quiet");
	assert_null(job->variants[5].ref);
	assert_string_equal(job->variants[5].thp_enabled, "always");
	job_free(job); /* the twins own their copies: no double free */
}

static void run_init(struct run *r, struct run_spec *spec, enum run_order_mode mode,
		     unsigned long seed)
{
	memset(r, 0, sizeof(*r));
	memset(spec, 0, sizeof(*spec));
	r->spec = spec;
	r->job = load();
	r->id = xstrdup("20260101-000000-k-0001");
	r->kernels = xcalloc(r->job->nvariants, sizeof(*r->kernels));
	r->rec.order.mode = mode;
	r->rec.order.seed = seed;
}

static void test_sequential_boots(void **state)
{
	struct run_spec spec;
	struct run r;
	static const char *const want[] = {
		"base/0..1", "base/2..3", "fix/0..1", "fix/2..3", "distro/0..1", "distro/2..3",
	};

	(void)state;
	run_init(&r, &spec, RUN_ORDER_SEQUENTIAL, 1);
	run_plan_boots(&r);
	run_record_order(&r, 0);
	assert_int_equal(r.nboots, 6);
	assert_true(r.rec.order.has_sequence);
	assert_int_equal(r.rec.order.sequence.n, 6);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(r.rec.order.sequence.v[i], want[i]);
	/* resumed: the order it started with stays */
	run_record_order(&r, 0);
	assert_int_equal(r.rec.order.sequence.n, 6);
	/* a round of --until-significant: one boot per variant, iteration 4 */
	run_add_round(&r, 1);
	assert_int_equal(r.job->iterations, 5);
	assert_int_equal(r.nboots, 9);
	assert_int_equal(r.rec.order.sequence.n, 9);
	assert_string_equal(r.rec.order.sequence.v[6], "base/4");
	assert_string_equal(r.rec.order.sequence.v[8], "distro/4");
	run_free(&r);
}

static void test_random_boots(void **state)
{
	struct run_spec spec;
	struct run a, b;
	unsigned int seen[3] = { 0 };

	(void)state;
	run_init(&a, &spec, RUN_ORDER_RANDOM, 42);
	run_init(&b, &spec, RUN_ORDER_RANDOM, 42);
	run_plan_boots(&a);
	run_plan_boots(&b);
	assert_int_equal(a.nboots, 6);
	for (size_t i = 0; i < a.nboots; i++) {
		/* the same seed, the same order */
		assert_int_equal(a.boots[i].variant, b.boots[i].variant);
		assert_int_equal(a.boots[i].first, b.boots[i].first);
		assert_int_equal(a.boots[i].count, 2);
		seen[a.boots[i].variant] += a.boots[i].count;
	}
	for (size_t v = 0; v < 3; v++)
		assert_int_equal(seen[v], 4); /* every iteration once */
	run_free(&a);
	run_free(&b);
}

static void test_find_boot(void **state)
{
	struct run_spec spec;
	struct run r;
	struct boot b;
	struct capture c;
	char *errs;

	(void)state;
	run_init(&r, &spec, RUN_ORDER_SEQUENTIAL, 1);
	r.rec.order.mode = RUN_ORDER_RANDOM;
	run_plan_boots(&r);
	r.kernels[1].build_pending = true; /* the queue builds fix's kernel */
	r.kernels[1].request = xstrdup("req-fix");
	run_record_boots(&r);
	assert_int_equal(r.rec.nboots, 6);
	for (size_t i = 0; i < r.rec.nboots; i++)
		if (!strcmp(r.rec.boots[i].variant, "fix"))
			assert_string_equal(r.rec.boots[i].build, "req-fix");
		else
			assert_null(r.rec.boots[i].build);
	assert_int_equal(run_find_boot(&r, "fix", 2, &b), 0);
	assert_int_equal(b.variant, 1);
	assert_int_equal(b.first, 2);
	assert_int_equal(b.count, 2);
	capture_start(&c);
	assert_int_equal(run_find_boot(&r, "fix", 1, &b), -1); /* not a boot's first */
	assert_int_equal(run_find_boot(&r, "nosuch", 0, &b), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "has no boot of variant 'fix' at iteration 1"));
	free(errs);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twins_of_source_variants),
		cmocka_unit_test(test_sequential_boots),
		cmocka_unit_test(test_random_boots),
		cmocka_unit_test(test_find_boot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
