// SPDX-License-Identifier: GPL-2.0
/*
 * test_agent.c - guest_stream_parse() on synthetic streams with exact
 * expected metrics, on hostile input, and on a stream captured from a real
 * TCG guest running usemem on 2 NUMA nodes (tests/unit/agent/): the
 * struct guest_report's fields, and the whole of it as
 * guest_stream_to_json() writes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/stream.h"
#include "proto.h"
#include "lib/strbuf.h"
#include "lib/util.h"

struct stream {
	uint8_t *buf;
	size_t len;
};

static void rec(struct stream *s, unsigned int type, const char *payload)
{
	size_t len = strlen(payload);

	s->buf = xrealloc(s->buf, s->len + MMREC_HDR_SIZE + len);
	s->len += mmrec_encode(s->buf + s->len, type, payload, (uint32_t)len);
}

static void good_iteration(struct stream *s, int i)
{
	char p[256];

	snprintf(p, sizeof(p), "iter=%d", i);
	rec(s, MMREC_ITER_BEGIN, p);
	snprintf(
		p, sizeof(p),
		"iter=%d phase=before name=vmstat\npgfault 100\nnr_free_pages 50\ncompact_stall 0\n",
		i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p), "iter=%d phase=before name=node0/vmstat\nnuma_hit 7\n", i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p),
		 "iter=%d phase=before name=node1/numastat\nnuma_hit 1000\nother_node 3\n", i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p), "iter=%d phase=before name=node1/meminfo\nNode 1 MemTotal: 5 kB\n",
		 i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p),
		 "iter=%d phase=after name=vmstat\npgfault %d\nnr_free_pages 40\ncompact_stall 3\n",
		 i, 150 + i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p), "iter=%d phase=after name=node0/vmstat\nnuma_hit 17\n", i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p),
		 "iter=%d phase=after name=node1/numastat\nnuma_hit 1500\nother_node 3\n", i);
	rec(s, MMREC_SNAPSHOT, p);
	snprintf(p, sizeof(p), "iter=%d\nelapsed_s.T1 1.5\nthroughput_mbs.T1 200\n", i);
	rec(s, MMREC_WL_OUTPUT, p);
	snprintf(
		p, sizeof(p),
		"iter=%d exit=0 signal=0 user_s=0.25 system_s=1.125 elapsed_s=1.5 maxrss_kb=10 minflt=1 majflt=0",
		i);
	rec(s, MMREC_RESULT, p);
	snprintf(p, sizeof(p), "iter=%d status=ok", i);
	rec(s, MMREC_ITER_END, p);
}

static void head(struct stream *s)
{
	rec(s, MMREC_HELLO, "agent=1 release=6.9.0-rc1 boot_s=2.5");
	rec(s, MMREC_NODES,
	    "count=2\nnode=0 cpus=0-1 memory_kb=262144\nnode=1 cpus=2 memory_kb=131072\n");
}

/* guest_stream_parse() as guest_stream_to_json() writes it; info (may be NULL) gets its info */
static json_t *parse(const void *buf, size_t len, const char *wl, struct guest_stream_info *info)
{
	struct guest_report *gs = guest_stream_parse(buf, len, wl);
	json_t *j = guest_stream_to_json(gs);

	assert_non_null(j);
	if (info)
		*info = gs->info;
	guest_stream_free(gs);
	return j;
}

static double num(json_t *metrics, const char *name)
{
	json_t *v = json_object_get(metrics, name);

	if (!json_is_number(v))
		fail_msg("metric %s missing", name);
	return json_number_value(v);
}

static bool log_has(json_t *root, const char *needle)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(root, "log"), i, e)
		if (strstr(json_string_value(json_object_get(e, "message")), needle))
			return true;
	return false;
}

static json_t *iter(json_t *root, size_t i)
{
	json_t *it = json_array_get(json_object_get(root, "iterations"), i);

	assert_non_null(it);
	return it;
}

