// SPDX-License-Identifier: GPL-2.0
/*
 * test_bisect_params.c - lab/bisect/params_json.c: a bisection's parameters to
 * their stored JSON and back (every field), the error naming a missing or
 * ill-typed key, and bisect_store.c's typed load of them (a damaged state
 * is an error, not a silent NULL).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "bisect/bisect_store.h"
#include "bisect/params.h"
#include "lib/util.h"

static void fill_params(struct bisect_params *p)
{
	memset(p, 0, sizeof(*p));
	p->id = xstrdup("a1b2c3");
	p->tree = xstrdup("/src/linux");
	p->job_file = xstrdup("/jobs/j.yaml");
	p->job_dir = xstrdup("/jobs");
	p->job_text = xstrdup("name: j\n");
	p->variant_name = xstrdup("tuned");
	p->variant = 1;
	p->good = xstrdup("1111111111111111111111111111111111111111");
	p->bad = xstrdup("2222222222222222222222222222222222222222");
	p->good_ref = xstrdup("v6.3");
	p->bad_ref = xstrdup("v6.4");
	p->metric = xstrdup("vmstat.compact_stall / time.elapsed_s");
	p->better = -1;
	p->min_change = 0.5;
	p->alpha = 0.01;
	p->iterations = 4;
	p->max_iterations = 12;
	p->k = 1;
	p->iterations_per_boot = 2;
	p->reverse = true;
	strlist_push(&p->paths, "mm/");
	strlist_push(&p->paths, "include/linux/mm.h");
	p->range_commits = 4242;
}

/* from_json of j with key set to v (NULL: removed); the error text */
static char *from_json_err(json_t *j, const char *key, json_t *v)
{
	json_t *c = json_deep_copy(j);
	struct bisect_params p;
	char err[256];

	if (v)
		json_object_set_new(c, key, v);
	else
		json_object_del(c, key);
	assert_int_equal(bisect_params_from_json(c, &p, err, sizeof(err)), -1);
	assert_null(p.id);
	json_decref(c);
	return xstrdup(err);
}

static void assert_err(char *err, const char *want)
{
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
	free(err);
}

static void test_params(void **state)
{
	struct bisect_params p, q;
	json_t *j, *k;
	char err[256];

	(void)state;
	fill_params(&p);
	j = bisect_params_to_json(&p);
	assert_string_equal(json_string_value(json_object_get(j, "direction")), "lower");
	assert_true(json_is_null(json_object_get(j, "signature")));
	assert_int_equal(bisect_params_from_json(j, &q, err, sizeof(err)), 0);
	/* every field comes back */
	assert_string_equal(q.id, p.id);
	assert_string_equal(q.tree, p.tree);
	assert_string_equal(q.job_file, p.job_file);
	assert_string_equal(q.job_dir, p.job_dir);
	assert_string_equal(q.job_text, p.job_text);
	assert_string_equal(q.variant_name, p.variant_name);
	assert_int_equal(q.variant, 1);
	assert_string_equal(q.good, p.good);
	assert_string_equal(q.bad, p.bad);
	assert_string_equal(q.good_ref, "v6.3");
	assert_string_equal(q.bad_ref, "v6.4");
	assert_string_equal(q.metric, p.metric);
	assert_null(q.signature);
	assert_int_equal(q.better, -1);
	assert_true(q.min_change == 0.5 && q.alpha == 0.01);
	assert_int_equal(q.iterations, 4);
	assert_int_equal(q.max_iterations, 12);
	assert_int_equal(q.k, 1);
	assert_int_equal(q.iterations_per_boot, 2);
	assert_true(q.reverse);
	assert_int_equal(q.paths.n, 2);
	assert_string_equal(q.paths.v[1], "include/linux/mm.h");
	assert_int_equal(q.range_commits, 4242);
	/* and the stored form is the same again */
	k = bisect_params_to_json(&q);
	assert_true(json_equal(j, k));
	json_decref(k);
	bisect_params_release(&q);

	/* a missing or ill-typed key is an error naming it, never a silent NULL */
	assert_err(from_json_err(j, "tree", NULL), "no 'tree'");
	assert_err(from_json_err(j, "id", json_null()), "no 'id'");
	assert_err(from_json_err(j, "good", json_integer(1)), "'good' is not a string");
	assert_err(from_json_err(j, "iterations", json_string("4")),
		   "'iterations' is not an integer");
	assert_err(from_json_err(j, "iterations", json_integer(0)), "'iterations'");
	assert_err(from_json_err(j, "k", NULL), "no 'k'");
	assert_err(from_json_err(j, "alpha", json_string("0.05")), "'alpha' is not a number");
	assert_err(from_json_err(j, "reverse", json_integer(1)), "'reverse' is not true or false");
	assert_err(from_json_err(j, "paths", json_pack("[i]", 3)), "'paths'");
	assert_err(from_json_err(j, "direction", json_string("sideways")), "'direction'");
	assert_err(from_json_err(j, "signature", json_string("crash")), "one of 'metric'");
	assert_err(from_json_err(j, "metric", NULL), "one of 'metric'");
	assert_err(from_json_err(j, "max_iterations", json_integer(3)), "'max_iterations'");
	k = json_array();
	assert_int_equal(bisect_params_from_json(k, &q, err, sizeof(err)), -1);
	json_decref(k);
	/* the optional ones may be missing */
	k = json_deep_copy(j);
	json_object_del(k, "good_ref");
	json_object_set_new(k, "direction", json_null());
	assert_int_equal(bisect_params_from_json(k, &q, err, sizeof(err)), 0);
	assert_null(q.good_ref);
	assert_int_equal(q.better, 0);
	bisect_params_release(&q);
	json_decref(k);
	json_decref(j);
	bisect_params_release(&p);
}

