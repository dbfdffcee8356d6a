// SPDX-License-Identifier: GPL-2.0
/*
 * test_repro.c - verdicts of recipes on stored runs: each expectation kind
 * against each iteration status, k of n, runs missing, console lines that
 * match (CRLF consoles), the known-good comparison (Welch on metrics,
 * Fisher on counts) and the exit codes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "repro/recipe.h"
#include "repro/repro.h"
#include "repro/repro_json.h"
#include "lib/util.h"

static char tmpdir[] = "/tmp/mmlab-test-repro-XXXXXX";

static struct recipe *recipe(const char *variants, const char *extra, const char *expect)
{
	char *text = xasprintf("bug: { id: \"t#1\", title: test }\n"
			       "variants: %s\n%s\n"
			       "topology: { nodes: 2, memory_per_node: 256M }\n"
			       "workload: { name: usemem }\n"
			       "runs: 3\n"
			       "expect:\n%s",
			       variants, extra, expect);
	struct recipe *r = NULL;

	assert_int_equal(recipe_load_buffer("t.yaml", text, strlen(text), ".", &r), 0);
	free(text);
	return r;
}

/* an iteration: status, metrics as "name=value,..." and a console text */
static json_t *iter(const char *variant, int idx, const char *status, const char *metrics,
		    const char *console)
{
	json_t *m = json_object();
	char *copy = xstrdup(metrics ? metrics : ""), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');

		*eq = '\0';
		json_object_set_new(m, t, json_real(atof(eq + 1)));
	}
	free(copy);
	if (console) {
		char *dir = xasprintf("%s/%s/%d", tmpdir, variant, idx);
		char *p = xasprintf("%s/console.log", dir);

		assert_int_equal(mkdir_p(dir, 0755), 0);
		assert_int_equal(write_file_atomic(p, console, strlen(console), 0644), 0);
		free(dir);
		free(p);
	}
	return json_pack("{s:i, s:s, s:o}", "index", idx, "status", status, "metrics", m);
}

static json_t *run_of(json_t *vars)
{
	return json_pack("{s:s, s:{s:i}, s:o}", "run", "r1", "job_resolved", "iterations", 3,
			 "variants", vars);
}

static json_t *variant(const char *name, json_t *iters)
{
	return json_pack("{s:s, s:{s:s}, s:o}", "name", name, "kernel", "release", "6.1.0",
			 "iterations", iters);
}

/*
 * repro_evaluate() on run (the shape of "mmlab results show --json"), as
 * the "repro" document; that document read back (repro_eval_from_json())
 * is written again the same.
 */
static json_t *evaluate(const struct recipe *r, json_t *run)
{
	struct repro_run in;
	struct repro_eval ev, back;
	json_t *j, *again;

	assert_int_equal(repro_run_from_json(run, &in), 0);
	repro_evaluate(r, &in, tmpdir, &ev);
	j = repro_eval_to_json(&ev);
	assert_non_null(j);
	assert_int_equal(repro_eval_from_json(j, &back), 0);
	again = repro_eval_to_json(&back);
	assert_true(json_equal(j, again));
	json_decref(again);
	repro_eval_release(&back);
	repro_eval_release(&ev);
	repro_run_release(&in);
	return j;
}

static json_t *ex(json_t *eval, size_t var, size_t e)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(eval, "variants"), var), "expect"),
		e);
}

static const char *vverdict(json_t *eval, size_t var)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(eval, "variants"), var), "verdict"));
}

static long long num(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static void test_crash_k_of_n(void **state)
{
	struct recipe *r = recipe("[ { name: bad } ]", "",
				  "  - { crash: true, k: 2 }\n  - { crash: true, k: 3 }\n"
				  "  - { hang: true }\n");
	json_t *run = run_of(json_pack(
		"[o]", variant("bad", json_pack("[o, o, o]", iter("bad", 0, "crashed", NULL, NULL),
						iter("bad", 1, "ok", "time.elapsed_s=1", NULL),
						iter("bad", 2, "crashed", NULL, NULL)))));
	json_t *eval = evaluate(r, run);

	(void)state;
	assert_int_equal(num(ex(eval, 0, 0), "met"), 2);
	assert_int_equal(num(ex(eval, 0, 0), "not_met"), 1);
	assert_string_equal(json_string_value(json_object_get(ex(eval, 0, 0), "verdict")),
			    "REPRODUCED");
	assert_string_equal(json_string_value(json_object_get(ex(eval, 0, 1), "verdict")),
			    "INCONCLUSIVE");
	/* crashed and ok runs both rule a hang out */
	assert_int_equal(num(ex(eval, 0, 2), "not_met"), 3);
	assert_string_equal(json_string_value(json_object_get(ex(eval, 0, 2), "verdict")),
			    "NOT REPRODUCED");
	assert_string_equal(vverdict(eval, 0), "REPRODUCED");
	assert_string_equal(json_string_value(json_object_get(eval, "verdict")), "REPRODUCED");
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_REPRODUCED);
	json_decref(eval);
	json_decref(run);
	recipe_free(r);
}

