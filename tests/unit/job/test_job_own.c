// SPDX-License-Identifier: GPL-2.0
/*
 * test_job_own.c - command workloads in job files (lab/job/parse_own.c,
 * parse_metrics.c): the forms the docs show load exactly as written, into
 * the exact structs; each new key's mistakes fail at FILE:LINE:COLUMN
 * (the bad files of tests/unit/jobs/bad/own-*.yaml are in test_job.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"

#include "job/job.h"
#include "job/job_own.h"
#include "job_errors.h"

static struct job *load_file(const char *name)
{
	struct job *job = NULL;
	struct capture c;
	char *path, *errs;
	int ret;

	assert_true(asprintf(&path, "%s/tests/unit/jobs/own/%s", srcdir(), name) > 0);
	capture_start(&c);
	ret = job_load(path, &job);
	errs = capture_end(&c);
	if (ret)
		print_error("%s: unexpected errors:\n%s", name, errs);
	assert_int_equal(ret, 0);
	assert_string_equal(errs, "");
	free(errs);
	free(path);
	return job;
}

/* the errors of a job (in tests/unit/jobs/own/, so that its files exist) */
static char *load_errors(const char *yaml)
{
	char *dir, *errs;

	assert_true(asprintf(&dir, "%s/tests/unit/jobs/own", srcdir()) > 0);
	errs = job_errors_in(dir, yaml);
	free(dir);
	return errs;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void test_reproducer(void **state)
{
	struct job *job = load_file("reproducer.yaml");
	const struct job_own *o = job->workload.own;

	(void)state;
	assert_non_null(o);
	assert_string_equal(job->workload.name, "repro");
	assert_int_equal(o->argv.n, 3);
	assert_string_equal(o->argv.v[0], "repro");
	assert_string_equal(o->argv.v[2], "4");
	assert_true(o->has_build);
	assert_int_equal(o->build.sources.n, 1);
	assert_true(ends_with(o->build.sources.v[0], "/own/bugs/217011/repro.c"));
	assert_string_equal(o->build.output, "repro");
	assert_int_equal(o->build.cflags.n, 2);
	assert_string_equal(o->build.cflags.v[1], "-pthread");
	assert_int_equal(o->timeout_s, 600);
	/* the host's deadline leaves the agent's timeout room to fire */
	assert_true(job->timeouts.iteration_s >= 600 + 30);
	assert_int_equal(o->phase, OWN_PHASE_WHOLE);
	assert_int_equal(o->nmetrics, 2);
	assert_string_equal(o->metrics[0].name, "alloc_us");
	assert_int_equal(o->metrics[0].from, OWN_FROM_STDOUT);
	assert_string_equal(o->metrics[0].regex, "avg alloc latency: ([0-9.]+) us");
	assert_string_equal(o->metrics[0].unit, "us");
	assert_int_equal(o->metrics[0].dir, OWN_DIR_LOWER);
	assert_int_equal(o->metrics[0].reduce, OWN_REDUCE_LAST);
	assert_null(o->metrics[1].unit);
	assert_int_equal(o->metrics[1].file_index, -1);
	assert_int_equal(o->read.n, 0);
	assert_false(o->read_dmesg);
	job_free(job);
}

static void test_script(void **state)
{
	struct job *job = load_file("script.yaml");
	const struct job_own *o = job->workload.own;

	(void)state;
	assert_string_equal(job->workload.name, "sh");
	assert_int_equal(job->image.kind, IMAGE_DEBOOTSTRAP);
	assert_string_equal(job->image.packages.v[0], "stress-ng");
	assert_int_equal(o->nfiles, 2);
	assert_true(ends_with(o->files[0].src, "/own/scripts/run.sh"));
	assert_string_equal(o->files[0].dst, "run.sh");
	assert_string_equal(o->files[1].dst, "input.bin");
	assert_int_equal(o->nmetrics, 1);
	assert_int_equal(o->metrics[0].from, OWN_FROM_STDOUT);
	assert_null(o->metrics[0].regex);
	assert_null(o->metrics[0].name);
	assert_false(o->metrics[0].declare_only);
	assert_int_equal(o->timeout_s, 0);
	assert_int_equal(job->timeouts.iteration_s, 600);
	job_free(job);
}

static void test_stress_ng(void **state)
{
	struct job *job = load_file("stress-ng.yaml");
	const struct job_own *o = job->workload.own;
	const struct own_metric *m = &o->metrics[0];

	(void)state;
	assert_string_equal(job->workload.name, "stress-ng");
	assert_int_equal(o->argv.n, 10);
	assert_string_equal(o->argv.v[4], "60%");
	assert_int_equal(m->from, OWN_FROM_YAML);
	assert_string_equal(m->file, "out.yaml");
	assert_int_equal(m->file_index, 0);
	assert_string_equal(o->read.v[0], "out.yaml");
	assert_string_equal(m->path, "metrics[*]");
	assert_string_equal(m->name, "stressor");
	assert_int_equal(m->values.n, 1);
	assert_string_equal(m->values.v[0], "bogo-ops-per-second-real-time");
	assert_int_equal(m->dir, OWN_DIR_NEUTRAL);
	job_free(job);
}

static void test_module(void **state)
{
	struct job *job = load_file("module.yaml");
	const struct job_own *o = job->workload.own;

	(void)state;
	assert_string_equal(job->workload.name, "page_bench");
	assert_int_equal(o->argv.n, 0);
	assert_true(o->has_module);
	assert_string_equal(o->module.name, "page_bench");
	assert_true(ends_with(o->module.src, "/own/page_bench"));
	assert_string_equal(o->module.param_text, "loops=1000 order=2");
	assert_true(o->read_dmesg);
	assert_int_equal(o->metrics[0].from, OWN_FROM_DMESG);
	job_free(job);
}

/* the other keys and forms: files as mappings, named, handshake, declarations */
static void test_more_forms(void **state)
{
	static const char yaml[] =
		"name: x\nvariants: [ { name: b } ]\ntopology: { nodes: 1, memory_per_node: 256M }\n"
		"workload:\n"
		"  name: mine\n"
		"  command: [./run.sh, \" two words \"]\n"
		"  files: [ { src: scripts/run.sh, dst: bin/run.sh }, data/input.bin ]\n"
		"  phase: handshake\n"
		"  timeout: 90\n"
		"  metrics:\n"
		"    - { from: stderr }\n"
		"    - { name: \"elapsed_s.T*\", unit: s, direction: lower }\n"
		"    - { file: res.txt, regex: \"x=([0-9]+)\", name: x, reduce: max }\n"
		"    - { from: json, file: /proc/mmlab_x, path: \"a.b[0]\", name: y, direction: higher }\n"
		"    - { from: json, path: \"runs.*\", values: [ops, lat] }\n"
		"timeouts: { iteration: 5m }\n";
	struct job *job = NULL;
	const struct job_own *o;
	char *dir;

	(void)state;
	assert_true(asprintf(&dir, "%s/tests/unit/jobs/own", srcdir()) > 0);
	assert_int_equal(job_load_buffer("t.yaml", yaml, strlen(yaml), dir, &job), 0);
	o = job->workload.own;
	assert_string_equal(job->workload.name, "mine");
	assert_true(o->name_given);
	assert_string_equal(o->argv.v[1], " two words ");
	assert_string_equal(o->files[0].dst, "bin/run.sh");
	assert_int_equal(o->phase, OWN_PHASE_HANDSHAKE);
	assert_int_equal(o->timeout_s, 90);
	assert_int_equal(job->timeouts.iteration_s, 300);
	assert_int_equal(o->metrics[0].from, OWN_FROM_STDERR);
	assert_true(o->metrics[1].declare_only);
	assert_int_equal(o->metrics[2].from, OWN_FROM_FILE);
	assert_int_equal(o->metrics[2].reduce, OWN_REDUCE_MAX);
	assert_int_equal(o->metrics[3].file_index, 1);
	assert_string_equal(o->read.v[1], "/proc/mmlab_x");
	assert_null(o->metrics[4].file);
	assert_int_equal(o->metrics[4].values.n, 2);
	job_free(job);
	free(dir);
}

struct own_bad {
	const char *workload; /* the workload: mapping's body, indented by 2 */
	const char *pos; /* LINE:COLUMN of the first error */
	const char *msg;
};

/* the job around each: the workload mapping starts on line 4 */
static const struct own_bad bad[] = {
	{ "  command: repro\n", "5:12",
	  "workload.command: got a scalar; expected a list (the argv" },
	{ "  command: []\n", "5:12", "workload.command: has 0 entries; expected 1..64" },
	{ "  command: [\"\"]\n", "5:13", "workload.command[0]: is empty" },
	{ "  command: [\"a b\"]\n", "5:13", "workload.command[0]: 'a b' cannot name the metrics" },
	{ "  command: [usemem]\n", "5:13", "'usemem' cannot name the metrics; set workload.name" },
	{ "  name: usemem\n  command: [x]\n", "5:9",
	  "workload.name: 'usemem' is a built-in workload" },
	{ "  name: -x\n  command: [x]\n", "5:9", "workload.name: '-x' cannot prefix metric names" },
	{ "  name: vmstat\n  command: [x]\n", "5:9",
	  "workload.name: 'vmstat' is the name of a family of metrics" },
	{ "  command: [/usr/bin/time, x]\n", "5:13", "'time' cannot name the metrics" },
	{ "  name: node3\n  command: [x]\n", "5:9", "'node3' is the name of a family" },
	{ "  command: [x]\n  params: { a: 1 }\n", "6:3", "workload.params: params are a built-in" },
	{ "  name: usemem\n  files: [a]\n", "6:3",
	  "workload.files: belongs to a command workload" },
	{ "  command: [x]\n  files: nope.txt\n", "6:10",
	  "workload.files: got a scalar; expected a list" },
	{ "  command: [x]\n  files: [missing.txt]\n", "6:11", "workload.files[0]: '/" },
	{ "  command: [x]\n  files: [data]\n", "6:11",
	  "is not a regular file; list files, not directories" },
	{ "  command: [x]\n  files: [ { src: data/input.bin, dst: ../up } ]\n", "6:40",
	  "workload.files[0].dst: '../up' is not a usable guest path" },
	{ "  command: [x]\n  files: [ { dst: a } ]\n", "6:12",
	  "workload.files[0].src: required key is missing" },
	{ "  command: [x]\n  files: [data/input.bin, { src: scripts/run.sh, dst: input.bin }]\n",
	  "6:27", "workload.files[1]: 'input.bin' is also files[0]'s name in the guest" },
	{ "  command: [x]\n  build: { cflags: [-O2] }\n", "6:10",
	  "workload.build.c: required key is missing" },
	{ "  command: [x]\n  build: { c: nosuch.c }\n", "6:15", "workload.build.c: '/" },
	{ "  command: [x]\n  build: { c: bugs/217011/repro.c, cflags: [-O2, -o] }\n", "6:44",
	  "workload.build.cflags[1]: '-o' is mmlab's to choose" },
	{ "  command: [x]\n  build: { c: bugs/217011/repro.c, output: a/b }\n", "6:44",
	  "workload.build.output: 'a/b' is not a usable program name" },
	{ "  command: [x]\n  build: { c: bugs/217011/repro.c, cc: clang }\n", "6:36",
	  "workload.build.cc: unknown key 'cc'" },
	{ "  command: [repro]\n  files: [ { src: data/input.bin, dst: repro } ]\n  build: { c: bugs/217011/repro.c }\n",
	  "7:10", "the program 'repro' would replace files[0]" },
	{ "  command: [x]\n  timeout: 0\n", "6:12", "workload.timeout: '0' is out of range" },
	{ "  command: [x]\n  timeout: 10m\ntimeouts: { iteration: 10m }\n", "6:12",
	  "workload.timeout: 600 s leaves less than 30 s before timeouts.iteration" },
	{ "  command: [x]\n  phase: sometimes\n", "6:10",
	  "workload.phase: 'sometimes' is not allowed; expected one of: whole, handshake" },
	{ "  module: { src: page_bench }\n  phase: handshake\n", "6:10",
	  "workload.phase: 'handshake' needs a command:" },
	{ "  module: { src: data }\n", "5:18", "workload.module.src: '/" },
	{ "  module: { src: data/input.bin }\n", "5:18", "is not a directory" },
	{ "  module: { name: x }\n", "5:11", "workload.module.src: required key is missing" },
	{ "  module: { src: page_bench, params: { \"a-b\": 1 } }\n", "5:40",
	  "workload.module.params.a-b: 'a-b' is not a module parameter name" },
	{ "  module: { src: page_bench, params: { a: \"x y\" } }\n", "5:43",
	  "holds a space or a quote" },
	{ "  module: { src: page_bench, name: \"a.b\" }\n", "5:36",
	  "workload.module.name: 'a.b' is not a module name" },
	{ "  command: [x]\n  metrics: nope\n", "6:12",
	  "workload.metrics: got a scalar; expected a mapping" },
	{ "  command: [x]\n  metrics: []\n", "6:12",
	  "workload.metrics: has 0 entries; expected 1..64" },
	{ "  command: [x]\n  metrics: { regex: \"a ([0-9]+)\" }\n", "6:12",
	  "workload.metrics.name: required key is missing" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"a [0-9]+\" }\n", "6:30",
	  "workload.metrics.regex: 'a [0-9]+' has 0 capture groups; expected exactly one" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"(a)(b)\" }\n", "6:30",
	  "has 2 capture groups" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"a([0-9]\" }\n", "6:30",
	  "is not a usable regular expression" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"((a{255}){255})([0-9]+)\" }\n", "6:30",
	  "is too complex" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"(a)\\\\1\" }\n", "6:30",
	  "a back-reference" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"(a{5000})\" }\n", "6:30",
	  "is too complex" },
	{ "  command: [x]\n  metrics: { name: \"a b\", regex: \"a ([0-9]+)\" }\n", "6:20",
	  "workload.metrics.name: 'a b' is not a metric name" },
	{ "  command: [x]\n  metrics: { from: csv }\n", "6:20",
	  "workload.metrics.from: 'csv' is not allowed; expected one of: stdout, stderr, dmesg, file, json, yaml" },
	{ "  command: [x]\n  metrics: { from: stdout, name: a }\n", "6:28",
	  "workload.metrics.name: a \"name value\" lines extractor takes the names from the lines" },
	{ "  command: [x]\n  metrics: { from: json, regex: \"(a)\", name: a }\n", "6:26",
	  "workload.metrics.regex: a regex reads text" },
	{ "  command: [x]\n  metrics: { from: yaml, file: out.yaml }\n", "6:12",
	  "workload.metrics.name: required key is missing" },
	{ "  command: [x]\n  metrics: { from: json, name: a, path: \"a..b\" }\n", "6:41",
	  "workload.metrics.path: 'a..b' is not a path: an empty key" },
	{ "  command: [x]\n  metrics: { from: json, name: a, path: \"a[x]\" }\n", "6:41",
	  "expected [N] or [*]" },
	{ "  command: [x]\n  metrics: { from: stdout, path: a }\n", "6:28",
	  "workload.metrics.path: path: is for from: json or yaml" },
	{ "  command: [x]\n  metrics: { from: stderr, file: a.txt }\n", "6:28",
	  "workload.metrics.file: from: stderr reads no file" },
	{ "  command: [x]\n  metrics: { file: ../a.txt }\n", "6:20",
	  "workload.metrics.file: '../a.txt' is not a usable guest path" },
	{ "  command: [x]\n  metrics: { from: file }\n", "6:12",
	  "workload.metrics.file: required key is missing" },
	{ "  command: [x]\n  metrics: { from: json, values: [\"a b\"] }\n", "6:34",
	  "workload.metrics.values[0]: 'a b' cannot end a metric name" },
	{ "  command: [x]\n  metrics: { from: stdout, reduce: max }\n", "6:28",
	  "workload.metrics.reduce: reduce is for regex matches" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"a([0-9]+)\", reduce: median }\n", "6:51",
	  "workload.metrics.reduce: 'median' is not allowed" },
	{ "  command: [x]\n  metrics: { name: a, regex: \"a([0-9]+)\", direction: up }\n", "6:54",
	  "workload.metrics.direction: 'up' is not allowed; expected one of: neutral, lower, higher" },
	{ "  command: [x]\n  metrics: { unit: us }\n", "6:12",
	  "workload.metrics.name: required key is missing" },
	{ "  command: [x]\n  metrics: [ { name: a, regex: \"a([0-9]+)\", unit: \"a very long unit name that goes on\" } ]\n",
	  "6:51", "workload.metrics[0].unit: at most 32 characters" },
	{ "  command: [x]\n  metrics: { nmae: a }\n", "6:14",
	  "workload.metrics.nmae: unknown key 'nmae' (did you mean 'name'?)" },
};

static void test_bad(void **state)
{
	size_t failed = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *yaml, *errs, *want, *nl;

		assert_true(asprintf(&yaml,
				     "name: x\nvariants: [ { name: b } ]\n"
				     "topology: { nodes: 1, memory_per_node: 256M }\n"
				     "workload:\n%s",
				     bad[i].workload) > 0);
		errs = load_errors(yaml);
		assert_true(asprintf(&want, "t.yaml:%s: error: ", bad[i].pos) > 0);
		nl = strchr(errs, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(errs, want, strlen(want)) || !strstr(errs, bad[i].msg)) {
			print_error("case %zu:\n%swant %s...%s\ngot  %s\n", i, bad[i].workload,
				    want, bad[i].msg, errs);
			failed++;
		}
		free(want);
		free(errs);
		free(yaml);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reproducer), cmocka_unit_test(test_script),
		cmocka_unit_test(test_stress_ng),  cmocka_unit_test(test_module),
		cmocka_unit_test(test_more_forms), cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
