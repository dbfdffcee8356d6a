// SPDX-License-Identifier: GPL-2.0
/*
 * test_bisect.c - lab/bisect/bisect.c (the verdicts of "mmlab bisect" and the
 * YAML of a step's job) and lab/bisect/bisect_store.c (its SQLite state).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bisect/bisect.h"
#include "bisect/bisect_store.h"
#include "job/job.h"
#include "repro/recipe.h"
#include "lib/util.h"

static const struct bisect_rule rule = {
	.alpha = 0.05,
	.min_change = 0.05,
	.better = 0,
	.near = 1.0 / 3,
};

static const double good[] = { 100, 101, 99, 100, 100 };
static const double bad[] = { 120, 121, 119, 120, 121 };

static void test_endpoints(void **state)
{
	static const double same[] = { 100, 102, 98, 101, 99 };
	static const double small[] = { 102, 103, 101, 102, 102 };
	static const double zeros[] = { 0, 0, 0 };
	static const double counts[] = { 12, 13, 12 };
	struct bisect_rule lower = rule, higher = rule;
	struct stats_test t;
	char why[512];

	(void)state;
	assert_true(bisect_endpoints_ok(good, 5, bad, 5, &rule, &t, why, sizeof(why)));
	assert_true(t.p < 0.001);
	assert_non_null(strstr(why, "+20.2 %"));
	/* no significant difference: refused, with the numbers */
	assert_false(bisect_endpoints_ok(good, 5, same, 5, &rule, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "not a significant difference"));
	assert_non_null(strstr(why, "good 100 "));
	/* significant but under --min-change (2 %) */
	assert_false(bisect_endpoints_ok(good, 5, small, 5, &rule, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "smaller than --min-change 5 %"));
	/* the direction: higher is worse when lower is better, not the reverse */
	lower.better = -1;
	higher.better = 1;
	assert_true(bisect_endpoints_ok(good, 5, bad, 5, &lower, &t, why, sizeof(why)));
	assert_false(bisect_endpoints_ok(good, 5, bad, 5, &higher, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "is better"));
	/* from an all-zero good endpoint (a counter that appears) */
	assert_true(bisect_endpoints_ok(zeros, 3, counts, 3, &rule, &t, why, sizeof(why)));
	/* one value is not a sample */
	assert_false(bisect_endpoints_ok(good, 1, bad, 5, &rule, &t, why, sizeof(why)));
	assert_non_null(strstr(why, "too few"));
}

static void test_step_metric(void **state)
{
	static const double like_good[] = { 100, 100, 101 };
	static const double like_bad[] = { 120, 119, 121 };
	static const double middle[] = { 110, 111, 109 };
	static const double noisy_good[] = { 80, 125, 100 };
	double pos, pw;
	char why[512];

	(void)state;
	assert_int_equal(bisect_call_metric(good, 5, bad, 5, like_good, 3, &rule, &pos, &pw, why,
					    sizeof(why)),
			 BISECT_GOOD);
	assert_true(pos < 0.1 && pw < 0.05);
	assert_int_equal(bisect_call_metric(good, 5, bad, 5, like_bad, 3, &rule, &pos, &pw, why,
					    sizeof(why)),
			 BISECT_BAD);
	assert_true(pos > 0.9 && pw < 0.05);
	assert_int_equal(bisect_call_metric(good, 5, bad, 5, middle, 3, &rule, &pos, &pw, why,
					    sizeof(why)),
			 BISECT_UNSURE);
	assert_non_null(strstr(why, "in between"));
	assert_true(isnan(pw));
	/* close to good on average but too noisy to differ from bad */
	assert_int_equal(bisect_call_metric(good, 5, bad, 5, noisy_good, 3, &rule, &pos, &pw, why,
					    sizeof(why)),
			 BISECT_UNSURE);
	assert_non_null(strstr(why, "not significantly different"));
	assert_int_equal(bisect_call_metric(good, 5, bad, 5, like_bad, 1, &rule, &pos, &pw, why,
					    sizeof(why)),
			 BISECT_UNSURE);
}

