// SPDX-License-Identifier: GPL-2.0
/*
 * test_track_state.c - a track's state.json as struct track_state
 * (lab/track/state_json.c): a state the earlier writer made reads and
 * writes back byte for byte, every part of it lands in its field, bad
 * states are refused with what is wrong; and what lab/track/ reads of a
 * stored run (lab/track/run_json.c).
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
#include "lib/util.h"
#include "store/run_record.h"
#include "store/run_data.h"
#include "track/runs.h"
#include "track/state.h"

#define SHA_A "1111111111111111111111111111111111111111"
#define SHA_B "2222222222222222222222222222222222222222"

/* a candidate as detect.c packed it */
static json_t *old_cand(const char *metric, const char *before, const char *after, double p,
			bool sig)
{
	json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, "
			      "s:I, s:I, s:b}",
			      "job", "j", "metric", metric, "before", before, "after", after, "p",
			      p, "stat", 3.25, "mean_before", 100.5, "mean_after", 80.0,
			      "median_before", 101.0, "median_after", 79.5, "rel", -0.2128, "perms",
			      (json_int_t)999, "min_change", 0.02, "kernels_before", (json_int_t)4,
			      "kernels_after", (json_int_t)3, "kept", 1);

	json_object_set_new(c, "kernels", json_integer(7));
	json_object_set_new(c, "q", json_real(p * 3));
	json_object_set_new(c, "significant", json_boolean(sig));
	return c;
}

/* a confirmation test as confirm.c packed it */
static json_t *old_test(const char *metric, bool valid)
{
	json_t *x = json_pack("{s:s, s:i, s:i, s:f, s:f, s:b, s:b}", "metric", metric, "n_before",
			      6, "n_after", 5, "mean_before", 100.25, "mean_after", 79.0, "agrees",
			      1, "confirmed", valid);

	if (valid) {
		json_object_set_new(x, "p", json_real(1.5e-6));
		json_object_set_new(x, "t", json_real(-12.5));
		json_object_set_new(x, "ci", json_pack("[f, f]", -24.0, -18.5));
	} else {
		json_object_set_new(x, "why", json_string("too few samples"));
	}
	json_object_set_new(x, "rel", json_real(-0.21));
	return x;
}