static void test_metric(void **state)
{
	struct recipe *r = recipe(
		"[ { name: bad } ]", "",
		"  - { metric: \"vmstat.compact_stall / time.elapsed_s\", op: \">\", value: 10 }\n");
	json_t *run, *eval, *res;

	(void)state;
	/* 5/1 no, 50/2 yes, missing metric: unknown -> met in 1, k 1 */
	run = run_of(json_pack(
		"[o]",
		variant("bad", json_pack("[o, o, o]",
					 iter("bad", 0, "ok",
					      "vmstat.compact_stall=5,time.elapsed_s=1", NULL),
					 iter("bad", 1, "ok",
					      "vmstat.compact_stall=50,time.elapsed_s=2", NULL),
					 iter("bad", 2, "ok", "time.elapsed_s=2", NULL)))));
	eval = evaluate(r, run);
	assert_int_equal(num(ex(eval, 0, 0), "met"), 1);
	assert_int_equal(num(ex(eval, 0, 0), "not_met"), 1);
	assert_int_equal(num(ex(eval, 0, 0), "unknown"), 1);
	res = json_array_get(
		json_object_get(
			json_array_get(json_object_get(
					       json_array_get(json_object_get(eval, "variants"), 0),
					       "runs_table"),
				       1),
			"results"),
		0);
	assert_true(json_real_value(json_object_get(res, "value")) == 25);
	res = json_array_get(
		json_object_get(
			json_array_get(json_object_get(
					       json_array_get(json_object_get(eval, "variants"), 0),
					       "runs_table"),
				       2),
			"results"),
		0);
	assert_non_null(strstr(json_string_value(json_object_get(res, "why")),
			       "unknown metric \"vmstat.compact_stall\""));
	assert_string_equal(vverdict(eval, 0), "REPRODUCED");
	json_decref(eval);
	json_decref(run);

	/* none met, one division by zero: INCONCLUSIVE; none met, all known: NOT */
	run = run_of(json_pack(
		"[o]",
		variant("bad", json_pack("[o, o, o]",
					 iter("bad", 0, "ok",
					      "vmstat.compact_stall=5,time.elapsed_s=1", NULL),
					 iter("bad", 1, "ok",
					      "vmstat.compact_stall=5,time.elapsed_s=0", NULL),
					 iter("bad", 2, "crashed", NULL, NULL)))));
	eval = evaluate(r, run);
	assert_int_equal(num(ex(eval, 0, 0), "unknown"), 2);
	assert_string_equal(vverdict(eval, 0), "INCONCLUSIVE");
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_INCONCLUSIVE);
	json_decref(eval);
	json_decref(run);

	run = run_of(json_pack(
		"[o]",
		variant("bad", json_pack("[o, o, o]",
					 iter("bad", 0, "ok",
					      "vmstat.compact_stall=5,time.elapsed_s=1", NULL),
					 iter("bad", 1, "ok",
					      "vmstat.compact_stall=1,time.elapsed_s=1", NULL),
					 iter("bad", 2, "ok",
					      "vmstat.compact_stall=0,time.elapsed_s=1", NULL)))));
	eval = evaluate(r, run);
	assert_string_equal(vverdict(eval, 0), "NOT REPRODUCED");
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_NOT_REPRODUCED);
	json_decref(eval);
	json_decref(run);
	recipe_free(r);
}