static void test_full_stream(void **state)
{
	struct stream s = { 0 };
	struct guest_stream_info info;
	json_t *root, *it, *m, *nodes, *h, *st;

	(void)state;
	head(&s);
	good_iteration(&s, 0);
	rec(&s, MMREC_LOG, "level=info\nhello from the guest");
	rec(&s, MMREC_DONE, "iterations=1");
	root = parse(s.buf, s.len, "usemem", &info);
	assert_true(info.hello);
	assert_true(info.done);
	assert_false(info.setup_error);
	h = json_object_get(root, "hello");
	assert_string_equal(json_string_value(json_object_get(h, "release")), "6.9.0-rc1");
	assert_string_equal(json_string_value(json_object_get(h, "agent")), "1");
	assert_true(json_real_value(json_object_get(h, "boot_s")) == 2.5);
	nodes = json_object_get(root, "nodes");
	assert_int_equal(json_array_size(nodes), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, 1), "id")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 0), "cpus")),
			    "0-1");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, 0), "memory_kb")),
			 262144);
	it = iter(root, 0);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "ok");
	assert_int_equal(json_integer_value(json_object_get(it, "exit")), 0);
	assert_int_equal(json_integer_value(json_object_get(it, "signal")), 0);
	m = json_object_get(it, "metrics");
	assert_int_equal(json_integer_value(json_object_get(m, "vmstat.pgfault")), 50);
	assert_int_equal(json_integer_value(json_object_get(m, "vmstat.nr_free_pages")), -10);
	assert_int_equal(json_integer_value(json_object_get(m, "vmstat.compact_stall")), 3);
	assert_int_equal(json_integer_value(json_object_get(m, "node0.vmstat.numa_hit")), 10);
	assert_int_equal(json_integer_value(json_object_get(m, "numastat.node1.numa_hit")), 500);
	assert_int_equal(json_integer_value(json_object_get(m, "numastat.node1.other_node")), 0);
	assert_true(num(m, "time.user_s") == 0.25);
	assert_true(num(m, "time.system_s") == 1.125);
	assert_true(num(m, "time.elapsed_s") == 1.5);
	assert_true(num(m, "usemem.elapsed_s.T1") == 1.5);
	assert_true(num(m, "usemem.throughput_mbs.T1") == 200);
	/* 3 vmstat + 1 node vmstat + 2 numastat + 3 time + 2 workload; no meminfo */
	assert_int_equal(json_object_size(m), 11);
	st = json_object_get(it, "snapshots");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(st, "before"), "node1/meminfo")),
		"Node 1 MemTotal: 5 kB\n");
	assert_true(json_is_true(json_object_get(root, "done")));
	assert_int_equal(json_array_size(json_object_get(root, "log")), 1);
	assert_true(log_has(root, "hello from the guest"));
	st = json_object_get(root, "stream");
	assert_int_equal(json_integer_value(json_object_get(st, "records")), 15);
	assert_int_equal(json_integer_value(json_object_get(st, "skipped_bytes")), 0);
	json_decref(root);
	free(s.buf);
}

static void test_hostile_metrics(void **state)
{
	struct stream s = { 0 };
	char p[1024];
	json_t *root, *m;

	(void)state;
	good_iteration(&s, 0);
	snprintf(p, sizeof(p),
		 "iter=0\nbad/name 1\nnan_v nan\ninf_v inf\nbig_v 1e400\n"
		 "has space 1\ngood:metric-1 2\n\xff\xfe 3\nnoval\nx 1 2\n %s 1\n"
		 "neg -2.5\n\n\n",
		 "");
	rec(&s, MMREC_WL_OUTPUT, p);
	memset(p, 'a', 300);
	strcpy(p, "iter=0\n");
	p[7] = 'a';
	strcpy(p + 300, " 1\n");
	rec(&s, MMREC_WL_OUTPUT, p);
	rec(&s, MMREC_SNAPSHOT, "iter=0 phase=after name=../../etc/passwd\nroot");
	rec(&s, MMREC_SNAPSHOT, "iter=0 phase=middle name=vmstat\npgfault 9");
	rec(&s, MMREC_RESULT, "iter=99999999999 exit=0");
	rec(&s, MMREC_LOG, "level=panic\n\x1b[31mred\x01");
	root = parse(s.buf, s.len, "usemem", NULL);
	m = json_object_get(iter(root, 0), "metrics");
	assert_true(num(m, "usemem.good:metric-1") == 2);
	assert_true(num(m, "usemem.neg") == -2.5);
	assert_true(num(m, "usemem.elapsed_s.T1") == 1.5);
	assert_null(json_object_get(m, "usemem.bad/name"));
	assert_null(json_object_get(m, "usemem.nan_v"));
	assert_null(json_object_get(m, "usemem.inf_v"));
	assert_null(json_object_get(m, "usemem.big_v"));
	assert_null(json_object_get(m, "usemem.x"));
	assert_int_equal(json_integer_value(json_object_get(m, "vmstat.pgfault")), 50);
	assert_int_equal(json_object_size(m), 13); /* 11 + good:metric-1, neg */
	assert_true(log_has(root, "bad workload metric line \"bad/name 1\""));
	assert_true(log_has(root, "\"nan_v nan\""));
	assert_true(log_has(root, "SNAPSHOT with a bad phase or name"));
	assert_true(log_has(root, "RESULT record without a valid iter="));
	assert_true(log_has(root, "?[31mred?")); /* control bytes made printable */
	assert_int_equal(json_array_size(json_object_get(root, "iterations")), 1);
	assert_null(json_object_get(json_object_get(json_object_get(iter(root, 0), "snapshots"),
						    "after"),
				    "../../etc/passwd"));
	assert_true(json_is_false(json_object_get(root, "done")));
	assert_true(json_is_null(json_object_get(root, "hello")));
	json_decref(root);
	/* a hostile workload name falls back to "workload" */
	root = parse(s.buf, s.len, "bad name", NULL);
	assert_true(num(json_object_get(iter(root, 0), "metrics"), "workload.neg") == -2.5);
	json_decref(root);
	free(s.buf);
}

