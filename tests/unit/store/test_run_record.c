// SPDX-License-Identifier: GPL-2.0
/*
 * test_run_record.c - run.json <-> struct run_record (lab/store/run_record.c):
 * the records the runner writes (a run, a queued run) and what other
 * writers add read and write back to the same JSON, byte for byte as the
 * store writes it; the typed fields hold what the runner reads back; a
 * malformed value is kept, not lost or misread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "store/store.h"
#include "store/run_record.h"
#include "lib/util.h"

/* a finished "mmlab run --until-significant --observer-check", resumed once, with a verdict */
static const char run_json[] =
	"{\"run\": \"20261203-103304-demo-4fd2\", \"job\": \"demo\", \"status\": \"complete\","
	" \"created\": \"2026-12-03T10:33:04Z\", \"finished\": \"2026-12-03T10:40:00Z\","
	" \"job_file\": \"jobs/demo.yaml\", \"job_dir\": \"/work/jobs\", \"pid\": 4242,"
	" \"host_boot_id\": \"0b1c2d\", \"attempt\": 2, \"observer_check\": true,"
	" \"order\": {\"mode\": \"random\", \"seed\": 1645626720,"
	"   \"sequence\": [\"madvise/2\", \"src/0..1\"]},"
	" \"job_resolved\": {\"name\": \"demo\", \"iterations\": 3, \"accel\": \"auto\","
	"   \"variants\": [{\"name\": \"madvise\", \"ref\": null}]},"
	" \"variants\": ["
	"   {\"name\": \"madvise\", \"kernel\": {\"path\": \"/boot/vmlinuz-6.1\","
	"     \"release\": \"6.1.0\", \"sha256\": \"8566\", \"version\": \"6.1.0 #1\"}},"
	"   {\"name\": \"src\", \"kernel\": {\"path\": \"/c/bzImage\", \"release\": \"6.12.0\","
	"     \"version\": \"6.12.0 #2\", \"sha256\": \"aa01\", \"source\": \"build\","
	"     \"cache_key\": \"k1\", \"cache_hit\": false, \"base_commit\": \"abc\","
	"     \"config_hash\": \"cfg\", \"build_log\": \"/c/build.log\","
	"     \"operations\": [{\"op\": \"revert\", \"arg\": \"x\", \"resolved\": \"y\"}]}}],"
	" \"host\": {\"accel\": \"tcg\", \"accel_reason\": \"KVM probe failed\", \"cpu\": \"AMD EPYC\","
	"   \"cpus\": 2, \"hostname\": \"vm\", \"image\": \"de73\", \"kernel\": \"6.18\","
	"   \"libvirt\": \"9.0.0\", \"qemu\": \"7.2.22\", \"uri\": \"qemu:///system\","
	"   \"disk_image\": \"d1\"},"
	" \"until_significant\": {\"precision\": 0.02, \"max_iterations\": 20,"
	"   \"metrics\": \"time.elapsed_s,time.system_s\", \"confidence\": 0.95,"
	"   \"iterations\": 5, \"rounds\": 2, \"reached\": true, \"stopped\": \"precision reached\","
	"   \"worst\": {\"metric\": \"time.elapsed_s\", \"variant\": \"madvise\", \"n\": 5,"
	"     \"mean\": 1.5, \"halfwidth_rel\": 0.0123456789012345},"
	"   \"metrics_detail\": [{\"metric\": \"time.elapsed_s\", \"variant\": \"madvise\","
	"     \"n\": 5, \"mean\": 1.5, \"halfwidth_rel\": 0.0123456789012345}]},"
	" \"repro\": {\"verdict\": \"REPRODUCED\", \"p\": 0.001}}";