/* every part of a state, as track add, points.c, measure.c, detect.c, confirm.c and tbisect.c wrote them */
static json_t *old_state(void)
{
	json_t *pts = json_array(), *st, *pt, *cands, *conf, *bis;

	pt = json_pack("{s:s, s:s, s:s, s:{s:s}}", "id", SHA_A, "label", "v1.0", "commit", SHA_A,
		       "set", "ref", SHA_A);
	json_object_set_new(pt, "subject", json_string("mm: one \"quoted\" subject"));
	json_object_set_new(pt, "added", json_string("2026-12-06T22:00:00Z"));
	json_array_append_new(pts, pt);
	pt = json_pack("{s:s, s:s, s:s, s:{s:s}}", "id", SHA_B, "label", "222222222222", "commit",
		       SHA_B, "set", "ref", SHA_B);
	json_object_set_new(pt, "added", json_string("2026-12-06T22:00:00Z"));
	json_array_append_new(pts, pt);
	pt = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}}", "id", "p03", "label", "p03", "set",
		       "kernel", "distro", "cmdline", "numa_balancing=1", "sysctl", "vm.x", "5");
	json_object_set_new(pt, "added", json_string("2026-12-06T22:05:00Z"));
	json_array_append_new(pts, pt);
	st = json_pack("{s:s, s:s, s:o, s:{}}", "name", "t", "created", "2026-12-06T21:59:59Z",
		       "points", pts, "runs");
	json_object_set_new(st, "file", json_string("/srv/tracks/t.yaml"));
	json_object_set_new(json_object_get(st, "runs"), SHA_A,
			    json_pack("{s:{s:s, s:s, s:s}}", "j", "run", "r1", "job_file",
				      "/r/tracks/t/jobs/j--v1.0.yaml", "status", "measured"));
	json_object_set_new(json_object_get(st, "runs"), SHA_B, json_object());
	/* a point the state no longer lists: its runs stay */
	json_object_set_new(json_object_get(st, "runs"), "gone",
			    json_pack("{s:{s:s, s:s}}", "j", "run", "r0", "status", "failed"));
	cands = json_pack("[o, o, o]", old_cand("time.elapsed", SHA_A, SHA_B, 0.001, true),
			  old_cand("vmstat.x", SHA_A, SHA_B, 0.004, true),
			  old_cand("vmstat.y", SHA_B, "p03", 0.3, false));
	json_object_set_new(st, "analysis",
			    json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:I, s:s, s:o}", "when",
				      "2026-12-06T23:00:00Z", "seed",
				      (json_int_t)0xdeadbeefdeadbeefULL, "series_tested",
				      (json_int_t)12, "family", (json_int_t)13, "q", 0.05,
				      "min_change", 0.02, "significant", (json_int_t)2, "method",
				      "E-divisive means (alpha 1), permutation test, "
				      "Benjamini-Hochberg",
				      "candidates", cands));
	conf = json_object();
	json_object_set_new(conf, "j/" SHA_A ".." SHA_B,
			    json_pack("{s:s, s:s, s:s, s:[o, o]}", "status", "confirmed", "metrics",
				      "time.elapsed,vmstat.x", "run", "r2", "tests",
				      old_test("time.elapsed", true), old_test("vmstat.x", false)));
	json_object_set_new(conf, "j/" SHA_B "..p03",
			    json_pack("{s:s, s:s}", "status", "running", "metrics", "vmstat.y"));
	json_object_set_new(st, "confirm", conf);
	bis = json_object();
	json_object_set_new(bis, "j/" SHA_A ".." SHA_B,
			    json_pack("{s:I, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s}",
				      "range_commits", (json_int_t)1, "first", "commit", SHA_B,
				      "short", "222222222222", "subject", "mm: it", "author",
				      "A U Thor <a@example.org>", "date",
				      "2026-01-01T00:00:00+00:00", "status", "done", "why",
				      "the two kernels are one commit apart"));
	json_object_set_new(bis, "j/x..y",
			    json_pack("{s:I, s:s, s:s, s:{s:s, s:{s:s}}}", "range_commits",
				      (json_int_t)9, "dir", "/r/tracks/t/bisect/j_x..y", "status",
				      "running", "result", "status", "running", "first", "commit",
				      SHA_B));
	json_object_set_new(st, "bisect", bis);
	json_object_set_new(st, "future", json_pack("{s:i}", "k", 1));
	return st;
}

static char *dump(json_t *j)
{
	return json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
}

/* the earlier writer's file reads into its fields and writes back the same bytes */
static void test_round_trip(void **state)
{
	json_t *old = old_state();
	char *text = dump(old), *again;
	struct track_state st;
	struct track_point *p;
	struct track_confirmation *c;
	struct track_bisection *b;

	(void)state;
	assert_int_equal(track_state_parse("state.json", text, strlen(text), &st), 0);
	assert_string_equal(st.name, "t");
	assert_string_equal(st.file, "/srv/tracks/t.yaml");
	assert_int_equal(st.npoints, 3);
	p = track_state_point(&st, SHA_A);
	assert_non_null(p);
	assert_string_equal(p->label, "v1.0");
	assert_string_equal(p->subject, "mm: one \"quoted\" subject");
	assert_int_equal(p->nslots, 1);
	assert_string_equal(track_point_slot(p, "j")->run, "r1");
	assert_string_equal(track_point_slot(p, "j")->status, "measured");
	assert_true(track_state_point(&st, SHA_B)->in_runs);
	assert_int_equal(track_state_point(&st, SHA_B)->nslots, 0);
	assert_false(track_state_point(&st, "p03")->in_runs);
	assert_null(track_state_point(&st, "p03")->commit);
	assert_null(track_state_point(&st, "gone"));
	assert_true(st.analysis.present);
	assert_int_equal(st.analysis.seed, (json_int_t)0xdeadbeefdeadbeefULL);
	assert_int_equal(st.analysis.ncands, 3);
	assert_true(st.analysis.cands[0].significant && !st.analysis.cands[2].significant);
	assert_true(st.analysis.cands[1].p == 0.004 && st.analysis.cands[1].perms == 999);
	assert_int_equal(st.nconfirm, 2);
	c = track_state_confirm(&st, "j/" SHA_A ".." SHA_B);
	assert_non_null(c);
	assert_int_equal(c->ntests, 2);
	assert_true(c->tests[0].confirmed && c->tests[0].ci_high == -18.5);
	assert_true(isnan(c->tests[1].p) && !strcmp(c->tests[1].why, "too few samples"));
	c = track_state_confirm(&st, "j/" SHA_B "..p03");
	assert_false(c->has_tests);
	assert_null(c->run);
	b = track_state_bisect(&st, "j/" SHA_A ".." SHA_B);
	assert_true(b->has_first && b->has_range && b->range_commits == 1);
	assert_string_equal(b->first.shortc, "222222222222");
	assert_null(b->result);
	assert_non_null(track_state_bisect(&st, "j/x..y")->result);
	/* the bisect engine's result names its first bad commit */
	{
		struct track_commit first;

		assert_int_equal(
			track_result_first(track_state_bisect(&st, "j/x..y")->result, &first), 0);
		assert_string_equal(first.commit, SHA_B);
		assert_null(first.subject);
		track_commit_release(&first);
		assert_int_equal(track_result_first(st.rest, &first), -1);
	}
	again = track_state_dump(&st);
	assert_string_equal(again, text);
	free(again);
	track_state_release(&st);
	free(text);
	json_decref(old);
}

