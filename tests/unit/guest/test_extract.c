// SPDX-License-Identifier: GPL-2.0
/*
 * test_extract.c - a command workload's outputs and metrics on the host:
 * the stream's WL_OUTPUT/FILE (iter=) records read back and bounded
 * (guest/outputs.c), and the extractors (guest/extract.c) on good,
 * malformed and hostile outputs: "name value" lines, regexes, JSON and
 * YAML paths. The regex limits (lib/regex_safe.c) and the path language
 * (lib/jpath.c) are tested here too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"

#include "guest/extract.h"
#include "guest/outputs.h"
#include "job/job.h"
#include "job/job_own.h"
#include "lib/jpath.h"
#include "lib/regex_safe.h"
#include "lib/strbuf.h"
#include "proto.h"

/* a job whose workload is "w: command: [x]" with these metrics */
static struct job *job_with(const char *metrics)
{
	struct job *job = NULL;
	struct capture c;
	char *yaml, *errs;
	int ret;

	assert_true(asprintf(&yaml,
			     "name: x\nvariants: [ { name: b } ]\n"
			     "topology: { nodes: 1, memory_per_node: 256M }\n"
			     "workload:\n  name: w\n  command: [x]\n  metrics: %s\n",
			     metrics) > 0);
	capture_start(&c);
	ret = job_load_buffer("t.yaml", yaml, strlen(yaml), "/tmp", &job);
	errs = capture_end(&c);
	if (ret)
		print_error("%s", errs);
	assert_int_equal(ret, 0);
	free(errs);
	free(yaml);
	return job;
}

static void text(struct guest_text *t, const char *s)
{
	t->present = true;
	t->data = strdup(s);
	t->len = strlen(s);
	t->head = t->len;
	t->total = t->len;
}

static void out_free(struct guest_iter_out *it)
{
	for (int s = 0; s < GUEST_NSTREAMS; s++)
		free(it->stream[s].data);
	for (int f = 0; f < GUEST_OUT_FILES; f++)
		free(it->files[f].data);
}

/* metrics of the extractors over it; notes joined into *notes (freed by caller) */
static json_t *run(const char *metrics, struct guest_iter_out *it, char **notes)
{
	struct job *job = job_with(metrics);
	json_t *m = json_object();
	struct strlist n = { 0 };
	struct strbuf sb = STRBUF_INIT;

	extract_metrics(&job->workload, it, m, &n);
	for (size_t i = 0; i < n.n; i++)
		strbuf_addf(&sb, "%s\n", n.v[i]);
	*notes = strbuf_detach(&sb);
	strlist_free(&n);
	job_free(job);
	return m;
}

