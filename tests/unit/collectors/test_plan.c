// SPDX-License-Identifier: GPL-2.0
/*
 * test_plan.c - the guest agent's plan parser (collectors/plan.c). The
 * agent is a guest program, so its source is compiled into this test
 * directly: it depends on libc only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* the agent's static parse_uint() is not lib/util.h's */
#define parse_uint agent_parse_uint
#include "../../../collectors/plan.c"
#include "lib/strbuf.h"
#undef parse_uint

#include "guest/plan.h"
#include "image/payload.h"
#include "job/job.h"
#include "job/job_own.h"
#include "run/run.h"

static struct plan p;

static int parse(const char *text)
{
	char err[256];

	return plan_parse(text, strlen(text), &p, err, sizeof(err));
}

static void test_full(void **state)
{
	static const char text[] = "# written by mmlab\n"
				   "run=20260101-demo\nvariant=base\n\n"
				   "iteration_first=3\r\niterations = 2\n"
				   "workload=usemem\n"
				   "param.threads=1,2,4\nparam.size=67108864\n"
				   "sysctl.vm.compaction_proactiveness=20\n"
				   "thp.enabled=always\nthp.defrag=defer+madvise\n"
				   "future.key=ignored\n";

	(void)state;
	assert_int_equal(parse(text), 0);
	assert_string_equal(p.run, "20260101-demo");
	assert_string_equal(p.workload, "usemem");
	assert_int_equal(p.iteration_first, 3);
	assert_int_equal(p.iterations, 2);
	assert_int_equal(p.nparams, 2);
	assert_string_equal(p.params[0].name, "threads");
	assert_string_equal(p.params[0].value, "1,2,4");
	assert_int_equal(p.nsysctls, 1);
	assert_string_equal(p.sysctls[0].name, "vm.compaction_proactiveness");
	assert_string_equal(p.thp_defrag, "defer+madvise");
	assert_int_equal(p.probe, 0);
	assert_int_equal(p.tier_report, 0);
	assert_int_equal(p.tier_demotion, -1);
}

static void test_tiers(void **state)
{
	(void)state;
	assert_int_equal(parse("workload=tiering\ntier.report=1\ntier.kmem=1,3\n"
			       "tier.modules=device_dax,dax_hmem,kmem\ntier.demotion=0\n"),
			 0);
	assert_int_equal(p.tier_report, 1);
	assert_string_equal(p.tier_kmem, "1,3");
	assert_string_equal(p.tier_modules, "device_dax,dax_hmem,kmem");
	assert_int_equal(p.tier_demotion, 0);
	/* module names and node lists are used in paths: nothing else passes */
	assert_int_equal(parse("workload=x\ntier.modules=../../etc/x\n"), -1);
	assert_int_equal(parse("workload=x\ntier.modules=a/b\n"), -1);
	assert_int_equal(parse("workload=x\ntier.kmem=1;2\n"), -1);
	assert_int_equal(parse("workload=x\ntier.demotion=yes\n"), -1);
	assert_int_equal(parse("workload=x\ntier.report=2\n"), -1);
}