static void test_missing_after(void **state)
{
	struct stream s = { 0 };
	json_t *root, *it;

	(void)state;
	head(&s);
	rec(&s, MMREC_ITER_BEGIN, "iter=4");
	rec(&s, MMREC_SNAPSHOT, "iter=4 phase=before name=vmstat\npgfault 1\n");
	rec(&s, MMREC_RESULT, "iter=4 exit=0 signal=0 user_s=1 system_s=1 elapsed_s=1");
	rec(&s, MMREC_ITER_END, "iter=4 status=ok");
	good_iteration(&s, 2);
	rec(&s, MMREC_ITER_BEGIN, "iter=7"); /* the guest died here */
	root = parse(s.buf, s.len, "usemem", NULL);
	assert_int_equal(json_array_size(json_object_get(root, "iterations")), 3);
	it = iter(root, 0); /* sorted by index */
	assert_int_equal(json_integer_value(json_object_get(it, "index")), 2);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "ok");
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(it, "metrics"), "vmstat.pgfault")),
			 52);
	it = iter(root, 1);
	assert_int_equal(json_integer_value(json_object_get(it, "index")), 4);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "failed");
	assert_null(json_object_get(json_object_get(it, "metrics"), "vmstat.pgfault"));
	assert_true(log_has(root, "iteration 4 failed: no \"after\" vmstat snapshot"));
	it = iter(root, 2);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "failed");
	assert_true(json_is_null(json_object_get(it, "exit")));
	assert_true(log_has(root, "iteration 7 failed: no ITER_END"));
	json_decref(root);
	free(s.buf);
}

static void test_guest_failed(void **state)
{
	struct stream s = { 0 };
	json_t *root, *it;

	(void)state;
	rec(&s, MMREC_ITER_BEGIN, "iter=0");
	rec(&s, MMREC_LOG, "level=error\niteration 0: workload exited before \"ready\"");
	rec(&s, MMREC_RESULT, "iter=0 exit=-1 signal=9 user_s=0 system_s=0 elapsed_s=0.1");
	rec(&s, MMREC_ITER_END, "iter=0 status=failed");
	root = parse(s.buf, s.len, "crash", NULL);
	it = iter(root, 0);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "failed");
	assert_int_equal(json_integer_value(json_object_get(it, "signal")), 9);
	assert_int_equal(json_integer_value(json_object_get(it, "exit")), -1);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(root, "log"), 0), "level")),
			    "error");
	json_decref(root);
	free(s.buf);
}

static void test_garbage(void **state)
{
	unsigned int seed = 7;
	uint8_t *b = xmalloc(1 << 16);
	struct guest_stream_info info;
	json_t *root;

	(void)state;
	for (size_t i = 0; i < (1 << 16); i++)
		b[i] = (uint8_t)rand_r(&seed);
	root = parse(b, 1 << 16, "usemem", NULL);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "iterations")), 0);
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(root, "stream"), "skipped_bytes")),
			 1 << 16);
	json_decref(root);
	memset(&info, 0xff, sizeof(info));
	root = parse(NULL, 0, NULL, &info);
	assert_non_null(root);
	assert_true(json_is_false(json_object_get(root, "done")));
	assert_false(info.hello);
	assert_false(info.done);
	assert_false(info.setup_error);
	json_decref(root);
	free(b);
}