/* a run the queue created (runner_create()): no pid, a boot plan, kernels to build */
static const char queued_json[] =
	"{\"run\": \"20261203-110000-q-0001\", \"job\": \"q\", \"status\": \"queued\","
	" \"created\": \"2026-12-03T11:00:00Z\", \"job_file\": \"q.yaml\", \"job_dir\": \"/j\","
	" \"host_boot_id\": \"b\", \"order\": {\"mode\": \"sequential\", \"seed\": 7},"
	" \"job_resolved\": {\"name\": \"q\"},"
	" \"variants\": ["
	"   {\"name\": \"base\", \"kernel\": {\"source\": \"build\", \"build_pending\": true,"
	"     \"request\": \"req1\", \"base_commit\": \"abc\", \"operations\": []}},"
	"   {\"name\": \"bad\", \"kernel\": {\"source\": \"build\", \"build_failed\": true,"
	"     \"build_log\": \"/l\"}}],"
	" \"host\": {\"accel\": \"kvm\", \"accel_reason\": \"r\", \"cpu\": \"c\", \"cpus\": 2,"
	"   \"image\": \"i\"},"
	" \"boots\": [{\"variant\": \"base\", \"first\": 0, \"count\": 2, \"build\": \"req1\"},"
	"   {\"variant\": \"bad\", \"first\": 0, \"count\": 2}],"
	" \"slurm\": {\"jobs\": [1, 2]}}";

/* what no runner writes: every odd value must survive as it is */
static const char odd_json[] =
	"{\"run\": \"r3\", \"status\": 5, \"pid\": \"x\", \"attempt\": 0,"
	" \"observer_check\": false, \"finished\": null,"
	" \"order\": {\"mode\": \"weird\", \"seed\": 1},"
	" \"variants\": [{\"kernel\": {}}],"
	" \"host\": {\"cpus\": 0, \"accel\": 1, \"qemu\": 7, \"libvirt\": null},"
	" \"boots\": [{\"variant\": \"a\", \"first\": 0}],"
	" \"until_significant\": {\"precision\": 0.02},"
	" \"extra\": null}";

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("bad test JSON: %s at %d:%d", e.text, e.line, e.column);
	return j;
}

/* the bytes the store writes */
static char *dump(const json_t *j)
{
	return json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
}

static void roundtrip(const char *text, struct run_record *rec)
{
	json_t *in = parse(text), *out;
	char *a, *b;

	assert_int_equal(run_record_from_json(in, rec), 0);
	out = run_record_to_json(rec);
	a = dump(in);
	b = dump(out);
	assert_string_equal(b, a);
	assert_true(json_equal(in, out));
	free(a);
	free(b);
	json_decref(in);
	json_decref(out);
}

static void test_run(void **state)
{
	struct run_record rec;

	(void)state;
	roundtrip(run_json, &rec);
	assert_string_equal(rec.run, "20261203-103304-demo-4fd2");
	assert_string_equal(rec.status, "complete");
	assert_string_equal(rec.finished, "2026-12-03T10:40:00Z");
	assert_string_equal(rec.job_file, "jobs/demo.yaml");
	assert_string_equal(rec.job_dir, "/work/jobs");
	assert_int_equal(rec.pid, 4242);
	assert_string_equal(rec.host_boot_id, "0b1c2d");
	assert_int_equal(rec.attempt, 2);
	assert_true(rec.observer_check);
	assert_int_equal(rec.order.mode, RUN_ORDER_RANDOM);
	assert_int_equal(rec.order.seed, 1645626720);
	assert_true(rec.order.has_sequence);
	assert_int_equal(rec.order.sequence.n, 2);
	assert_string_equal(rec.order.sequence.v[1], "src/0..1");
	assert_int_equal(rec.nvariants, 2);
	assert_string_equal(rec.variants[0].name, "madvise");
	assert_true(rec.variants[0].has_kernel);
	assert_string_equal(rec.variants[0].kernel.sha256, "8566");
	assert_string_equal(rec.variants[0].kernel.release, "6.1.0");
	assert_string_equal(rec.variants[1].kernel.release, "6.12.0");
	assert_null(rec.variants[0].kernel.cache_key);
	assert_string_equal(rec.variants[1].kernel.cache_key, "k1");
	assert_string_equal(rec.variants[1].kernel.build_log, "/c/build.log");
	assert_false(rec.variants[1].kernel.build_failed);
	assert_true(rec.has_host);
	assert_string_equal(rec.host.accel, "tcg");
	assert_int_equal(rec.host.cpus, 2);
	assert_string_equal(rec.host.disk_image, "d1");
	assert_string_equal(rec.host.qemu, "7.2.22");
	assert_string_equal(rec.host.libvirt, "9.0.0");
	assert_null(json_object_get(rec.host.rest, "qemu")); /* typed, not in the rest */
	assert_null(rec.boots);
	assert_true(rec.until.present);
	assert_int_equal(rec.until.iterations, 5);
	assert_int_equal(rec.until.rounds, 2);
	assert_int_equal(rec.until.max_iterations, 20);
	assert_true(rec.until.reached);
	assert_string_equal(rec.until.stopped, "precision reached");
	assert_non_null(rec.until.worst);
	assert_non_null(rec.repro); /* repro's verdict, typed */
	assert_null(json_object_get(rec.rest, "status")); /* typed, not in the rest */
	run_record_release(&rec);
}