/* a state made in memory, written and read again, is the same state */
static void test_made_state(void **state)
{
	struct track_state st = { 0 }, back;
	struct track_confirmation *c;
	struct track_slot *s;
	char *text, *again;

	(void)state;
	st.name = xstrdup("m");
	st.file = xstrdup("/f.yaml");
	st.has_runs = true;
	st.points = xcalloc(1, sizeof(*st.points));
	st.npoints = 1;
	st.points[0].id = xstrdup("p01");
	st.points[0].label = xstrdup("p01");
	st.points[0].set = json_pack("{s:s}", "kernel", "distro");
	s = track_point_slot_add(&st.points[0], "j");
	s->run = xstrdup("r");
	s->status = xstrdup("queued");
	c = track_state_confirm_add(&st, "j/a..b");
	c->status = xstrdup("not confirmed");
	c->has_tests = true;
	c->tests = xcalloc(1, sizeof(*c->tests));
	c->ntests = 1;
	c->tests[0] = (struct track_test){ .metric = xstrdup("m"),
					   .n_before = -1,
					   .mean_before = 1,
					   .mean_after = 2,
					   .p = NAN,
					   .t = NAN,
					   .rel = NAN,
					   .ci_low = NAN,
					   .ci_high = NAN };
	assert_ptr_equal(track_state_confirm_add(&st, "j/a..b"), c);
	track_state_bisect_add(&st, "j/a..b")->status = xstrdup("failed");
	text = track_state_dump(&st);
	/* what is not known is not written */
	assert_null(strstr(text, "\"p\""));
	assert_null(strstr(text, "\"analysis\""));
	assert_int_equal(track_state_parse("m", text, strlen(text), &back), 0);
	assert_int_equal(back.confirm[0].tests[0].n_before, -1);
	assert_true(isnan(back.confirm[0].tests[0].p));
	assert_string_equal(back.bisect[0].status, "failed");
	assert_false(back.analysis.present);
	again = track_state_dump(&back);
	assert_string_equal(again, text);
	free(again);
	free(text);
	track_state_release(&back);
	track_state_release(&st);
}