static void test_many_iterations(void **state)
{
	struct stream s = { 0 };
	json_t *root;
	char p[32];

	(void)state;
	for (int i = 0; i < GUEST_STREAM_MAX_ITERATIONS + 100; i++) {
		snprintf(p, sizeof(p), "iter=%d", GUEST_STREAM_MAX_ITERATIONS + 99 - i);
		rec(&s, MMREC_ITER_BEGIN, p);
		rec(&s, MMREC_ITER_END, "iter=0007 status=ok"); /* = iteration 7 */
	}
	root = parse(s.buf, s.len, "noop", NULL);
	assert_int_equal(json_array_size(json_object_get(root, "iterations")),
			 GUEST_STREAM_MAX_ITERATIONS);
	assert_true(log_has(root, "more than 4096 iterations"));
	assert_int_equal(json_integer_value(json_object_get(iter(root, 0), "index")), 7);
	assert_int_equal(json_array_size(json_object_get(root, "log")), GUEST_STREAM_MAX_LOG + 1);
	json_decref(root);
	free(s.buf);
}

static char *fixture(const char *name, size_t *len)
{
	const char *src = getenv("MMLAB_SRCDIR");
	char *path = xasprintf("%s/tests/unit/agent/%s", src ? src : ".", name);
	char *buf = read_file(path, len, 1 << 22);

	assert_non_null(buf);
	free(path);
	return buf;
}

/* captured: 2 nodes x 256 MiB under TCG, usemem threads=1,2 size=32M loops=2 */
/*
 * issue 20: series values and metrics are bounded over the whole stream,
 * not only per iteration: 64 MiB of short values became ~1.3 GB of JSON.
 */
/*
 * FILE records, read back after an iteration (iter=) or collected after
 * the last one, carry no metric: the iterations are the same without them.
 */
static void test_file_records(void **state)
{
	struct stream with = { 0 }, without = { 0 };
	json_t *a, *b;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		struct stream *s = pass ? &with : &without;

		head(s);
		good_iteration(s, 0);
		if (pass) {
			rec(s, MMREC_FILE, "iter=0 index=0 size=12 cut=0\nelapsed_s 99");
			rec(s, MMREC_FILE, "iter=0 index=1 missing=2");
			rec(s, MMREC_FILE, "path=/x size=3 offset=0\niter=0");
		}
		rec(s, MMREC_DONE, "iterations=1");
	}
	a = parse(without.buf, without.len, "usemem", NULL);
	b = parse(with.buf, with.len, "usemem", NULL);
	assert_int_equal(json_array_size(json_object_get(b, "iterations")), 1);
	assert_true(json_equal(json_object_get(a, "iterations"), json_object_get(b, "iterations")));
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(b, "stream"), "records")),
		json_integer_value(json_object_get(json_object_get(a, "stream"), "records")) + 3);
	json_decref(a);
	json_decref(b);
	free(with.buf);
	free(without.buf);
}

static void test_stream_totals(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct stream s = { 0 };
	json_t *root, *st;
	size_t lines = 60, samples = GUEST_STREAM_MAX_SAMPLES;

	(void)state;
	for (int it = 0; it < 2; it++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "iter=%d interval_s=1 samples=%zu\n", it, samples);
		for (size_t l = 0; l < lines; l++) {
			strbuf_addf(&sb, "vmstat.s%zu", l);
			for (size_t k = 0; k < samples; k++)
				strbuf_add(&sb, " 1", 2);
			strbuf_addch(&sb, '\n');
		}
		rec(&s, MMREC_SERIES, sb.buf);
	}
	root = parse(s.buf, s.len, "usemem", NULL);
	st = json_object_get(root, "stream");
	/* 120 lines of 20000: the first 100 fit in GUEST_STREAM_MAX_TOTAL_SAMPLES */
	assert_int_equal(json_integer_value(json_object_get(st, "dropped_samples")),
			 (2 * lines - GUEST_STREAM_MAX_TOTAL_SAMPLES / samples) * samples);
	assert_int_equal(json_integer_value(json_object_get(st, "dropped_metrics")), 0);
	json_decref(root);
	strbuf_release(&sb);
	free(s.buf);
}