static void test_queued(void **state)
{
	struct run_record rec;

	(void)state;
	roundtrip(queued_json, &rec);
	assert_string_equal(rec.status, "queued");
	assert_int_equal(rec.pid, 0);
	assert_int_equal(rec.attempt, 0);
	assert_false(rec.observer_check);
	assert_int_equal(rec.order.mode, RUN_ORDER_SEQUENTIAL);
	assert_false(rec.order.has_sequence);
	assert_true(rec.variants[0].kernel.build_pending);
	assert_string_equal(rec.variants[0].kernel.request, "req1");
	assert_null(rec.variants[0].kernel.sha256);
	assert_true(rec.variants[1].kernel.build_failed);
	assert_string_equal(rec.variants[1].kernel.build_log, "/l");
	assert_int_equal(rec.nboots, 2);
	assert_string_equal(rec.boots[0].variant, "base");
	assert_int_equal(rec.boots[0].count, 2);
	assert_string_equal(rec.boots[0].build, "req1");
	assert_null(rec.boots[1].build);
	assert_false(rec.until.present);
	run_record_release(&rec);
}

static void test_odd_values_kept(void **state)
{
	struct run_record rec;

	(void)state;
	roundtrip(odd_json, &rec);
	assert_null(rec.status);
	assert_int_equal(rec.pid, 0);
	assert_int_equal(rec.attempt, 0);
	assert_false(rec.observer_check);
	assert_int_equal(rec.order.mode, RUN_ORDER_NONE);
	assert_null(rec.variants);
	assert_true(rec.has_host);
	assert_null(rec.host.accel);
	assert_null(rec.host.qemu); /* not a string: kept in the rest as it is */
	assert_null(rec.host.libvirt);
	assert_int_equal(rec.host.cpus, 0);
	assert_null(rec.boots);
	assert_false(rec.until.present);
	assert_string_equal(run_record_status(&rec), "unknown");
	run_record_release(&rec);
	assert_int_equal(run_record_from_json(json_null(), &rec), -1);
}

/* a typed change is written; what others wrote stays */
static void test_update(void **state)
{
	struct run_record rec;
	json_t *in = parse(run_json), *out;

	(void)state;
	assert_int_equal(run_record_from_json(in, &rec), 0);
	free(rec.status);
	rec.status = xstrdup("running");
	rec.pid = 99;
	rec.attempt = 3;
	strlist_push(&rec.order.sequence, "madvise/3");
	rec.until.rounds = 3;
	free(rec.until.stopped);
	rec.until.stopped = NULL;
	out = run_record_to_json(&rec);
	assert_string_equal(json_string_value(json_object_get(out, "status")), "running");
	assert_int_equal(json_integer_value(json_object_get(out, "pid")), 99);
	assert_int_equal(json_integer_value(json_object_get(out, "attempt")), 3);
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(out, "order"), "sequence")), 3);
	assert_true(json_is_null(
		json_object_get(json_object_get(out, "until_significant"), "stopped")));
	assert_true(json_equal(json_object_get(out, "repro"), json_object_get(in, "repro")));
	assert_true(json_equal(json_object_get(out, "variants"), json_object_get(in, "variants")));
	assert_true(json_equal(json_object_get(out, "host"), json_object_get(in, "host")));
	json_decref(out);
	json_decref(in);
	run_record_release(&rec);
}