static void test_store_load(void **state)
{
	char t[] = "/tmp/test_bisect_params.XXXXXX";
	struct bisect_params p;
	struct bisect_state st;
	struct bstore *b;
	struct capture c;
	json_t *j, *res;
	char *err;

	(void)state;
	assert_non_null(mkdtemp(t));
	b = bstore_open(t, true);
	assert_non_null(b);
	assert_int_equal(bstore_load(b, &st), 1); /* none yet */
	fill_params(&p);
	assert_int_equal(bstore_create(b, &p), 0);
	res = json_pack("{s:s}", "refused", "alike");
	assert_int_equal(bstore_set_status(b, "refused", res), 0);
	assert_int_equal(bstore_set_progress(b, "Bisecting: 1 revision left"), 0);
	assert_int_equal(bstore_load(b, &st), 0);
	assert_int_equal(st.status, BISECT_REFUSED);
	assert_string_equal(st.params.id, p.id);
	assert_string_equal(st.params.paths.v[0], "mm/");
	assert_string_equal(st.progress, "Bisecting: 1 revision left");
	assert_true(json_equal(st.result, res));
	assert_true(isfinite(st.finished) && st.started > 0);
	/* the state as 'status --json' prints it: the stored parameters */
	j = bisect_state_json(&st);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "refused");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "params"), "bad_ref")),
		"v6.4");
	json_decref(j);
	bisect_state_release(&st);
	bstore_close(b);
	rm_rf(t);

	/* a row whose parameters lack a key: damaged, said once, with the key */
	strcpy(t + strlen(t) - 6, "XXXXXX");
	assert_non_null(mkdtemp(t));
	b = bstore_open(t, true);
	j = bisect_params_to_json(&p);
	json_object_del(j, "iterations");
	assert_int_equal(bstore_init(b, j), 0);
	capture_start(&c);
	assert_int_equal(bstore_load(b, &st), -1);
	err = capture_end(&c);
	assert_non_null(strstr(err, "is damaged (no 'iterations')"));
	assert_non_null(strstr(err, "'mmlab bisect reset'"));
	free(err);
	json_decref(j);
	json_decref(res);
	bstore_close(b);
	bisect_params_release(&p);
	rm_rf(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_store_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