static void test_real_capture(void **state)
{
	size_t len;
	char *buf = fixture("real-usemem.bin", &len);
	json_t *root = parse(buf, len, "usemem", NULL), *it, *m, *st;

	(void)state;
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(root, "hello"), "release")),
		"6.1.0-57-amd64");
	assert_int_equal(json_array_size(json_object_get(root, "nodes")), 2);
	assert_true(json_is_true(json_object_get(root, "done")));
	assert_int_equal(json_array_size(json_object_get(root, "iterations")), 1);
	it = iter(root, 0);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "ok");
	m = json_object_get(it, "metrics");
	/* 2 x 32 MiB written once each, then again: at least 16k faults */
	assert_true(json_integer_value(json_object_get(m, "vmstat.pgfault")) > 16000);
	assert_true(num(m, "usemem.elapsed_s.T1") > 0);
	assert_true(num(m, "usemem.throughput_mbs.T2") > 0);
	assert_non_null(json_object_get(m, "numastat.node1.numa_hit"));
	assert_non_null(json_object_get(m, "node0.vmstat.nr_free_pages"));
	assert_true(num(m, "time.system_s") > 0);
	assert_int_equal(json_array_size(json_object_get(root, "log")), 0);
	st = json_object_get(root, "stream");
	assert_int_equal(json_integer_value(json_object_get(st, "skipped_bytes")), 0);
	assert_int_equal(json_integer_value(json_object_get(st, "bad_crc")), 0);
	json_decref(root);
	free(buf);
}

static void test_save_snapshots(void **state)
{
	struct stream s = { 0 };
	char tmpl[] = "/tmp/mmlab-test-agent-XXXXXX", *dir, *path, *got;
	struct guest_snapshot escape = { .name = "../escape", .text = "x", .len = 1 };
	struct guest_report *gs;
	struct guest_iteration bad;
	size_t len;

	(void)state;
	good_iteration(&s, 0);
	gs = guest_stream_parse(s.buf, s.len, "usemem");
	assert_int_equal(gs->nits, 1);
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	assert_int_equal(guest_stream_save_snapshots(&gs->its[0], dir), 0);
	path = xasprintf("%s/after/node0.vmstat", dir);
	got = read_file(path, &len, 4096);
	assert_non_null(got);
	assert_string_equal(got, "numa_hit 17\n");
	free(got);
	free(path);
	path = xasprintf("%s/before/node1.meminfo", dir);
	assert_true(path_exists(path));
	free(path);
	/* a name that did not come from the parser must not escape dir */
	bad = gs->its[0];
	bad.after = &escape;
	bad.nafter = 1;
	assert_int_equal(guest_stream_save_snapshots(&bad, dir), 0);
	path = xasprintf("%s/escape", dir);
	assert_false(path_exists(path));
	free(path);
	assert_int_equal(rm_rf(dir), 0);
	guest_stream_free(gs);
	free(s.buf);
}

static const struct iter_metric *metric(const struct guest_iteration *it, const char *name)
{
	for (size_t i = 0; i < it->nmetrics; i++)
		if (!strcmp(it->metrics[i].name, name))
			return &it->metrics[i];
	return NULL;
}

/* the fields of a whole stream: what run/record.c stores */
static void test_typed(void **state)
{
	struct stream s = { 0 };
	struct guest_report *gs;
	const struct guest_iteration *it;
	const struct iter_metric *m;

	(void)state;
	head(&s);
	good_iteration(&s, 3);
	rec(&s, MMREC_LOG, "level=error\nfrom the guest");
	rec(&s, MMREC_DONE, "iterations=1");
	gs = guest_stream_parse(s.buf, s.len, "usemem");
	assert_true(gs->has_hello);
	assert_string_equal(gs->hello.agent, "1");
	assert_string_equal(gs->hello.release, "6.9.0-rc1");
	assert_true(gs->hello.has_boot_s);
	assert_true(gs->hello.boot_s == 2.5);
	assert_int_equal(gs->nnodes, 2);
	assert_int_equal(gs->nodes[1].id, 1);
	assert_string_equal(gs->nodes[1].cpus, "2");
	assert_int_equal(gs->nodes[1].memory_kb, 131072);
	assert_int_equal(gs->nits, 1);
	assert_null(guest_stream_find(gs, 0));
	it = guest_stream_find(gs, 3);
	assert_ptr_equal(it, &gs->its[0]);
	assert_int_equal(it->index, 3);
	assert_true(it->ok);
	assert_true(it->ended);
	assert_null(it->reason);
	assert_true(it->has_result);
	assert_int_equal(it->exit_code, 0);
	assert_int_equal(it->signal, 0);
	assert_int_equal(it->nmetrics, 11);
	m = metric(it, "vmstat.pgfault"); /* a delta: an integer */
	assert_non_null(m);
	assert_true(m->integer);
	assert_int_equal(m->ivalue, 53);
	assert_true(m->value == 53);
	m = metric(it, "time.system_s");
	assert_non_null(m);
	assert_false(m->integer);
	assert_true(m->value == 1.125);
	assert_false(it->ts.present);
	assert_null(it->tiers);
	assert_int_equal(it->nbefore, 4);
	assert_int_equal(it->nafter, 3);
	assert_int_equal(gs->nlog, 1);
	assert_string_equal(gs->log[0].level, "error");
	assert_string_equal(gs->log[0].message, "from the guest");
	assert_true(gs->info.done);
	assert_int_equal(gs->counts.records, 15);
	assert_int_equal(gs->counts.skipped_bytes, 0);
	assert_int_equal(gs->counts.bad_crc + gs->counts.truncated, 0);
	guest_stream_free(gs);
	free(s.buf);
}