/* a variant's kernel record is what kernel_info_json() writes, for every kind */
static void test_kernel_records(void **state)
{
	struct kernel_info kis[4] = {
		{ .path = "/boot/vmlinuz", .release = "6.1", .version = "6.1 #1" },
		{ .path = "/c/bz",
		  .release = "6.12",
		  .version = "v",
		  .cache_key = "k",
		  .base_commit = "abc",
		  .config_hash = "h",
		  .build_log = "/log" },
		{ .build_failed = true, .build_log = "/log" },
		{ .build_pending = true, .request = "req", .base_commit = "abc" },
	};

	(void)state;
	strcpy(kis[0].sha256, "11");
	strcpy(kis[1].sha256, "22");
	for (size_t i = 0; i < ARRAY_SIZE(kis); i++) {
		struct run_variant v = { 0 };
		json_t *want = kernel_info_json(&kis[i]);
		struct run_record rec = { .variants = &v, .nvariants = 1 };
		json_t *got;

		run_kernel_set(&v.kernel, &v.has_kernel, &kis[i]);
		assert_true(v.has_kernel);
		v.name = "v";
		got = run_record_to_json(&rec);
		assert_true(json_equal(
			json_object_get(json_array_get(json_object_get(got, "variants"), 0),
					"kernel"),
			want));
		assert_int_equal(v.kernel.build_failed, kis[i].build_failed);
		json_decref(got);
		json_decref(want);
		v.name = NULL;
		run_kernel_set(&v.kernel, &v.has_kernel, &(struct kernel_info){ 0 });
		assert_false(v.has_kernel); /* no image, no request: nothing to record */
		json_decref(v.kernel.rest);
	}
}

static void test_store(void **state)
{
	char dir[] = "/tmp/mmlab-test-record-XXXXXX";
	struct run_record rec, back;
	struct store *s;
	json_t *in = parse(queued_json);

	(void)state;
	assert_non_null(mkdtemp(dir));
	s = store_open(dir);
	assert_non_null(s);
	assert_int_equal(run_record_from_json(in, &rec), 0);
	free(rec.run);
	rec.run = store_run_create(s, "q");
	assert_int_equal(store_record_write(s, rec.run, &rec), 0);
	assert_int_equal(store_record_read(s, rec.run, &back), 0);
	assert_string_equal(back.run, rec.run);
	assert_int_equal(back.nboots, 2);
	assert_non_null(json_object_get(back.rest, "slurm"));
	run_record_release(&back);
	run_record_release(&rec);
	json_decref(in);
	store_close(s);
	rm_rf(dir);
}

/* a kernel waiting for build request "req", with the job's operations */
static const char pending_json[] =
	"{\"source\": \"build\", \"build_pending\": true, \"request\": \"req\","
	" \"base_commit\": \"abc\", \"operations\": [{\"op\": \"revert\"}]}";

