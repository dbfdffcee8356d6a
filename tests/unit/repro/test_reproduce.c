// SPDX-License-Identifier: GPL-2.0
/*
 * test_reproduce.c - the engine of "mmlab repro" (lab/repro/reproduce.c)
 * without booting: finding a recipe by path or name, listing the recipe
 * directory (runnable or not, with the first error), narrowing a recipe to
 * what --variant, --kernel and --runs ask, and judging a stored run: the
 * verdict stored with the run and shown again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "repro/repro.h"
#include "repro/repro_json.h"
#include "repro/reproduce.h"
#include "store/store.h"
#include "store/run_record.h"
#include "lib/util.h"
#include "store_fixture.h"

static char dir[] = "/tmp/mmlab-test-reproduce-XXXXXX";

static const char two_variants[] =
	"bug: { id: \"t#1\", title: test }\n"
	"variants: [ { name: good, kernel: distro }, { name: bad, kernel: distro } ]\n"
	"good: good\n"
	"topology: { nodes: 2, memory_per_node: 256M }\n"
	"workload: { name: usemem }\n"
	"runs: 3\n"
	"expect:\n"
	"  - { crash: true, k: 2 }\n";

static char *write_in(const char *sub, const char *name, const char *text)
{
	char *d = xasprintf("%s/%s", dir, sub), *p = xasprintf("%s/%s", d, name);

	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(d);
	return p;
}

static struct recipe *load(const char *text)
{
	struct recipe *r = NULL;

	assert_int_equal(recipe_load_buffer("t.yaml", text, strlen(text), dir, &r), 0);
	return r;
}

static void test_find(void **state)
{
	char *rdir = xasprintf("%s/recipes", dir), *a, *b, *p;
	struct capture c;
	char *err;

	(void)state;
	a = write_in("recipes", "a.yaml", two_variants);
	b = write_in("recipes", "b", two_variants);
	setenv("MMLAB_REPRO_DIR", rdir, 1);
	p = repro_recipe_dir();
	assert_string_equal(p, rdir);
	free(p);
	p = repro_find_recipe("a"); /* NAME.yaml */
	assert_string_equal(p, a);
	free(p);
	p = repro_find_recipe("b"); /* NAME */
	assert_string_equal(p, b);
	free(p);
	p = repro_find_recipe("some/where.yaml"); /* a path, as given */
	assert_string_equal(p, "some/where.yaml");
	free(p);
	capture_start(&c);
	assert_null(repro_find_recipe("nope"));
	err = capture_end(&c);
	assert_non_null(strstr(err, "no recipe 'nope'"));
	assert_non_null(strstr(err, rdir));
	free(err);
	unsetenv("MMLAB_REPRO_DIR");
	free(a);
	free(b);
	free(rdir);
}

static void test_list(void **state)
{
	char *ldir = xasprintf("%s/list", dir), *got;
	struct repro_entries entries;
	json_t *l, *e;
	struct capture c;
	char *err;

	(void)state;
	free(write_in("list", "zz.yaml", two_variants));
	free(write_in("list", "broken.yaml", "bug: { id: x, title: y }\nvariants: 3\n"));
	free(write_in("list", "README", "not a recipe"));
	setenv("MMLAB_REPRO_DIR", ldir, 1);
	assert_int_equal(repro_list(&got, &entries), 0);
	assert_string_equal(got, ldir);
	assert_int_equal(entries.n, 2); /* sorted, *.yaml only */
	assert_string_equal(entries.v[0].name, "broken");
	assert_false(entries.v[0].runnable);
	assert_string_equal(entries.v[1].workload, "usemem");
	/* --list --json */
	l = repro_entries_json(&entries);
	repro_entries_release(&entries);
	e = json_array_get(l, 0);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "broken");
	assert_true(json_is_false(json_object_get(e, "runnable")));
	assert_true(strlen(json_string_value(json_object_get(e, "why"))) > 0);
	e = json_array_get(l, 1);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "zz");
	assert_true(json_is_true(json_object_get(e, "runnable")));
	assert_string_equal(json_string_value(json_object_get(e, "bug")), "t#1");
	assert_string_equal(json_string_value(json_object_get(e, "workload")), "usemem");
	json_decref(l);
	free(got);
	/* a directory that is not there */
	setenv("MMLAB_REPRO_DIR", "/nonexistent/recipes", 1);
	capture_start(&c);
	assert_int_equal(repro_list(&got, &entries), -1);
	err = capture_end(&c);
	assert_int_equal(entries.n, 0);
	assert_non_null(strstr(err, "cannot read the recipe directory /nonexistent/recipes"));
	free(err);
	free(got);
	unsetenv("MMLAB_REPRO_DIR");
	free(ldir);
}