/* the last record cut short: the iteration never ended, the bytes counted */
static void test_typed_truncated(void **state)
{
	struct stream s = { 0 };
	struct guest_report *gs;
	const struct guest_iteration *it;
	size_t end;

	(void)state;
	good_iteration(&s, 0);
	end = s.len;
	rec(&s, MMREC_DONE, "iterations=1");
	gs = guest_stream_parse(s.buf, end - 5, "usemem"); /* ITER_END without its last 5 bytes */
	assert_int_equal(gs->counts.truncated, 1);
	assert_int_equal(gs->counts.bad_crc, 0);
	assert_int_equal(gs->counts.records, 10);
	assert_int_equal(gs->counts.skipped_bytes, MMREC_HDR_SIZE + strlen("iter=0 status=ok") - 5);
	assert_int_equal(gs->nits, 1);
	it = &gs->its[0];
	assert_false(it->ended);
	assert_false(it->ok);
	assert_string_equal(it->reason, "no ITER_END (the guest crashed, hung or was stopped)");
	assert_true(it->has_result); /* what came before the cut stays */
	assert_non_null(metric(it, "vmstat.pgfault"));
	assert_false(gs->info.done);
	assert_string_equal(gs->log[gs->nlog - 1].message,
			    "host: iteration 0 failed: no ITER_END (the guest crashed, hung or "
			    "was stopped)");
	guest_stream_free(gs);
	free(s.buf);
}

/* a RESULT whose checksum is wrong is dropped: the guest's ok does not stand */
static void test_typed_bad_crc(void **state)
{
	struct stream s = { 0 }, tail = { 0 };
	struct guest_report *gs;
	const struct guest_iteration *it;
	size_t at;

	(void)state;
	rec(&s, MMREC_ITER_BEGIN, "iter=1");
	rec(&s, MMREC_SNAPSHOT, "iter=1 phase=before name=vmstat\npgfault 1\n");
	rec(&s, MMREC_SNAPSHOT, "iter=1 phase=after name=vmstat\npgfault 4\n");
	at = s.len;
	rec(&s, MMREC_RESULT, "iter=1 exit=0 signal=0 user_s=1 system_s=1 elapsed_s=1");
	s.buf[s.len - 1] ^= 0x01; /* the payload's last byte: "1" -> "0" */
	rec(&tail, MMREC_ITER_END, "iter=1 status=ok");
	s.buf = xrealloc(s.buf, s.len + tail.len);
	memcpy(s.buf + s.len, tail.buf, tail.len);
	s.len += tail.len;
	gs = guest_stream_parse(s.buf, s.len, "usemem");
	assert_int_equal(gs->counts.bad_crc, 1);
	assert_int_equal(gs->counts.records, 4);
	assert_int_equal(gs->counts.skipped_bytes, s.len - tail.len - at);
	assert_int_equal(gs->nits, 1);
	it = &gs->its[0];
	assert_true(it->ended);
	assert_false(it->ok);
	assert_false(it->has_result);
	assert_string_equal(it->reason, "no RESULT record");
	assert_null(metric(it, "time.elapsed_s"));
	assert_int_equal(metric(it, "vmstat.pgfault")->ivalue, 3);
	assert_false(gs->has_hello);
	assert_int_equal(gs->nnodes, 0);
	guest_stream_free(gs);
	free(tail.buf);
	free(s.buf);
}