static double num(json_t *m, const char *name)
{
	json_t *v = json_object_get(m, name);

	if (!json_is_number(v))
		print_error("no metric %s\n", name);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_lines(void **state)
{
	struct guest_iter_out it = { 0 };
	char *notes;
	json_t *m;

	(void)state;
	text(&it.stream[GUEST_STDOUT], "elapsed_s 1.5\nstarting the run\nops 1e6\n"
				       "bad name 3\nnan_x nan\ninf_x inf\nlat.p99 \t 12 \r\n"
				       "tail_no_newline 7");
	m = run("{ from: stdout }", &it, &notes);
	assert_int_equal(json_object_size(m), 4);
	assert_true(num(m, "w.elapsed_s") == 1.5);
	assert_true(num(m, "w.ops") == 1e6);
	assert_true(num(m, "w.lat.p99") == 12);
	assert_true(num(m, "w.tail_no_newline") == 7);
	assert_string_equal(notes, "");
	free(notes);
	json_decref(m);
	out_free(&it);

	/* stderr, and nothing there */
	memset(&it, 0, sizeof(it));
	text(&it.stream[GUEST_STDERR], "nothing like a metric\n");
	m = run("{ from: stderr }", &it, &notes);
	assert_int_equal(json_object_size(m), 0);
	assert_non_null(strstr(notes, "workload.metrics[0] (stderr): no \"name value\" line"));
	free(notes);
	json_decref(m);
	out_free(&it);
}

static void test_regex(void **state)
{
	struct guest_iter_out it = { 0 };
	char *notes;
	json_t *m;

	(void)state;
	text(&it.stream[GUEST_STDOUT], "avg alloc latency: 1.5 us\nfailed: 3\nfailed: 4\n"
				       "avg alloc latency: 2.5 us\nfailed: x\n");
	m = run("[ { name: lat, regex: \"avg alloc latency: ([0-9.]+) us\" },"
		"  { name: f_last, regex: \"failed: ([0-9x]+)\" },"
		"  { name: f_sum, regex: \"failed: ([0-9]+)\", reduce: sum },"
		"  { name: f_n, regex: \"failed: ([0-9]+)\", reduce: count },"
		"  { name: lat_mean, regex: \"latency: ([0-9.]+)\", reduce: mean },"
		"  { name: lat_max, regex: \"latency: ([0-9.]+)\", reduce: max },"
		"  { name: lat_min, regex: \"latency: ([0-9.]+)\", reduce: min },"
		"  { name: lat_first, regex: \"latency: ([0-9.]+)\", reduce: first },"
		"  { name: never, regex: \"never: ([0-9]+)\" },"
		"  { name: never_n, regex: \"never: ([0-9]+)\", reduce: count } ]",
		&it, &notes);
	assert_true(num(m, "w.lat") == 2.5);
	/* "failed: x" matched but is not a number: the last number stays */
	assert_true(num(m, "w.f_last") == 4);
	assert_true(num(m, "w.f_sum") == 7);
	assert_true(num(m, "w.f_n") == 2);
	assert_true(num(m, "w.lat_mean") == 2);
	assert_true(num(m, "w.lat_max") == 2.5);
	assert_true(num(m, "w.lat_min") == 1.5);
	assert_true(num(m, "w.lat_first") == 1.5);
	assert_null(json_object_get(m, "w.never"));
	assert_true(num(m, "w.never_n") == 0);
	assert_non_null(
		strstr(notes, "workload.metrics[8] (stdout): \"never: ([0-9]+)\" matched no line"));
	free(notes);
	json_decref(m);
	out_free(&it);
}

/* a million matching lines, binary garbage, NULs, a line longer than the limit */
static void test_regex_hostile(void **state)
{
	struct guest_iter_out it = { 0 };
	size_t n = 1000000, len = 2 * n + 3 * EXTRACT_LINE_MAX + 64;
	struct guest_text *t = &it.stream[GUEST_STDOUT];
	char *notes, *p;
	json_t *m;

	(void)state;
	t->present = true;
	t->data = p = malloc(len + 1);
	for (size_t i = 0; i < n; i++)
		*p++ = '7', *p++ = '\n';
	for (size_t i = 0; i < 3 * EXTRACT_LINE_MAX; i++)
		*p++ = (char)(i * 7919 % 256) ? (char)(i * 7919 % 256) : 'a';
	memcpy(p, "\nv=\0\x01 9\n", 8);
	p += 8;
	t->len = (size_t)(p - t->data);
	t->head = t->len;
	t->data[t->len] = '\0';
	m = run("[ { name: s, regex: \"^([0-9])$\", reduce: sum },"
		"  { name: v, regex: \"v=(.*)\" } ]",
		&it, &notes);
	assert_true(num(m, "w.s") == 7000000);
	/* "v=\0\x01 9": the NUL is a blank, \x01 is not a number */
	assert_null(json_object_get(m, "w.v"));
	free(notes);
	json_decref(m);
	out_free(&it);
}

static void test_json(void **state)
{
	struct guest_iter_out it = { 0 };
	char *notes;
	json_t *m;

	(void)state;
	text(&it.files[0], "{\"results\": {\"latency_us\": 12.5, \"ops\": \"1000\"},"
			   " \"runs\": [{\"name\": \"a\", \"ops\": 1, \"lat\": 2},"
			   "            {\"name\": \"b b\", \"ops\": 3},"
			   "            {\"ops\": \"x\", \"lat\": 4}],"
			   " \"per\": {\"n0\": 5, \"n1\": 6}}");
	m = run("[ { from: json, file: r.json, path: results.latency_us, name: lat, direction: lower },"
		"  { from: json, file: r.json, path: results.ops, name: ops },"
		"  { from: json, file: r.json, path: \"runs[*]\", name: name, values: [ops, lat] },"
		"  { from: json, file: r.json, path: \"runs[0].lat\", name: first_lat },"
		"  { from: json, file: r.json, path: \"per.*\", name: free },"
		"  { from: json, file: r.json, path: \"runs[7]\", name: nothing },"
		"  { from: json, file: r.json, path: \"results\", name: notnum } ]",
		&it, &notes);
	assert_true(num(m, "w.lat") == 12.5);
	assert_true(num(m, "w.ops") == 1000);
	assert_true(num(m, "w.a.ops") == 1);
	assert_true(num(m, "w.a.lat") == 2);
	/* "b b" cannot name a metric: that element's ops is dropped, said so */
	assert_null(json_object_get(m, "w.b b.ops"));
	/* the third element has no name field: its index names it */
	assert_true(num(m, "w.2.lat") == 4);
	assert_null(json_object_get(m, "w.2.ops"));
	assert_true(num(m, "w.first_lat") == 2);
	assert_true(num(m, "w.free.n0") == 5);
	assert_true(num(m, "w.free.n1") == 6);
	assert_non_null(strstr(
		notes, "workload.metrics[5] (json r.json): the path 'runs[7]' selects nothing"));
	assert_non_null(strstr(
		notes, "workload.metrics[6] (json r.json): the path 'results' selects no number"));
	assert_non_null(strstr(notes, "workload.metrics[2] (json r.json): 3 value(s) dropped"));
	free(notes);
	json_decref(m);
	out_free(&it);
}

static void test_json_bad(void **state)
{
	struct guest_iter_out it = { 0 };
	char *notes;
	json_t *m;

	(void)state;
	/* malformed, cut by the agent, missing in the guest, from stdout */
	text(&it.files[0], "{\"a\": 1,");
	text(&it.files[1], "{\"a\": 1}");
	it.files[1].cut = true;
	it.files[2].present = true;
	it.files[2].missing = 2;
	text(&it.stream[GUEST_STDOUT], "[1, 2, 3]");
	m = run("[ { from: json, file: a.json, path: a, name: a },"
		"  { from: json, file: b.json, path: a, name: b },"
		"  { from: json, file: c.json, path: a, name: c },"
		"  { from: json, path: \"[*]\", name: v },"
		"  { from: json, file: d.json, name: d } ]",
		&it, &notes);
	assert_non_null(strstr(notes, "(json a.json): not JSON:"));
	assert_non_null(strstr(notes, "(json b.json): only part of the document came back"));
	assert_non_null(strstr(notes, "(json c.json): the file was not there after the iteration"));
	assert_non_null(strstr(notes, "(json d.json): the guest sent no such file"));
	assert_true(num(m, "w.v.0") == 1);
	assert_true(num(m, "w.v.2") == 3);
	assert_int_equal(json_object_size(m), 3);
	free(notes);
	json_decref(m);
	out_free(&it);
}

/* stress-ng --yaml: the form, as written */
static void test_yaml_stress_ng(void **state)
{
	static const char doc[] = "---\n"
				  "system-info:\n"
				  "      stress-ng-version: 0.15.06\n"
				  "      run-by: root\n"
				  "metrics:\n"
				  "    - stressor: vm\n"
				  "      bogo-ops: 1234\n"
				  "      bogo-ops-per-second-usr-sys-time: 60.5\n"
				  "      bogo-ops-per-second-real-time: 61.7\n"
				  "      wall-clock-time: 20.0\n"
				  "    - stressor: numa\n"
				  "      bogo-ops: 10\n"
				  "      bogo-ops-per-second-real-time: 0.5\n"
				  "...\n";
	struct guest_iter_out it = { 0 };
	char *notes;
	json_t *m;

	(void)state;
	text(&it.files[0], doc);
	m = run("{ from: yaml, file: out.yaml, path: \"metrics[*]\", name: stressor, values: [bogo-ops-per-second-real-time] }",
		&it, &notes);
	assert_int_equal(json_object_size(m), 2);
	assert_true(num(m, "w.vm.bogo-ops-per-second-real-time") == 61.7);
	assert_true(num(m, "w.numa.bogo-ops-per-second-real-time") == 0.5);
	assert_string_equal(notes, "");
	free(notes);
	json_decref(m);
	out_free(&it);
}

/* YAML that is not, and a billion laughs: bounded by the node budget */
static void test_yaml_bad(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char err[256];
	json_t *j;

	(void)state;
	assert_null(extract_yaml_to_json("a: [1, 2", 8, err, sizeof(err)));
	assert_non_null(strstr(err, "not YAML"));
	strbuf_addf(&sb, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
	for (char c = 'b'; c <= 'j'; c++)
		strbuf_addf(&sb, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c,
			    c, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1,
			    c - 1);
	assert_null(extract_yaml_to_json(sb.buf, sb.len, err, sizeof(err)));
	assert_non_null(strstr(err, "larger than"));
	strbuf_release(&sb);
	j = extract_yaml_to_json("x: 1\ny: \"2\"\nz: two\n", 19, err, sizeof(err));
	assert_true(json_is_real(json_object_get(j, "x")));
	assert_true(json_is_string(json_object_get(j, "y")));
	json_decref(j);
}

static void test_jpath(void **state)
{
	struct jpath p;
	char err[128];

	(void)state;
	assert_int_equal(jpath_parse("metrics[*]", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.seg[1].kind, JPATH_ANY);
	assert_true(jpath_has_wildcard(&p));
	jpath_free(&p);
	assert_int_equal(jpath_parse("a.b[3].c", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.seg[2].index, 3);
	jpath_free(&p);
	assert_int_equal(jpath_parse("", &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(jpath_parse("a.", &p, err, sizeof(err)), -1);
	assert_int_equal(jpath_parse("a]", &p, err, sizeof(err)), -1);
	assert_int_equal(jpath_parse("a[-1]", &p, err, sizeof(err)), -1);
	assert_int_equal(jpath_parse("a[1", &p, err, sizeof(err)), -1);
	assert_int_equal(jpath_parse("a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q", &p, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "more than 16"));
}

/* the extractors' regexes go through lib/regex_safe.h (its own tests: test_regex_safe.c) */
static void test_regex_safe(void **state)
{
	static const char *const ok[] = {
		"avg alloc latency: ([0-9.]+) us",
		"a{255}([0-9])",
		"[]a{9}]([x])",
		"([[:digit:]]+)",
		"(a|b){3}c{1,5}",
		"\\{1000\\}",
	};
	static const char *const bad[] = {
		"(a)\\1", "((a{255}){255}){255}", "[abc", "a\\", "(x",
	};
	char err[256], big[REGEX_MAX_LEN + 2];
	regex_t re;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		int rc = regex_compile_safe(&re, ok[i], REG_EXTENDED, err, sizeof(err));

		if (rc)
			print_error("%s: %s\n", ok[i], err);
		else
			regfree(&re);
		assert_int_equal(rc, 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int rc = regex_compile_safe(&re, bad[i], REG_EXTENDED, err, sizeof(err));

		if (!rc) {
			regfree(&re);
			print_error("%s: compiled\n", bad[i]);
		}
		assert_int_equal(rc, -1);
		assert_true(err[0] != '\0');
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(regex_compile_safe(&re, big, REG_EXTENDED, err, sizeof(err)), -1);
}

/* records as the agent writes them */
static void add_rec(struct strbuf *sb, unsigned int type, const char *hdr, const char *body,
		    size_t blen)
{
	size_t plen = strlen(hdr) + (blen ? 1 + blen : 0);
	char *payload = malloc(plen), *rec = malloc(MMREC_HDR_SIZE + plen);

	memcpy(payload, hdr, strlen(hdr));
	if (blen) {
		payload[strlen(hdr)] = '\n';
		memcpy(payload + strlen(hdr) + 1, body, blen);
	}
	strbuf_add(sb, rec, mmrec_encode(rec, type, payload, (uint32_t)plen));
	free(rec);
	free(payload);
}

static void test_outputs(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct guest_outputs o;
	const struct guest_iter_out *it;
	size_t big = GUEST_OUT_MAX + 1000;
	char *junk = malloc(big);

	(void)state;
	memset(junk, 'x', big);
	memcpy(junk, "HEAD", 4);
	memcpy(junk + big - 4, "TAIL", 4);
	add_rec(&sb, MMREC_WL_OUTPUT, "iter=0", "elapsed_s 1\n", 12); /* a built-in's: not ours */
	add_rec(&sb, MMREC_WL_OUTPUT,
		"iter=0 stream=stdout total=1000000000 head=10 dropped=999999980",
		"0123456789abcdefghij", 20);
	add_rec(&sb, MMREC_WL_OUTPUT, "iter=0 stream=stderr total=5 head=99 dropped=0", "oops\n",
		5);
	add_rec(&sb, MMREC_WL_OUTPUT, "iter=1 stream=dmesg total=x head=0", junk, big);
	add_rec(&sb, MMREC_WL_OUTPUT, "iter=1 stream=bogus", "x", 1);
	add_rec(&sb, MMREC_FILE, "iter=0 index=0 size=3 cut=1", "abc", 3);
	add_rec(&sb, MMREC_FILE, "iter=0 index=1 missing=2", NULL, 0);
	add_rec(&sb, MMREC_FILE, "iter=0 index=99 size=1", "x", 1);
	add_rec(&sb, MMREC_RESULT, "iter=1 exit=-1 signal=9 timed_out=1", NULL, 0);
	strbuf_add(&sb, "\x4d\x4d\x4c\x52garbage", 11);
	guest_outputs_parse(sb.buf, sb.len, &o);
	it = guest_outputs_find(&o, 0);
	assert_non_null(it);
	assert_true(it->stream[GUEST_STDOUT].present);
	assert_int_equal(it->stream[GUEST_STDOUT].len, 20);
	assert_int_equal(it->stream[GUEST_STDOUT].head, 10);
	assert_int_equal(it->stream[GUEST_STDOUT].dropped, 999999980);
	assert_int_equal(it->stream[GUEST_STDOUT].total, 1000000000);
	/* head past the end is clamped; nothing dropped: all of it is the head */
	assert_int_equal(it->stream[GUEST_STDERR].head, 5);
	assert_true(it->files[0].cut);
	assert_string_equal(it->files[0].data, "abc");
	assert_int_equal(it->files[1].missing, 2);
	assert_false(it->timed_out);
	it = guest_outputs_find(&o, 1);
	assert_non_null(it);
	/* more than GUEST_OUT_MAX: cut again on the host, head and tail kept */
	assert_int_equal(it->stream[GUEST_DMESG].len, GUEST_OUT_MAX);
	assert_int_equal(it->stream[GUEST_DMESG].dropped, 1000);
	assert_memory_equal(it->stream[GUEST_DMESG].data + GUEST_OUT_MAX - 4, "TAIL", 4);
	assert_true(it->timed_out);
	assert_null(guest_outputs_find(&o, 2));
	guest_outputs_free(&o);
	strbuf_release(&sb);
	free(junk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),	      cmocka_unit_test(test_regex),
		cmocka_unit_test(test_regex_hostile), cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_bad),      cmocka_unit_test(test_yaml_stress_ng),
		cmocka_unit_test(test_yaml_bad),      cmocka_unit_test(test_jpath),
		cmocka_unit_test(test_regex_safe),    cmocka_unit_test(test_outputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