static void test_dmesg(void **state)
{
	struct recipe *r = recipe("[ { name: bad } ]", "",
				  "  - { dmesg: \"WARNING: .* at mm/compaction.c\" }\n");
	json_t *run, *eval, *lines;

	(void)state;
	run = run_of(json_pack(
		"[o]",
		variant("bad",
			json_pack(
				"[o, o, o]",
				iter("bad", 0, "ok", NULL,
				     "boot\r\n[ 3.1] WARNING: CPU: 1 PID: 30 at mm/compaction.c:2470 kcompactd+0x1\r\nmore\r\n"),
				iter("bad", 1, "ok", NULL,
				     "WARNING: CPU: 1 PID: 30 at mm/slub.c:1\n"),
				iter("bad", 2, "timeout", NULL, "nothing yet")))));
	eval = evaluate(r, run);
	assert_int_equal(num(ex(eval, 0, 0), "met"), 1);
	assert_int_equal(num(ex(eval, 0, 0), "not_met"), 1);
	assert_int_equal(num(ex(eval, 0, 0), "unknown"), 1);
	lines = json_object_get(
		json_array_get(
			json_object_get(
				json_array_get(
					json_object_get(
						json_array_get(json_object_get(eval, "variants"), 0),
						"runs_table"),
					0),
				"results"),
			0),
		"lines");
	assert_int_equal(json_array_size(lines), 1);
	/* the line as printed, without the CR */
	assert_string_equal(json_string_value(json_array_get(lines, 0)),
			    "[ 3.1] WARNING: CPU: 1 PID: 30 at mm/compaction.c:2470 kcompactd+0x1");
	assert_string_equal(vverdict(eval, 0), "REPRODUCED");
	json_decref(eval);
	json_decref(run);
	/* one run alone, as a bisect step judges it: no detail asked */
	assert_int_equal(repro_eval_run(&r->expect[0], "ok", NULL, "nothing\n", NULL),
			 REPRO_NOT_MET);
	assert_int_equal(repro_eval_run(&r->expect[0], "ok", NULL,
					"WARNING: CPU: 1 PID: 30 at mm/compaction.c:1\n", NULL),
			 REPRO_MET);
	assert_int_equal(repro_eval_run(&r->expect[0], "timeout", NULL, "x\n", NULL),
			 REPRO_UNKNOWN);
	recipe_free(r);
}

/* runs never stored (an interrupted run) count as unknown */
static void test_missing_runs(void **state)
{
	struct recipe *r = recipe("[ { name: bad } ]", "", "  - { crash: true }\n");
	json_t *run = run_of(json_pack(
		"[o]", variant("bad", json_pack("[o]", iter("bad", 0, "ok", NULL, NULL)))));
	json_t *eval = evaluate(r, run);

	(void)state;
	assert_int_equal(num(ex(eval, 0, 0), "unknown"), 2);
	assert_string_equal(vverdict(eval, 0), "INCONCLUSIVE");
	json_decref(eval);
	json_decref(run);
	recipe_free(r);
}