/* an iteration that began, sent its RESULT and never ended; another never reported */
static void test_typed_not_ended(void **state)
{
	struct stream s = { 0 };
	struct guest_report *gs;
	const struct guest_iteration *it;

	(void)state;
	head(&s);
	good_iteration(&s, 0);
	rec(&s, MMREC_ITER_BEGIN, "iter=1");
	rec(&s, MMREC_SNAPSHOT, "iter=1 phase=before name=vmstat\npgfault 1\n");
	rec(&s, MMREC_RESULT, "iter=1 exit=3 signal=0 user_s=1 system_s=1 elapsed_s=1");
	gs = guest_stream_parse(s.buf, s.len, "usemem");
	assert_int_equal(gs->nits, 2);
	assert_true(guest_stream_find(gs, 0)->ok);
	it = guest_stream_find(gs, 1);
	assert_non_null(it);
	assert_false(it->ended);
	assert_false(it->ok);
	assert_non_null(it->reason);
	assert_true(it->has_result);
	assert_int_equal(it->exit_code, 3);
	assert_null(metric(it, "vmstat.pgfault")); /* no "after" snapshot */
	assert_non_null(metric(it, "time.elapsed_s"));
	assert_int_equal(it->nbefore, 1);
	assert_int_equal(it->nafter, 0);
	assert_null(guest_stream_find(gs, 2));
	assert_false(gs->info.done);
	assert_int_equal(gs->counts.skipped_bytes + gs->counts.bad_crc + gs->counts.truncated, 0);
	guest_stream_free(gs);
	free(s.buf);
}

/* the typed series, as SERIES sent them */
static void test_typed_series(void **state)
{
	struct stream s = { 0 };
	struct guest_report *gs;
	const struct iter_timeseries *ts;

	(void)state;
	good_iteration(&s, 0);
	rec(&s, MMREC_SERIES,
	    "iter=0 interval_s=2 samples=2\nvmstat.a 1 2.5\nvmstat.a 3 4\nvmstat.b 5 6\n");
	gs = guest_stream_parse(s.buf, s.len, "usemem");
	ts = &gs->its[0].ts;
	assert_true(ts->present);
	assert_true(ts->interval_s == 2);
	assert_int_equal(ts->samples, 2);
	assert_int_equal(ts->nseries, 2); /* the second vmstat.a is dropped */
	assert_string_equal(ts->series[0].name, "vmstat.a");
	assert_int_equal(ts->series[0].n, 2);
	assert_true(ts->series[0].v[1] == 2.5);
	assert_string_equal(ts->series[1].name, "vmstat.b");
	assert_true(ts->series[1].v[0] == 5);
	guest_stream_free(gs);
	free(s.buf);
}