static void test_overrides(void **state)
{
	struct repro_overrides ov = { 0 };
	struct recipe *r;
	struct capture c;
	char *err;

	(void)state;
	/* nothing asked: nothing changed */
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_int_equal(r->job->nvariants, 2);
	assert_string_equal(r->good, "good");
	recipe_free(r);
	/* --variant bad: alone, and no known-good variant left to compare with */
	ov.variant = "bad";
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_int_equal(r->job->nvariants, 1);
	assert_string_equal(r->job->variants[0].name, "bad");
	assert_null(r->good);
	recipe_free(r);
	/* --variant good: it stays the known-good one */
	ov.variant = "good";
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_string_equal(r->good, "good");
	recipe_free(r);
	ov.variant = "nope";
	r = load(two_variants);
	capture_start(&c);
	assert_int_equal(repro_apply_overrides(r, &ov), -1);
	err = capture_end(&c);
	assert_non_null(strstr(err, "--variant nope"));
	free(err);
	recipe_free(r);
	/* --kernel PATH: the first tested variant (not the known-good first one) */
	ov.variant = NULL;
	ov.kernel = "k/bzImage";
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_int_equal(r->job->nvariants, 1);
	assert_string_equal(r->job->variants[0].name, "bad");
	assert_int_equal(r->job->variants[0].kernel_kind, KERNEL_PATH);
	assert_true(r->job->variants[0].kernel_path[0] == '/');
	assert_non_null(strstr(r->job->variants[0].kernel_path, "/k/bzImage"));
	assert_null(r->good);
	recipe_free(r);
	ov.kernel = "distro";
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_int_equal(r->job->variants[0].kernel_kind, KERNEL_DISTRO);
	assert_null(r->job->variants[0].kernel_path);
	recipe_free(r);
	/* --runs: fewer than an expectation's k is refused */
	ov.kernel = NULL;
	ov.runs = 2;
	r = load(two_variants);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	assert_int_equal(r->job->iterations, 2);
	recipe_free(r);
	ov.runs = 1;
	r = load(two_variants);
	capture_start(&c);
	assert_int_equal(repro_apply_overrides(r, &ov), -1);
	err = capture_end(&c);
	assert_non_null(strstr(err, "needs k = 2 runs but only 1 are asked"));
	free(err);
	recipe_free(r);
}

/* a stored run of variant bad: iterations with these statuses */
static char *stored_run(struct store *s, const char *const *statuses, size_t n)
{
	char *id = store_run_create(s, "repro");
	json_t *r;

	assert_non_null(id);
	r = json_pack("{s:s, s:s, s:s, s:s, s:{s:I}, s:[{s:s}]}", "run", id, "job", "repro",
		      "status", "complete", "created", "2026-12-02T00:00:00Z", "job_resolved",
		      "iterations", (json_int_t)n, "variants", "name", "bad");
	assert_int_equal(run_json_write(s, id, r), 0);
	json_decref(r);
	for (size_t i = 0; i < n; i++) {
		json_t *it = json_pack("{s:i, s:s, s:{}}", "index", (int)i, "status", statuses[i],
				       "metrics");

		assert_int_equal(store_iteration_write(s, id, "bad", (unsigned int)i, it), 0);
		json_decref(it);
	}
	return id;
}

static void test_judge_show(void **state)
{
	static const char *const crashed[] = { "crashed", "crashed", "ok" };
	static const char *const fine[] = { "ok", "ok", "ok" };
	struct repro_env env = { .results_dir = NULL };
	char *results = xasprintf("%s/results", dir), *id, *plain, *err;
	struct store *s = store_open(results);
	struct repro_overrides ov = { .variant = "bad" };
	struct recipe *r = load(two_variants);
	struct repro_report out, shown;
	struct run_record rec;
	json_t *rj, *a, *b;
	struct capture c;

	(void)state;
	env.results_dir = results;
	assert_non_null(s);
	assert_int_equal(repro_apply_overrides(r, &ov), 0);
	id = stored_run(s, crashed, 3);
	assert_int_equal(repro_judge(s, id, r, &out), 0);
	assert_int_equal(out.eval.verdict, REPRO_REPRODUCED);
	a = repro_report_to_json(&out);
	assert_string_equal(json_string_value(json_object_get(a, "run")), id);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(a, "repro"), "verdict")),
		"REPRODUCED");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "repro"), "exit")),
			 REPRO_EXIT_REPRODUCED);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "recipe"), "runs")),
			 3);
	/* stored with the run, and shown again the same */
	assert_int_equal(store_record_read(s, id, &rec), 0);
	assert_non_null(rec.recipe);
	assert_non_null(rec.repro);
	run_record_release(&rec);
	assert_int_equal(repro_show(&env, id, &shown), 0);
	assert_int_equal(shown.eval.verdict, REPRO_REPRODUCED);
	b = repro_report_to_json(&shown);
	assert_true(json_equal(a, b));
	assert_string_equal(shown.info.bug_id, r->bug_id);
	json_decref(a);
	json_decref(b);
	repro_report_release(&shown);
	repro_report_release(&out);
	free(id);
	/* none of the runs crashed: not reproduced */
	id = stored_run(s, fine, 3);
	assert_int_equal(repro_judge(s, id, r, &out), 0);
	assert_int_equal(out.eval.verdict, REPRO_NOT_REPRODUCED);
	repro_report_release(&out);
	/* a verdict edited into nonsense is refused, not shown */
	assert_int_equal(store_record_read(s, id, &rec), 0);
	json_object_set_new(rec.repro, "verdict", json_string("YES"));
	assert_int_equal(store_record_write(s, id, &rec), 0);
	run_record_release(&rec);
	capture_start(&c);
	assert_int_equal(repro_show(&env, id, &shown), -1);
	err = capture_end(&c);
	assert_non_null(strstr(err, "does not read as one"));
	free(err);
	free(id);
	/* a run without a verdict is no repro run */
	plain = store_run_create(s, "plain");
	rj = json_pack("{s:s, s:s, s:s, s:[]}", "run", plain, "job", "plain", "status", "complete",
		       "variants");
	assert_int_equal(run_json_write(s, plain, rj), 0);
	json_decref(rj);
	capture_start(&c);
	assert_int_equal(repro_show(&env, plain, &shown), -1);
	err = capture_end(&c);
	assert_null(shown.eval.variants);
	assert_non_null(strstr(err, "is not a repro run"));
	free(err);
	free(plain);
	recipe_free(r);
	store_close(s);
	free(results);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_judge_show),
	};

	lab_quiet = true;
	return cmocka_run_group_tests(tests, setup, teardown);
}