static void test_good_variant(void **state)
{
	struct recipe *r = recipe("[ { name: bad }, { name: fine } ]", "good: fine",
				  "  - { metric: \"time.system_s\", op: \">\", value: 5 }\n"
				  "  - { crash: true }\n");
	json_t *run, *eval, *cmp;
	struct repro_report rep = { 0 };
	FILE *f;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	run = run_of(json_pack(
		"[o, o]",
		variant("bad",
			json_pack("[o, o, o]", iter("bad", 0, "ok", "time.system_s=10", NULL),
				  iter("bad", 1, "ok", "time.system_s=11", NULL),
				  iter("bad", 2, "ok", "time.system_s=12", NULL))),
		variant("fine",
			json_pack("[o, o, o]", iter("fine", 0, "ok", "time.system_s=1", NULL),
				  iter("fine", 1, "ok", "time.system_s=1.5", NULL),
				  iter("fine", 2, "ok", "time.system_s=2", NULL)))));
	eval = evaluate(r, run);
	assert_string_equal(vverdict(eval, 0), "REPRODUCED");
	assert_string_equal(vverdict(eval, 1), "NOT REPRODUCED");
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_REPRODUCED);
	assert_int_equal(json_array_size(json_object_get(eval, "comparisons")), 2);
	cmp = json_array_get(json_object_get(eval, "comparisons"), 0);
	assert_string_equal(json_string_value(json_object_get(cmp, "test")), "welch");
	assert_string_equal(json_string_value(json_object_get(cmp, "variant")), "bad");
	assert_string_equal(json_string_value(json_object_get(cmp, "good")), "fine");
	assert_true(json_is_true(json_object_get(cmp, "significant")));
	assert_true(json_real_value(json_object_get(cmp, "p")) < 0.01);
	cmp = json_array_get(json_object_get(eval, "comparisons"), 1);
	assert_string_equal(json_string_value(json_object_get(cmp, "test")), "fisher");
	/* no crash on either side: every run tells, p = 1 */
	assert_true(json_real_value(json_object_get(cmp, "p")) == 1);
	assert_true(json_is_false(json_object_get(cmp, "significant")));

	/* the text names the verdicts and the comparison */
	f = open_memstream(&text, &len);
	assert_int_equal(repro_eval_from_json(eval, &rep.eval), 0);
	rep.info.file = xstrdup(r->path);
	rep.info.bug_id = xstrdup(r->bug_id);
	rep.info.bug_title = xstrdup(r->bug_title);
	repro_print(f, &rep);
	fclose(f);
	assert_non_null(strstr(text, "variant bad (kernel 6.1.0): REPRODUCED"));
	assert_non_null(strstr(text, "variant fine [known good] (kernel 6.1.0): NOT REPRODUCED"));
	assert_non_null(strstr(text, "differs significantly"));
	assert_non_null(strstr(text, "\nverdict: REPRODUCED\n"));
	assert_non_null(strstr(text, "recipe t.yaml: t#1 test\n"));
	free(text);
	repro_report_release(&rep);
	json_decref(eval);
	json_decref(run);

	/* the good one reproducing too is said, and does not decide the verdict */
	run = run_of(json_pack(
		"[o, o]",
		variant("bad", json_pack("[o, o, o]", iter("bad", 0, "ok", "time.system_s=1", NULL),
					 iter("bad", 1, "ok", "time.system_s=1", NULL),
					 iter("bad", 2, "ok", "time.system_s=1", NULL))),
		variant("fine",
			json_pack("[o, o, o]", iter("fine", 0, "ok", "time.system_s=9", NULL),
				  iter("fine", 1, "ok", "time.system_s=9", NULL),
				  iter("fine", 2, "ok", "time.system_s=9", NULL)))));
	eval = evaluate(r, run);
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_NOT_REPRODUCED);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(eval, "notes"), 0)),
			       "'fine' reproduces too"));
	json_decref(eval);
	json_decref(run);

	/* every bad run timed out: INCONCLUSIVE, and no test on either kind */
	run = run_of(json_pack(
		"[o, o]",
		variant("bad", json_pack("[o, o, o]", iter("bad", 0, "timeout", NULL, NULL),
					 iter("bad", 1, "timeout", NULL, NULL),
					 iter("bad", 2, "timeout", NULL, NULL))),
		variant("fine",
			json_pack("[o, o, o]", iter("fine", 0, "ok", "time.system_s=1", NULL),
				  iter("fine", 1, "ok", "time.system_s=1", NULL),
				  iter("fine", 2, "ok", "time.system_s=1", NULL)))));
	eval = evaluate(r, run);
	assert_int_equal(num(eval, "exit"), REPRO_EXIT_INCONCLUSIVE);
	cmp = json_array_get(json_object_get(eval, "comparisons"), 0);
	assert_true(json_is_null(json_object_get(json_object_get(cmp, "bad"), "mean")));
	assert_non_null(json_string_value(json_object_get(cmp, "why")));
	cmp = json_array_get(json_object_get(eval, "comparisons"), 1);
	assert_null(json_object_get(cmp, "p"));
	assert_string_equal(json_string_value(json_object_get(cmp, "why")),
			    "no run that tells on one side");
	json_decref(eval);
	json_decref(run);
	recipe_free(r);
}

/* a copy of eval with the value at a path set (v NULL: deleted); read back: 0 or -1 */
static int read_mutated(json_t *eval, const char *var_key, const char *key, json_t *v)
{
	json_t *copy = json_deep_copy(eval), *o = copy;
	struct repro_eval back;
	int ret;

	if (var_key)
		o = json_array_get(json_object_get(copy, var_key), 0);
	if (v)
		json_object_set_new(o, key, v);
	else
		json_object_del(o, key);
	ret = repro_eval_from_json(copy, &back);
	if (!ret)
		repro_eval_release(&back);
	else
		assert_int_equal(back.nvariants, 0); /* left empty */
	json_decref(copy);
	return ret;
}