/* COUNTS: only the collector families; SERIES: exact shape; SETUP_ERROR */
static void test_collectors(void **state)
{
	struct guest_stream_info info;
	char big[4096];
	struct stream s = { 0 };
	json_t *root, *it, *m, *ts, *a;

	(void)state;
	head(&s);
	good_iteration(&s, 0);
	rec(&s, MMREC_COUNTS,
	    "iter=0\ntrace.compaction:mm_compaction_begin 12\n"
	    "kthread.kcompactd0.cpu_s 0.25\ndmesg.warnings 1\n"
	    "extfrag.node0.DMA32.unusable_o9.before 0.5\n"
	    "time.elapsed_s 99\nvmstat.pgfault 7\ntrace.x nan\nnovalue\n");
	rec(&s, MMREC_SERIES,
	    "iter=0 interval_s=1 samples=3\n"
	    "vmstat.nr_free_pages 10 9 8\nnode1.vmstat.nr_free_pages 5 4 3\n"
	    "vmstat.short 1 2\ntime.bad 1 2 3\nvmstat.nan 1 x 3\n");
	root = parse(s.buf, s.len, "usemem", NULL);
	it = iter(root, 0);
	m = json_object_get(it, "metrics");
	assert_int_equal((int)num(m, "trace.compaction:mm_compaction_begin"), 12);
	assert_true(num(m, "kthread.kcompactd0.cpu_s") == 0.25);
	assert_int_equal((int)num(m, "dmesg.warnings"), 1);
	assert_true(num(m, "extfrag.node0.DMA32.unusable_o9.before") == 0.5);
	/* a COUNTS record cannot overwrite other families */
	assert_true(num(m, "time.elapsed_s") == 1.5);
	assert_int_equal((int)num(m, "vmstat.pgfault"), 50);
	assert_null(json_object_get(m, "trace.x"));
	assert_true(log_has(root, "bad COUNTS line"));
	ts = json_object_get(it, "timeseries");
	assert_non_null(ts);
	assert_int_equal(json_integer_value(json_object_get(ts, "interval_s")), 1);
	a = json_object_get(json_object_get(ts, "series"), "vmstat.nr_free_pages");
	assert_int_equal(json_array_size(a), 3);
	assert_true(json_number_value(json_array_get(a, 2)) == 8);
	assert_non_null(
		json_object_get(json_object_get(ts, "series"), "node1.vmstat.nr_free_pages"));
	assert_int_equal(json_object_size(json_object_get(ts, "series")), 2);
	assert_null(json_object_get(root, "setup_error"));
	json_decref(root);

	rec(&s, MMREC_SETUP_ERROR, "what=collectors\ntracepoint 'a:b' matches no event");
	root = parse(s.buf, s.len, "usemem", &info);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(root, "setup_error"), "message")),
		"tracepoint 'a:b' matches no event");
	assert_true(info.setup_error);
	assert_string_equal(info.setup_what, "collectors");
	assert_string_equal(info.setup_message, "tracepoint 'a:b' matches no event");
	json_decref(root);

	/* a hostile one: bounded, made printable, the same in both */
	memset(big, 'm', sizeof(big) - 1);
	memcpy(big, "what=a\001b\n\033[2J", 13);
	big[sizeof(big) - 1] = '\0';
	rec(&s, MMREC_SETUP_ERROR, big);
	root = parse(s.buf, s.len, "usemem", &info);
	assert_true(info.setup_error);
	assert_string_equal(info.setup_what, "a?b");
	assert_int_equal(strlen(info.setup_message), GUEST_STREAM_SETUP_MESSAGE_MAX);
	assert_memory_equal(info.setup_message, "?[2Jmmm", 7);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(root, "setup_error"), "message")),
		info.setup_message);
	json_decref(root);
	free(s.buf);
}

/* TIERS: the tier layout kept as the iteration's "tiers", bad lines dropped */
static void test_tiers(void **state)
{
	struct stream s = { 0 };
	json_t *root, *t, *a;

	(void)state;
	head(&s);
	good_iteration(&s, 0);
	rec(&s, MMREC_TIERS,
	    "iter=0\ndemotion_enabled=true\ntier=22 nodes=1-2\ntier=4 nodes=0\n"
	    "node=1 cpus=- memory_kb=524288\n"
	    "access=1 class=0 initiators=0 read_latency=300 read_bandwidth=4096\n"
	    "tier=x nodes=1\ntier=5 nodes=$(reboot)\nnode=1 cpus=a\nwhat=ever\ntier=9 nodes=3\n");
	root = parse(s.buf, s.len, "usemem", NULL);
	t = json_object_get(iter(root, 0), "tiers");
	assert_non_null(t);
	assert_true(json_is_true(json_object_get(t, "demotion_enabled")));
	a = json_object_get(t, "tiers");
	assert_int_equal(json_array_size(a), 3); /* by id, whatever the guest's order */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "id")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 1), "id")), 9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 1), "nodes")), "3");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 2), "id")), 22);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 2), "nodes")),
			    "1-2");
	a = json_object_get(t, "nodes");
	assert_int_equal(json_array_size(a), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "cpus")), "-");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "memory_kb")),
			 524288);
	a = json_object_get(t, "access");
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "read_latency")),
			 300);
	assert_null(json_object_get(json_array_get(a, 0), "write_latency"));
	assert_true(log_has(root, "bad TIERS line \"tier=x"));
	assert_true(log_has(root, "bad TIERS line \"what=ever"));
	json_decref(root);
	free(s.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_stream),   cmocka_unit_test(test_hostile_metrics),
		cmocka_unit_test(test_missing_after), cmocka_unit_test(test_guest_failed),
		cmocka_unit_test(test_garbage),	      cmocka_unit_test(test_many_iterations),
		cmocka_unit_test(test_real_capture),  cmocka_unit_test(test_save_snapshots),
		cmocka_unit_test(test_collectors),    cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_stream_totals), cmocka_unit_test(test_file_records),
		cmocka_unit_test(test_typed),	      cmocka_unit_test(test_typed_truncated),
		cmocka_unit_test(test_typed_bad_crc), cmocka_unit_test(test_typed_not_ended),
		cmocka_unit_test(test_typed_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