/* a bad state is refused, naming what is wrong */
static void test_refusals(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "[1]", "the state is not an object" },
		{ "{\"file\": ", "damaged" },
		{ "{\"points\": []}", "\"file\" is missing" },
		{ "{\"file\": 3}", "\"file\" is not a string" },
		{ "{\"file\": \"/f\", \"points\": {}}", "\"points\" is not an array" },
		{ "{\"file\": \"/f\", \"points\": [{\"label\": \"a\", \"set\": {}}]}",
		  "\"id\" is missing" },
		{ "{\"file\": \"/f\", \"points\": [{\"id\": \"a\", \"label\": \"a\"}]}",
		  "point a has no \"set\"" },
		{ "{\"file\": \"/f\", \"points\": [{\"id\": \"a\", \"label\": \"a\", \"set\": []}]}",
		  "\"set\" is not an object" },
		{ "{\"file\": \"/f\", \"points\": [{\"id\": \"a\", \"label\": \"a\", \"set\": {}}, "
		  "{\"id\": \"a\", \"label\": \"b\", \"set\": {}}]}",
		  "point a is in \"points\" twice" },
		{ "{\"file\": \"/f\", \"runs\": {\"a\": []}}",
		  "an entry of runs is not an object" },
		{ "{\"file\": \"/f\", \"points\": [{\"id\": \"a\", \"label\": \"a\", \"set\": {}}], "
		  "\"runs\": {\"a\": {\"j\": {\"run\": 5}}}}",
		  "\"run\" is not a string" },
		{ "{\"file\": \"/f\", \"analysis\": []}", "\"analysis\" is not an object" },
		{ "{\"file\": \"/f\", \"analysis\": {\"candidates\": [{\"job\": \"j\"}]}}",
		  "\"metric\" is missing" },
		{ "{\"file\": \"/f\", \"analysis\": {\"candidates\": [{\"job\": \"j\", \"metric\": "
		  "\"m\", \"before\": \"a\", \"after\": \"b\", \"p\": \"x\"}]}}",
		  "\"p\" is not a number" },
		{ "{\"file\": \"/f\", \"analysis\": {\"candidates\": [{\"job\": \"j\", \"metric\": "
		  "\"m\", \"before\": \"a\", \"after\": \"b\", \"kept\": 1}]}}",
		  "\"kept\" is not true or false" },
		{ "{\"file\": \"/f\", \"analysis\": {\"seed\": 1.5}}",
		  "\"seed\" is not an integer" },
		{ "{\"file\": \"/f\", \"confirm\": {\"k\": \"x\"}}",
		  "an entry of confirm is not an object" },
		{ "{\"file\": \"/f\", \"confirm\": {\"k\": {\"tests\": [{\"metric\": \"m\", \"ci\": "
		  "[1]}]}}}",
		  "\"ci\" is not [low, high]" },
		{ "{\"file\": \"/f\", \"bisect\": {\"k\": {\"first\": {\"short\": \"x\"}}}}",
		  "bisect k: \"first\" is not a commit" },
		{ "{\"file\": \"/f\", \"bisect\": {\"k\": {\"result\": 1}}}",
		  "\"result\" is not an object" },
	};
	struct track_state st;
	struct capture cap;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *errs;

		capture_start(&cap);
		assert_int_equal(track_state_parse("s.json", bad[i].text, strlen(bad[i].text), &st),
				 -1);
		errs = capture_end(&cap);
		if (!strstr(errs, bad[i].msg) || !strstr(errs, "s.json"))
			fail_msg("%s: expected '%s' in: %s", bad[i].text, bad[i].msg, errs);
		free(errs);
		/* nothing is left half-read */
		assert_int_equal(st.npoints, 0);
		assert_null(st.file);
	}
}

/* strings and lists are bounded */
static void test_bounds(void **state)
{
	size_t n = TRACK_STATE_MAX_STR + 1;
	char *big = xmalloc(n + 1), *text;
	struct track_state st;
	struct capture cap;
	char *errs;

	(void)state;
	memset(big, 'x', n);
	big[n] = '\0';
	text = xasprintf("{\"file\": \"%s\"}", big);
	capture_start(&cap);
	assert_int_equal(track_state_parse("s.json", text, strlen(text), &st), -1);
	errs = capture_end(&cap);
	assert_non_null(strstr(errs, "\"file\" is not a string of at most 65536 bytes"));
	free(errs);
	free(text);
	text = xasprintf("{\"file\": \"/f\", \"confirm\": {\"%s\": {}}}", big);
	capture_start(&cap);
	assert_int_equal(track_state_parse("s.json", text, strlen(text), &st), -1);
	errs = capture_end(&cap);
	assert_non_null(strstr(errs, "a key is longer than 65536 bytes"));
	free(errs);
	free(text);
	/* a text longer than a state may be is refused before it is parsed */
	capture_start(&cap);
	assert_int_equal(track_state_parse("s.json", "{}", (size_t)TRACK_STATE_MAX_BYTES + 1, &st),
			 -1);
	errs = capture_end(&cap);
	assert_non_null(strstr(errs, "more than a track's state holds"));
	free(errs);
	free(big);
}