/* a stored verdict is a user's file: every field is checked, every array bounded */
static void test_eval_json_refuses(void **state)
{
	struct recipe *r = recipe("[ { name: bad }, { name: fine } ]", "good: fine",
				  "  - { metric: \"time.system_s\", op: \">\", value: 5 }\n"
				  "  - { dmesg: \"BUG\" }\n");
	json_t *run = run_of(json_pack(
		"[o, o]",
		variant("bad",
			json_pack("[o]", iter("bad", 0, "ok", "time.system_s=9", "BUG: x\n"))),
		variant("fine", json_pack("[o]", iter("fine", 0, "ok", "time.system_s=1", "")))));
	json_t *eval = evaluate(r, run), *lines = json_array(), *it;
	struct repro_run in;
	struct repro_iter iter_rec;

	(void)state;
	assert_int_equal(read_mutated(eval, NULL, "note", json_true()), 0); /* unknown: ignored */
	/* no run id, no kernel release: null, as json_pack() writes them */
	assert_int_equal(read_mutated(eval, NULL, "run", json_null()), 0);
	assert_int_equal(read_mutated(eval, "variants", "kernel", json_null()), 0);
	assert_int_equal(read_mutated(eval, NULL, "verdict", json_string("MAYBE")), -1);
	assert_int_equal(read_mutated(eval, NULL, "verdict", NULL), -1);
	/* exit must be the verdict's */
	assert_int_equal(read_mutated(eval, NULL, "exit", json_integer(1)), -1);
	assert_int_equal(read_mutated(eval, NULL, "variants", json_object()), -1);
	assert_int_equal(read_mutated(eval, NULL, "notes", json_pack("[i]", 1)), -1);
	assert_int_equal(read_mutated(eval, NULL, "comparisons", json_pack("[{}]")), -1);
	assert_int_equal(read_mutated(eval, "variants", "role", NULL), -1);
	assert_int_equal(read_mutated(eval, "variants", "runs", json_integer(-1)), -1);
	assert_int_equal(read_mutated(eval, "variants", "kernel", json_integer(6)), -1);
	assert_int_equal(read_mutated(eval, "variants", "expect",
				      json_pack("[{s:s}]", "verdict", "REPRODUCED")),
			 -1);
	/* more cells in a run than expectations */
	assert_int_equal(read_mutated(eval, "variants", "runs_table",
				      json_pack("[{s:i, s:s, s:[{s:s}, {s:s}, {s:s}]}]", "index", 0,
						"status", "ok", "results", "outcome", "met",
						"outcome", "met", "outcome", "met")),
			 -1);
	assert_int_equal(read_mutated(eval, "variants", "runs_table",
				      json_pack("[{s:i, s:s, s:[{s:s}]}]", "index", 0, "status",
						"ok", "results", "outcome", "perhaps")),
			 -1);
	/* at most 64 console lines in a cell */
	for (int i = 0; i < 65; i++)
		json_array_append_new(lines, json_string("BUG"));
	assert_int_equal(read_mutated(eval, "variants", "runs_table",
				      json_pack("[{s:i, s:s, s:[{s:s, s:o}]}]", "index", 0,
						"status", "ok", "results", "outcome", "met",
						"lines", lines)),
			 -1);
	assert_int_equal(read_mutated(eval, "comparisons", "test", json_string("t")), -1);
	assert_int_equal(read_mutated(eval, "comparisons", "bad", json_string("x")), -1);
	assert_int_equal(read_mutated(eval, "comparisons", "significant", NULL), -1);
	assert_int_equal(read_mutated(eval, "comparisons", "p", json_string("0.1")), -1);
	json_decref(eval);

	/* the run judged: an object; an iteration without a status has none */
	assert_int_equal(repro_run_from_json(json_array_get(run, 0), &in), -1);
	assert_int_equal(in.nvariants, 0);
	it = json_pack("{s:i}", "index", 4);
	assert_int_equal(repro_iter_from_json(it, 9, &iter_rec), 0);
	assert_int_equal(iter_rec.index, 4);
	assert_null(iter_rec.status);
	assert_null(iter_rec.metrics);
	free(iter_rec.status);
	json_decref(it);
	assert_int_equal(repro_iter_from_json(json_null(), 9, &iter_rec), -1);
	json_decref(run);
	recipe_free(r);
}

static void test_fisher(void **state)
{
	(void)state;
	/* R: fisher.test(matrix(c(3,0,0,3),2))$p.value = 0.1 */
	assert_true(fabs(repro_fisher(3, 0, 0, 3) - 0.1) < 1e-12);
	/* 5/5 against 0/5: 2 / choose(10, 5) = 0.007937 */
	assert_true(fabs(repro_fisher(5, 0, 0, 5) - 2.0 / 252) < 1e-12);
	/* R: fisher.test(matrix(c(4,1,1,4),2))$p.value = 0.2063492 */
	assert_true(fabs(repro_fisher(4, 1, 1, 4) - 0.2063492) < 1e-6);
	assert_true(fabs(repro_fisher(2, 2, 2, 2) - 1) < 1e-12);
	assert_true(repro_fisher(0, 0, 0, 0) == 1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crash_k_of_n),
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_dmesg),
		cmocka_unit_test(test_missing_runs),
		cmocka_unit_test(test_good_variant),
		cmocka_unit_test(test_fisher),
		cmocka_unit_test(test_eval_json_refuses),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