static void test_bad(void **state)
{
	char err[256];
	char big[PLAN_VALUE_MAX + 32];

	(void)state;
	assert_int_equal(parse("probe=1\n"), 0);
	assert_int_equal(p.probe, 1);
	assert_int_equal(parse("iterations=1\n"), -1); /* no workload */
	assert_int_equal(parse("workload=../../bin/sh\n"), -1);
	assert_int_equal(parse("workload=a/b\n"), -1);
	assert_int_equal(parse("workload=x\nsysctl.kernel..x=1\n"), -1);
	assert_int_equal(parse("workload=x\nsysctl./etc=1\n"), -1);
	assert_int_equal(parse("workload=x\niterations=0\n"), -1);
	assert_int_equal(parse("workload=x\niterations=-1\n"), -1);
	assert_int_equal(parse("workload=x\nprobe=yes\n"), -1);
	assert_int_equal(parse("workload=x\nno equals sign\n"), -1);
	assert_int_equal(plan_parse("workload=x\0y\n", 12, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "NUL byte in the plan");
	memset(big, 'v', sizeof(big));
	memcpy(big, "workload=x\nparam.a=", 19);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(parse(big), -1);
	assert_int_equal(plan_parse("workload=x\nthp.enabled=a b\n", 27, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "line 2: bad value for thp.enabled: \"a b\"");
}

/* collect_files: encoded absolute paths, in the plan's order, at most 64 */
static void test_files(void **state)
{
	struct strbuf many = STRBUF_INIT;

	(void)state;
	assert_int_equal(parse("workload=x\ncollect.file.1=/var/log/a%20b\n"
			       "collect.file.0=/tmp/out.txt\n"),
			 0);
	assert_int_equal(p.nfiles, 2);
	assert_string_equal(p.files[0], "/var/log/a b");
	assert_string_equal(p.files[1], "/tmp/out.txt");
	assert_int_equal(parse("workload=x\ncollect.file.0=relative\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.0=/var/../etc/shadow\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.0=/var/%2E%2E/etc/shadow\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.0=/a%0Ab\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.0=/a%00b\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.x=/a\n"), -1);
	assert_int_equal(parse("workload=x\ncollect.file.=/a\n"), -1);
	strbuf_addstr(&many, "workload=x\n");
	for (int i = 0; i < PLAN_MAX_FILES; i++)
		strbuf_addf(&many, "collect.file.%d=/f%d\n", i, i);
	assert_int_equal(parse(many.buf), 0);
	assert_int_equal(p.nfiles, PLAN_MAX_FILES);
	strbuf_addstr(&many, "collect.file.64=/one-too-many\n");
	assert_int_equal(parse(many.buf), -1);
	strbuf_release(&many);
}

/* a command workload's plan, as the host writes it, read back exactly by the agent */
static void test_own_roundtrip(void **state)
{
	static const char yaml[] =
		"name: x\nvariants: [ { name: b } ]\ntopology: { nodes: 1, memory_per_node: 256M }\n"
		"workload:\n  name: mine\n"
		"  command: [./prog, \" two  words \", \"100%\", \"$HOME;x=y\", \"ü=é\", \"a%41\"]\n"
		"  phase: handshake\n  timeout: 90s\n"
		"  metrics:\n"
		"    - { from: json, file: out.json, path: a, name: a }\n"
		"    - { from: dmesg, regex: \"x ([0-9]+)\", name: x }\n"
		"    - { from: yaml, file: /proc/mine, name: y }\n";
	struct job *job = NULL;
	struct kvlist plan = { 0 };
	char *text;

	(void)state;
	assert_int_equal(job_load_buffer("t.yaml", yaml, strlen(yaml), "/tmp", &job), 0);
	assert_int_equal(job_workload_kind(&job->workload), WORKLOAD_OWN);
	guest_plan(&plan, "run1", job, &job->variants[0], 0, 2, workload_own_ops.plan);
	text = payload_plan_text(&plan);
	assert_int_equal(parse(text), 0);
	assert_string_equal(p.workload, "mine");
	assert_int_equal(p.own, 1);
	assert_int_equal(p.own_handshake, 1);
	assert_int_equal(p.own_timeout_s, 90);
	assert_int_equal(p.own_argc, 6);
	for (unsigned int i = 0; i < p.own_argc; i++)
		assert_string_equal(p.own_argv[i], job->workload.own->argv.v[i]);
	assert_int_equal(p.own_nread, 2);
	assert_string_equal(p.own_read[0], "out.json");
	assert_string_equal(p.own_read[1], "/proc/mine");
	assert_int_equal(p.own_dmesg, 1);
	assert_string_equal(p.own_module, "");
	free(text);
	kvlist_free(&plan);
	job_free(job);
	/* what the agent refuses */
	assert_int_equal(parse("workload=x\nown=1\n"), -1); /* no command, no module */
	assert_int_equal(parse("workload=x\nown=1\nown.arg.1=a\n"), -1); /* not in order */
	assert_int_equal(parse("workload=x\nown=1\nown.arg.0=%4\n"), -1);
	assert_int_equal(parse("workload=x\nown=1\nown.arg.0=a\nown.read.0=../x\n"), -1);
	assert_int_equal(parse("workload=x\nown=1\nown.module=../x\n"), -1);
	assert_int_equal(parse("workload=x\nown=1\nown.module=m\nown.phase=half\n"), -1);
	assert_int_equal(
		parse("workload=x\nown=1\nown.module=m\nown.module_params=a%3D1%20b%3D2\n"), 0);
	assert_string_equal(p.own_module_params, "a=1 b=2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),	      cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_bad),	      cmocka_unit_test(test_files),
		cmocka_unit_test(test_own_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