/* "track status --json": the state, its job names; "counts" is not the state's */
static void test_status_json(void **state)
{
	json_t *j = old_state();
	struct track_state st;
	char **jobs, err[128];
	size_t njobs;

	(void)state;
	json_object_set_new(j, "counts", json_pack("{s:i}", "kernels", 3));
	json_object_set_new(j, "jobs", json_pack("[s, s]", "j", "k"));
	assert_int_equal(track_status_from_json(j, &st, &jobs, &njobs, err, sizeof(err)), 0);
	assert_int_equal(njobs, 2);
	assert_string_equal(jobs[1], "k");
	assert_int_equal(st.npoints, 3);
	for (size_t i = 0; i < njobs; i++)
		free(jobs[i]);
	free(jobs);
	track_state_release(&st);
	json_object_set_new(j, "jobs", json_integer(3));
	assert_int_equal(track_status_from_json(j, &st, &jobs, &njobs, err, sizeof(err)), -1);
	assert_string_equal(err, "\"jobs\" is not an array of names");
	json_decref(j);
}

/* a run's iterations: status and the numeric metrics only */
static void test_run(void **state)
{
	json_t *j = json_pack(
		"{s:s, s:{s:{s:s}}, s:[{s:s, s:[{s:s, s:{s:f, s:s, s:i}}, {s:s}, {}]}, "
		"{s:s, s:[]}]}",
		"run", "r1", "job_resolved", "workload", "name", "usemem", "variants", "name", "a",
		"iterations", "status", "ok", "metrics", "usemem.ms", 1.5, "note", "text",
		"vmstat.x", 7, "status", "crashed", "name", "b", "iterations");
	struct track_stored_run r;
	struct run_data d;

	(void)state;
	assert_int_equal(run_data_from_json(j, &d), 0);
	track_run_from_data(&d, &r);
	run_data_release(&d);
	assert_string_equal(r.workload, "usemem");
	assert_int_equal(r.nvars, 2);
	assert_string_equal(r.vars[0].name, "a");
	assert_string_equal(r.vars[1].name, "b");
	assert_int_equal(r.vars[1].nits, 0);
	assert_int_equal(r.vars[0].nits, 3);
	assert_true(r.vars[0].its[0].ok && r.vars[0].its[0].done);
	assert_int_equal(r.vars[0].its[0].nmetrics, 2);
	assert_string_equal(r.vars[0].its[0].names[1], "vmstat.x");
	assert_true(r.vars[0].its[0].values[1] == 7);
	assert_true(!r.vars[0].its[1].ok && r.vars[0].its[1].done);
	assert_true(!r.vars[0].its[2].done);
	track_run_release(&r);
	json_decref(j);
}

/* the setup a report names, from a run record */
static void test_setup(void **state)
{
	json_t *j = json_pack(
		"{s:s, s:{s:{s:[{s:i, s:i}, {s:i, s:i}]}, s:{s:s}}, s:[{s:s, s:{s:s, s:s}}, "
		"{s:s}], s:{s:s, s:s}}",
		"run", "r", "job_resolved", "topology", "nodes", "cpus", 2, "memory_kib", 262144,
		"cpus", 1, "memory_kib", 131072, "workload", "name", "usemem", "variants", "name",
		"v1.0", "kernel", "release", "6.1.0", "sha256", "ab", "name", "p2", "host", "accel",
		"tcg", "qemu", "8.2.1");
	struct run_record rec;
	struct track_setup su;

	(void)state;
	assert_int_equal(run_record_from_json(j, &rec), 0);
	track_setup_from_record(&rec, &su);
	assert_true(su.has_job);
	assert_string_equal(su.workload, "usemem");
	assert_int_equal(su.nnodes, 2);
	assert_int_equal(su.nodes[1].memory_kib, 131072);
	assert_int_equal(su.nkernels, 2);
	assert_string_equal(su.kernels[0].release, "6.1.0");
	assert_null(su.kernels[1].release);
	assert_string_equal(su.accel, "tcg");
	assert_string_equal(su.qemu, "8.2.1");
	track_setup_release(&su);
	run_record_release(&rec);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_made_state),
		cmocka_unit_test(test_refusals),    cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_status_json), cmocka_unit_test(test_run),
		cmocka_unit_test(test_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