static void test_step_signature(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(bisect_call_signature(2, 0, 3, 2, why, sizeof(why)), BISECT_BAD);
	assert_int_equal(bisect_call_signature(0, 0, 3, 1, why, sizeof(why)), BISECT_GOOD);
	assert_int_equal(bisect_call_signature(1, 0, 3, 2, why, sizeof(why)), BISECT_UNSURE);
	assert_non_null(strstr(why, "1 of 3"));
	/* a run that ended early could have hidden it: not good */
	assert_int_equal(bisect_call_signature(0, 1, 3, 1, why, sizeof(why)), BISECT_UNSURE);
	assert_true(fabs(bisect_miss_prob(0.5, 3) - 0.125) < 1e-12);
	assert_true(bisect_miss_prob(1, 3) == 0);
	assert_true(bisect_miss_prob(0, 3) == 1);
}

static void test_signature_parse(void **state)
{
	struct expectation e;
	char err[256];

	(void)state;
	assert_int_equal(expect_from_signature("dmesg:WARNING: .* at mm/compaction.c", 2, &e, err,
					       sizeof(err)),
			 0);
	assert_int_equal(e.kind, EXPECT_DMESG);
	assert_int_equal(e.k, 2);
	expect_release(&e);
	assert_int_equal(expect_from_signature("metric:vmstat.compact_stall >= 10", 1, &e, err,
					       sizeof(err)),
			 0);
	assert_int_equal(e.kind, EXPECT_METRIC);
	assert_int_equal(e.op, EOP_GE);
	assert_true(e.value == 10);
	expect_release(&e);
	assert_int_equal(expect_from_signature("crash", 1, &e, err, sizeof(err)), 0);
	assert_int_equal(e.kind, EXPECT_CRASH);
	expect_release(&e);
	assert_int_equal(expect_from_signature("metric:a.b", 1, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no comparison"));
	assert_int_equal(expect_from_signature("metric:a.b > x", 1, &e, err, sizeof(err)), -1);
	assert_int_equal(expect_from_signature("dmesg:(", 1, &e, err, sizeof(err)), -1);
	assert_int_equal(expect_from_signature("oops", 1, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a signature"));
}

static const char job_yaml[] =
	"# a job\n"
	"name: usemem-2node\n"
	"kernels:\n"
	"  tree: /src/linux\n"
	"  config: { base: tinyconfig, fragments: [lab.config] }\n"
	"variants:\n"
	"  - { name: base, ref: v6.3 }\n"
	"  - name: tuned\n"
	"    ref: v6.3\n"
	"    sysctl: { vm.compaction_proactiveness: 40 }\n"
	"    thp: { defrag: always }\n"
	"    apply: [fix.patch]\n"
	"topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }\n"
	"workload: { name: usemem, params: { threads: [1, 2], size: 64M } }\n"
	"iterations: 5\n"
	"iterations_per_boot: 5\n";

static void test_step_yaml(void **state)
{
	char err[256], *y;
	struct job *job = NULL;
	const char *commit = "0123456789abcdef0123456789abcdef01234567";
	const char *no_kernels = "name: j\nvariants: [ { name: d, kernel: distro } ]\n";

	(void)state;
	y = bisect_step_yaml(job_yaml, strlen(job_yaml), 1, "bisect-x-1-0", "c-0123456789ab",
			     commit, NULL, 3, 3, err, sizeof(err));
	assert_non_null(y);
	assert_int_equal(job_load_buffer("step.yaml", y, strlen(y), "/jobs", &job), 0);
	assert_string_equal(job->name, "bisect-x-1-0");
	assert_int_equal(job->nvariants, 1);
	assert_string_equal(job->variants[0].name, "c-0123456789ab");
	assert_int_equal(job->variants[0].kernel_kind, KERNEL_SOURCE);
	assert_string_equal(job->variants[0].ref, commit);
	assert_string_equal(kvlist_get(&job->variants[0].sysctl, "vm.compaction_proactiveness"),
			    "40");
	assert_string_equal(job->variants[0].thp_defrag, "always");
	assert_int_equal(job->variants[0].apply.n, 1);
	assert_string_equal(job->variants[0].apply.v[0], "/jobs/fix.patch");
	assert_int_equal(job->iterations, 3);
	assert_int_equal(job->iterations_per_boot, 3);
	assert_int_equal(job->topo.nnodes, 2);
	assert_string_equal(job->kernels.tree, "/src/linux");
	assert_string_equal(kvlist_get(&job->workload.params, "threads"), "1,2");
	job_free(job);
	free(y);
	/* no such variant */
	/* another tree: kernels.tree replaced, the config kept */
	y = bisect_step_yaml(job_yaml, strlen(job_yaml), 0, "n", "v", commit, "/other/linux", 2, 1,
			     err, sizeof(err));
	assert_non_null(y);
	assert_int_equal(job_load_buffer("step.yaml", y, strlen(y), "/jobs", &job), 0);
	assert_string_equal(job->kernels.tree, "/other/linux");
	assert_int_equal(job->kernels.fragments.n, 1);
	assert_string_equal(job->kernels.fragments.v[0], "/jobs/lab.config");
	job_free(job);
	free(y);
	/* a job without kernels: gets one */
	y = bisect_step_yaml(no_kernels, strlen(no_kernels), 0, "n", "v", commit, "/src/l", 2, 1,
			     err, sizeof(err));
	assert_non_null(y);
	assert_non_null(strstr(y, "tree: \"/src/l\""));
	free(y);
	/* no such variant */
	assert_null(bisect_step_yaml(job_yaml, strlen(job_yaml), 2, "n", "v", commit, NULL, 3, 1,
				     err, sizeof(err)));
	assert_non_null(strstr(err, "no variant number 3"));
	assert_null(
		bisect_step_yaml("[1, 2", 5, 0, "n", "v", commit, NULL, 3, 1, err, sizeof(err)));
}

static void test_store(void **state)
{
	char t[] = "/tmp/test_bisect.XXXXXX";
	struct bstore *b;
	json_t *params = json_pack("{s:s}", "id", "abc"), *st, *steps, *d1, *d2;
	struct bstore_steps list;
	long long seq, again;

	(void)state;
	assert_non_null(mkdtemp(t));
	/* no state: a clear error, nothing created */
	assert_null(bstore_open(t, false));
	b = bstore_open(t, true);
	assert_non_null(b);
	assert_null(bstore_get(b));
	assert_int_equal(bstore_init(b, params), 0);
	assert_int_not_equal(bstore_init(b, params), 0); /* only one bisection */
	seq = bstore_step_open(b, "c1", "step");
	assert_true(seq > 0);
	/* a re-run after a kill finds the same unfinished row */
	again = bstore_step_open(b, "c1", "step");
	assert_int_equal(seq, again);
	d1 = json_pack("{s:[s]}", "runs", "r1");
	d2 = json_pack("{s:s}", "verdict", "good");
	assert_int_equal(bstore_step_set(b, seq, "running", d1), 0);
	assert_int_equal(bstore_step_set(b, seq, "done", d2), 0);
	/* once done, the commit gets a new row (a later bisection step) */
	assert_true(bstore_step_open(b, "c1", "step") > seq);
	assert_int_equal(bstore_set_status(b, "done", d1), 0);
	json_decref(d1);
	json_decref(d2);
	bstore_close(b);

	b = bstore_open(t, false);
	assert_non_null(b);
	st = bstore_get(b);
	assert_string_equal(json_string_value(json_object_get(st, "status")), "done");
	assert_string_equal(json_string_value(json_object_get(json_object_get(st, "params"), "id")),
			    "abc");
	assert_true(json_is_number(json_object_get(st, "finished")));
	steps = bstore_steps(b);
	assert_int_equal(json_array_size(steps), 2);
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_array_get(steps, 0), "data"), "verdict")),
			    "good");
	assert_true(json_is_number(json_object_get(json_array_get(steps, 0), "finished")));
	json_decref(steps);
	/* the same rows, typed */
	bstore_step_list(b, &list);
	assert_int_equal(list.n, 2);
	assert_int_equal(list.v[0].seq, seq);
	assert_string_equal(list.v[0].commit, "c1");
	assert_true(bstore_step_is(&list.v[0], "step", "done"));
	assert_false(bstore_step_is(&list.v[0], "good", NULL));
	assert_string_equal(json_string_value(json_object_get(list.v[0].data, "verdict")), "good");
	assert_false(isnan(list.v[0].finished));
	/* the new row: running, not finished */
	assert_true(bstore_step_is(&list.v[1], "step", "running"));
	assert_true(isnan(list.v[1].finished));
	bstore_steps_release(&list);
	json_decref(st);
	bstore_close(b);
	json_decref(params);
	rm_rf(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoints),      cmocka_unit_test(test_step_metric),
		cmocka_unit_test(test_step_signature), cmocka_unit_test(test_signature_parse),
		cmocka_unit_test(test_step_yaml),      cmocka_unit_test(test_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