/* <run>/kernels/<variant>.json: the build hands on its kernel; untrusted */
static void test_kernel_file(void **state)
{
	static const char *const refused[] = {
		"[]",
		"\"req\"",
		"{\"kernel\": {\"sha256\": \"ff\"}}",
		"{\"request\": \"other\", \"kernel\": {\"sha256\": \"ff\"}}",
		"{\"request\": 7, \"kernel\": {\"sha256\": \"ff\"}}",
		"{\"request\": \"req\", \"kernel\": [\"ff\"]}",
		"{\"request\": \"req\"}",
	};
	json_t *in = parse(pending_json), *f, *back;
	struct run_kernel k;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		f = json_loads(refused[i], JSON_DECODE_ANY, NULL);
		assert_non_null(f);
		assert_int_equal(run_kernel_from_json(in, &k), 0);
		run_kernel_from_file(&k, f);
		back = run_kernel_build_result(&k);
		json_object_set(back, "operations", json_object_get(in, "operations"));
		assert_true(json_equal(back, in)); /* untouched */
		json_decref(back);
		json_decref(f);
		run_kernel_release(&k);
	}
	f = parse("{\"request\": \"req\", \"kernel\": {\"path\": \"/c/bz\", \"sha256\": \"ff\","
		  " \"source\": \"build\", \"cache_key\": \"k9\", \"cache_hit\": false,"
		  " \"operations\": [{\"op\": \"other\"}]}}");
	assert_int_equal(run_kernel_from_json(in, &k), 0);
	run_kernel_from_file(&k, f);
	assert_false(k.build_pending);
	assert_null(k.request);
	assert_string_equal(k.path, "/c/bz");
	assert_string_equal(k.sha256, "ff");
	assert_string_equal(k.cache_key, "k9");
	assert_true(k.has_cache_hit);
	assert_false(k.cache_hit);
	/* the operations as the job wrote them, not the file's */
	assert_true(json_equal(k.operations, json_object_get(in, "operations")));
	run_kernel_release(&k);
	json_decref(f);
	json_decref(in);
}

/* a build item's outcome in the queue becomes the waiting variant's kernel */
static void test_kernel_built(void **state)
{
	json_t *in = parse(pending_json), *arr = parse("[]"), *res, *out;
	struct run_kernel k, built;

	(void)state;
	assert_int_equal(run_kernel_from_json(json_null(), &built), -1);
	assert_int_equal(run_kernel_from_json(arr, &built), -1);
	json_decref(arr);
	res = parse("{\"path\": \"/c/bz\", \"sha256\": \"ee\", \"cache_hit\": true,"
		    " \"build_log\": \"/l\", \"release\": \"6.12\"}");
	assert_int_equal(run_kernel_from_json(in, &k), 0);
	assert_int_equal(run_kernel_from_json(res, &built), 0);
	assert_true(built.cache_hit);
	assert_false(built.build_failed);
	out = run_kernel_build_result(&built);
	assert_true(json_equal(out, res)); /* the whole outcome, "release" too */
	json_decref(out);
	run_kernel_built(&k, &built);
	assert_string_equal(k.sha256, "ee");
	assert_false(k.build_pending);
	assert_true(json_equal(k.operations, json_object_get(in, "operations")));
	out = run_kernel_build_result(&k);
	assert_null(json_object_get(out, "operations"));
	assert_string_equal(json_string_value(json_object_get(out, "release")), "6.12");
	json_decref(out);
	run_kernel_release(&built);
	run_kernel_release(&k);
	json_decref(res);
	json_decref(in);
}

/* repro's verdict is typed; what is not an object is refused */
/* until_significant's widest entry, typed: finite, infinite (null), odd, none */
static void test_until_worst(void **state)
{
	struct run_record rec;
	struct run_until_worst w;

	(void)state;
	roundtrip(run_json, &rec);
	assert_true(run_until_worst(&rec.until, &w));
	assert_string_equal(w.metric, "time.elapsed_s");
	assert_string_equal(w.variant, "madvise");
	assert_true(w.finite);
	assert_true(w.halfwidth_rel == 0.0123456789012345);
	assert_int_equal(w.n, 5);
	json_decref(rec.until.worst);
	rec.until.worst = json_pack("{s:i, s:n, s:s}", "metric", 3, "halfwidth_rel", "n", "5");
	assert_true(run_until_worst(&rec.until, &w));
	assert_null(w.metric); /* not a string */
	assert_null(w.variant);
	assert_false(w.finite); /* null: no finite half-width */
	assert_int_equal(w.n, 0);
	json_decref(rec.until.worst);
	rec.until.worst = NULL;
	assert_false(run_until_worst(&rec.until, &w));
	assert_null(w.metric);
	run_record_release(&rec);
}

static void test_verdict(void **state)
{
	json_t *recipe = parse("{\"name\": \"r\"}"), *eval = parse("{\"exit\": 0}"), *j;
	struct run_record rec = { 0 };

	(void)state;
	assert_int_equal(run_record_set_verdict(&rec, recipe, json_null()), -1);
	assert_int_equal(run_record_set_verdict(&rec, NULL, eval), -1);
	assert_null(rec.recipe);
	assert_int_equal(run_record_set_verdict(&rec, recipe, eval), 0);
	j = run_record_to_json(&rec);
	assert_true(json_equal(json_object_get(j, "recipe"), recipe));
	assert_true(json_equal(json_object_get(j, "repro"), eval));
	run_record_release(&rec);
	assert_int_equal(run_record_from_json(j, &rec), 0);
	assert_true(json_equal(rec.repro, eval));
	assert_null(json_object_get(rec.rest, "repro"));
	run_record_release(&rec);
	json_decref(j);
	json_decref(recipe);
	json_decref(eval);
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
}

/* the kernels the stored runs use, for the caches' gc */
static void test_kernels_used(void **state)
{
	char dir[] = "/tmp/mmlab-test-used-XXXXXX";
	struct kernel_uses u;
	char *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store_kernels_used("/nonexistent/mmlab-results", &u), 0);
	assert_int_equal(u.n, 0);
	assert_int_equal(store_kernels_used(NULL, &u), 0);
	assert_int_equal(u.n, 0);
	p = xasprintf("%s/r1", dir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/r1/run.json", dir);
	write_text(p, "{\"run\": \"r1\", \"variants\": [{\"name\": \"a\", \"kernel\":"
		      " {\"cache_key\": \"k1\"}}, {\"name\": \"b\", \"kernel\": {\"package\":"
		      " {\"sha256\": \"p1\"}}}, {\"name\": \"c\", \"kernel\": {\"path\": \"/x\"}},"
		      " {\"name\": \"d\"}]}");
	free(p);
	p = xasprintf("%s/r2", dir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/r2/run.json", dir);
	write_text(p, "{not json"); /* skipped after a message */
	free(p);
	assert_int_equal(store_kernels_used(dir, &u), 0);
	assert_int_equal(u.n, 2);
	assert_string_equal(u.v[0].run, "r1");
	assert_string_equal(u.v[0].cache_key, "k1");
	assert_null(u.v[0].package_sha256);
	assert_null(u.v[1].cache_key);
	assert_string_equal(u.v[1].package_sha256, "p1");
	kernel_uses_free(&u);
	assert_int_equal(u.n, 0);
	rm_rf(dir);
}

/* run_record_status() of a record with these fields */
static const char *status_of(const char *status, long long pid, char *boot_id)
{
	struct run_record rec = { .status = (char *)status, .pid = pid, .host_boot_id = boot_id };

	return run_record_status(&rec);
}

static void test_effective_status(void **state)
{
	char *me = host_boot_id();

	(void)state;
	assert_string_equal(status_of("complete", 1, NULL), "complete");
	assert_string_equal(status_of("running", getpid(), me), "running");
	assert_string_equal(status_of("running", getpid(), "another-boot"), "incomplete");
	assert_string_equal(status_of("running", 0, NULL), "running");
	free(me);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_odd_values_kept),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_kernel_records),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_effective_status),
		cmocka_unit_test(test_kernel_file),
		cmocka_unit_test(test_kernel_built),
		cmocka_unit_test(test_until_worst),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_kernels_used),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
