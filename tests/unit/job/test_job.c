// SPDX-License-Identifier: GPL-2.0
/*
 * test_job.c - job file loading: good files parse to the exact structs,
 * every malformed file under tests/unit/jobs/bad/ fails with its expected
 * FILE:LINE:COLUMN and message, and truncated files never crash or leak.
 */
#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "job/job.h"
#include "kernel/kernel.h"

#define MiB (1ULL << 20)

static int load_str(const char *yaml, struct job **job, char **errs)
{
	struct capture c;
	int ret;

	capture_start(&c);
	ret = job_load_buffer("t.yaml", yaml, strlen(yaml), "/jobs", job);
	*errs = capture_end(&c);
	return ret;
}

static struct job *load_ok(const char *yaml)
{
	struct job *job = NULL;
	char *errs;
	int ret = load_str(yaml, &job, &errs);

	if (ret)
		print_error("unexpected errors:\n%s", errs);
	assert_int_equal(ret, 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_non_null(job);
	return job;
}

static const char full_job[] =
	"name: full-1.0\n"
	"variants:\n"
	"  - name: madvise\n"
	"    kernel: distro\n"
	"    cmdline: \"transparent_hugepage=always numa_balancing=enable\"\n"
	"    sysctl: { vm.compaction_proactiveness: 20, vm.extfrag_threshold: 500 }\n"
	"    thp: { enabled: always, defrag: madvise }\n"
	"  - name: patched_2\n"
	"    kernel: build/bzImage\n"
	"    thp: { defrag: defer+madvise }\n"
	"  - name: abs\n"
	"    kernel: /boot/vmlinuz-test\n"
	"topology:\n"
	"  nodes: 2\n"
	"  cpus_per_node: 2\n"
	"  memory_per_node: 256M\n"
	"  distances: 21\n"
	"workload: { name: usemem, params: { threads: [1, 2, 4], size: 50%, loops: 3 } }\n"
	"iterations: 5\n"
	"iterations_per_boot: 5\n"
	"timeouts: { boot: 2m, iteration: 1h }\n"
	"accel: tcg\n";

static void test_full(void **state)
{
	struct job *job = load_ok(full_job);
	const struct job_variant *v;

	(void)state;
	assert_string_equal(job->path, "t.yaml");
	assert_string_equal(job->dir, "/jobs");
	assert_string_equal(job->name, "full-1.0");
	assert_int_equal(job->nvariants, 3);

	v = &job->variants[0];
	assert_string_equal(v->name, "madvise");
	assert_int_equal(v->kernel_kind, KERNEL_DISTRO);
	assert_null(v->kernel_path);
	assert_string_equal(v->cmdline, "transparent_hugepage=always numa_balancing=enable");
	assert_int_equal(v->sysctl.n, 2);
	assert_string_equal(v->sysctl.v[0].key, "vm.compaction_proactiveness");
	assert_string_equal(v->sysctl.v[0].value, "20");
	assert_string_equal(v->sysctl.v[1].key, "vm.extfrag_threshold");
	assert_string_equal(v->sysctl.v[1].value, "500");
	assert_string_equal(v->thp_enabled, "always");
	assert_string_equal(v->thp_defrag, "madvise");

	v = &job->variants[1];
	assert_string_equal(v->name, "patched_2");
	assert_int_equal(v->kernel_kind, KERNEL_PATH);
	assert_string_equal(v->kernel_path, "/jobs/build/bzImage");
	assert_null(v->cmdline);
	assert_int_equal(v->sysctl.n, 0);
	assert_null(v->thp_enabled);
	assert_string_equal(v->thp_defrag, "defer+madvise");
	assert_string_equal(job->variants[2].kernel_path, "/boot/vmlinuz-test");

	assert_int_equal(job->topo.nnodes, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(job->topo.nodes[i].cpus, 2);
		assert_int_equal(job->topo.nodes[i].memory_kib, 256 * 1024);
	}
	assert_int_equal(job->topo.distances[0], 10);
	assert_int_equal(job->topo.distances[1], 21);
	assert_int_equal(job->topo.distances[2], 21);
	assert_int_equal(job->topo.distances[3], 10);
	assert_int_equal(job->topo.distances[4], 0);
	assert_int_equal(topology_total_cpus(&job->topo), 4);
	assert_int_equal(topology_total_memory_kib(&job->topo), 512 * 1024);

	assert_string_equal(job->workload.name, "usemem");
	assert_int_equal(job->workload.params.n, 5); /* + file, step */
	assert_string_equal(job->workload.params.v[0].key, "threads");
	assert_string_equal(job->workload.params.v[0].value, "1,2,4");
	assert_string_equal(job->workload.params.v[1].key, "size");
	assert_string_equal(job->workload.params.v[1].value, "268435456");
	assert_string_equal(job->workload.params.v[2].key, "loops");
	assert_string_equal(job->workload.params.v[2].value, "3");

	assert_int_equal(job->iterations, 5);
	assert_int_equal(job->iterations_per_boot, 5);
	assert_int_equal(job->timeouts.boot_s, 120);
	assert_int_equal(job->timeouts.iteration_s, 3600);
	assert_int_equal(job->accel, ACCEL_TCG);
	job_free(job);
}

static void test_collectors(void **state)
{
	struct job *job = load_ok(
		"name: d\n"
		"variants: [ { name: a } ]\n"
		"topology: { nodes: 1, memory_per_node: 1G }\n"
		"workload: { name: thpfault }\n"
		"collectors: { tracepoints: [\"compaction:*\", \"migrate:mm_migrate_pages\"] }\n");

	(void)state;
	assert_int_equal(job->collectors.tracepoints.n, 2);
	assert_string_equal(job->collectors.tracepoints.v[0], "compaction:*");
	assert_false(job->collectors.disabled);
	job_free(job);
	job = load_ok("name: d\nvariants: [ { name: a } ]\n"
		      "topology: { nodes: 1, memory_per_node: 1G }\n"
		      "workload: { name: noop }\ncollectors: { enabled: false }\n");
	assert_true(job->collectors.disabled);
	assert_int_equal(job->collectors.tracepoints.n, 0);
	job_free(job);
}

static void test_defaults(void **state)
{
	struct job *job = load_ok("name: d\n"
				  "variants: [ { name: a } ]\n"
				  "topology: { nodes: 1, memory_per_node: 1G }\n"
				  "workload: { name: usemem }\n");

	(void)state;
	assert_int_equal(job->nvariants, 1);
	assert_int_equal(job->variants[0].kernel_kind, KERNEL_DISTRO);
	assert_null(job->variants[0].cmdline);
	assert_null(job->variants[0].thp_defrag);
	assert_int_equal(job->topo.nnodes, 1);
	assert_int_equal(job->topo.nodes[0].cpus, 1);
	assert_int_equal(job->topo.nodes[0].memory_kib, 1024 * 1024);
	assert_int_equal(job->topo.distances[0], 0);
	/* every parameter present, in the table's order, defaults resolved */
	assert_int_equal(job->workload.params.n, 5);
	assert_string_equal(kvlist_get(&job->workload.params, "threads"), "1");
	assert_string_equal(job->workload.params.v[1].key, "size");
	assert_string_equal(job->workload.params.v[1].value, "268435456"); /* 25% of 1G */
	assert_string_equal(kvlist_get(&job->workload.params, "loops"), "1");
	assert_int_equal(job->iterations, 3);
	assert_int_equal(job->iterations_per_boot, 1);
	assert_int_equal(job->timeouts.boot_s, 120);
	assert_int_equal(job->timeouts.iteration_s, 600);
	assert_int_equal(job->accel, ACCEL_AUTO);
	assert_string_equal(accel_mode_name(job->accel), "auto");
	assert_string_equal(accel_mode_name(ACCEL_KVM), "kvm");
	job_free(job);

	job = load_ok("name: d\nvariants: [ { name: a } ]\n"
		      "topology: { nodes: 1, memory_per_node: 64M }\n"
		      "workload: { name: noop }\n");
	assert_string_equal(job->workload.name, "noop");
	assert_int_equal(job->workload.params.n, 0);
	job_free(job);
}

static void test_node_list(void **state)
{
	struct job *job = load_ok("name: unequal\n"
				  "variants: [ { name: a } ]\n"
				  "topology:\n"
				  "  nodes:\n"
				  "    - { cpus: 1, memory: 65M }\n"
				  "    - { memory: 130M }\n"
				  "    - { cpus: 3, memory: 67108864 }\n"
				  "  distances:\n"
				  "    - [10, 12, 30]\n"
				  "    - [13, 10, 255]\n"
				  "    - [31, 11, 10]\n"
				  "workload:\n"
				  "  name: usemem\n"
				  "  params: { size: 7%, threads: 3 }\n");
	static const unsigned int dist[9] = { 10, 12, 30, 13, 10, 255, 31, 11, 10 };
	uint64_t total = (65 + 130 + 64) * MiB;
	char want[32];

	(void)state;
	assert_int_equal(job->topo.nnodes, 3);
	assert_int_equal(job->topo.nodes[0].cpus, 1);
	assert_int_equal(job->topo.nodes[0].memory_kib, 65 * 1024);
	assert_int_equal(job->topo.nodes[1].cpus, 1);
	assert_int_equal(job->topo.nodes[1].memory_kib, 130 * 1024);
	assert_int_equal(job->topo.nodes[2].cpus, 3);
	assert_int_equal(job->topo.nodes[2].memory_kib, 64 * 1024);
	assert_memory_equal(job->topo.distances, dist, sizeof(dist));
	assert_int_equal(job->topo.distances[9], 0);
	assert_int_equal(topology_total_cpus(&job->topo), 5);
	assert_int_equal(topology_total_memory_kib(&job->topo), total >> 10);
	/* 7% of 259M = 19010682.88 bytes, rounded down to 4K: 19009536 */
	snprintf(want, sizeof(want), "%llu", (unsigned long long)(total * 7 / 100 / 4096 * 4096));
	assert_string_equal(want, "19009536");
	assert_string_equal(kvlist_get(&job->workload.params, "size"), want);
	assert_string_equal(kvlist_get(&job->workload.params, "threads"), "3");
	job_free(job);
}

static void test_sizes_and_scalars(void **state)
{
	struct job *job = load_ok(
		"name: s\n"
		"variants:\n"
		"  - name: \"quoted\"\n"
		"    sysctl: { kernel.numa_balancing: 1, vm.lowmem_reserve_ratio: \"256 256 32\" }\n"
		"topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 1GiB }\n"
		"workload: { name: usemem, params: { size: 100M, threads: [8] } }\n"
		"timeouts: { boot: 90 }\n"
		"accel: kvm\n");

	(void)state;
	assert_string_equal(job->variants[0].name, "quoted");
	assert_string_equal(kvlist_get(&job->variants[0].sysctl, "vm.lowmem_reserve_ratio"),
			    "256 256 32");
	assert_int_equal(job->topo.nodes[1].memory_kib, 1024 * 1024);
	assert_string_equal(kvlist_get(&job->workload.params, "size"), "104857600");
	assert_string_equal(kvlist_get(&job->workload.params, "threads"), "8");
	assert_int_equal(job->timeouts.boot_s, 90);
	assert_int_equal(job->timeouts.iteration_s, 600);
	assert_int_equal(job->accel, ACCEL_KVM);
	job_free(job);
}

/* every example under jobs/ loads */
static void test_examples(void **state)
{
	char *pattern;
	glob_t g;
	struct job *job;

	(void)state;
	/* mmtests-thpchallenge.yaml's ~/src/mmtests: a stand-in checkout */
	assert_true(asprintf(&pattern, "%s/tests/unit/jobs/mmtests/home", srcdir()) > 0);
	assert_int_equal(setenv("HOME", pattern, 1), 0);
	free(pattern);
	assert_true(asprintf(&pattern, "%s/jobs/*.yaml", srcdir()) > 0);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	free(pattern);
	/* and the linux-mm threads' jobs (docs/threads.md) */
	assert_true(asprintf(&pattern, "%s/jobs/threads/*.yaml", srcdir()) > 0);
	assert_int_equal(glob(pattern, GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 5);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (job_load(g.gl_pathv[i], &job))
			fail_msg("example %s does not load", g.gl_pathv[i]);
		assert_true(job->dir[0] == '/');
		assert_true(job->nvariants >= 1);
		job_free(job);
	}
	globfree(&g);
	free(pattern);

	assert_true(asprintf(&pattern, "%s/jobs/demo.yaml", srcdir()) > 0);
	assert_int_equal(job_load(pattern, &job), 0);
	assert_string_equal(job->name, "demo");
	assert_int_equal(job->nvariants, 2);
	assert_string_equal(job->variants[0].thp_defrag, "madvise");
	assert_string_equal(job->variants[1].thp_defrag, "always");
	assert_string_equal(job->variants[1].thp_enabled, "always");
	assert_int_equal(job->topo.nnodes, 2);
	assert_int_equal(job->topo.nodes[0].memory_kib, 512 * 1024);
	/* 40% of 1 GiB = 429496729.6 -> 429494272 (4K multiple) */
	assert_string_equal(kvlist_get(&job->workload.params, "size"), "429494272");
	assert_int_equal(job->iterations, 3);
	job_free(job);
	free(pattern);
}

/* the complete jobs shown in docs/job-format.md load, and say what they say */
static void test_doc_examples(void **state)
{
	char *path, *doc, *p, *end, *yaml;
	size_t n = 0;
	struct job *job;

	(void)state;
	assert_true(asprintf(&path, "%s/docs/job-format.md", srcdir()) > 0);
	doc = read_file(path, NULL, 1 << 20);
	assert_non_null(doc);
	for (p = doc; (p = strstr(p, "```yaml\n")); p = end + 3) {
		p += 8;
		end = strstr(p, "```");
		assert_non_null(end);
		if (strncmp(p, "name:", 5) && strncmp(p, "# ", 2))
			continue; /* a fragment, not a whole job */
		yaml = strndup(p, (size_t)(end - p));
		job = load_ok(yaml);
		if (!strcmp(job->name, "proactive-thp")) {
			assert_int_equal(job->nvariants, 3);
			assert_string_equal(job->variants[2].kernel_path,
					    "/jobs/../build/arch/x86/boot/bzImage");
			assert_int_equal(job->topo.nodes[1].cpus, 2);
			assert_int_equal(job->topo.distances[1], 21);
			assert_string_equal(kvlist_get(&job->workload.params, "size"), "322121728");
			assert_string_equal(kvlist_get(&job->workload.params, "threads"), "1,2");
			assert_int_equal(job->timeouts.iteration_s, 900);
		}
		job_free(job);
		free(yaml);
		n++;
	}
	assert_int_equal(n, 3); /* demo, three-variant, stable-regression (kernel packages) */
	free(doc);
	free(path);
}

static void test_missing_file(void **state)
{
	struct job *job = (struct job *)&job;
	struct capture c;
	char *errs;

	(void)state;
	capture_start(&c);
	assert_int_equal(job_load("/nonexistent/job.yaml", &job), -1);
	errs = capture_end(&c);
	assert_null(job);
	assert_non_null(strstr(errs, "/nonexistent/job.yaml"));
	free(errs);
}

struct bad_case {
	const char *file;
	const char *pos; /* "LINE:COLUMN" of the first error */
	const char *msg; /* substring of that error line */
};

static const struct bad_case bad_cases[] = {
	{ "syntax-indent", "4:2", "YAML: did not find expected key" },
	{ "syntax-unclosed-flow", "3:1", "YAML: did not find expected ',' or ']'" },
	{ "tab-indent", "3:1", "YAML: found character that cannot start any token" },
	{ "invalid-utf8", "3:8",
	  "YAML: invalid leading UTF-8 octet (byte 0xff); save the file as UTF-8" },
	{ "alias", "4:5", "alias '*v' is not supported" },
	{ "two-docs", "5:1", "second YAML document" },
	{ "empty", "1:1", "the file is empty" },
	{ "top-list", "1:1", "(top level): got a list; expected a mapping" },
	{ "unknown-top-key", "5:1",
	  "iteration: unknown key 'iteration' (did you mean 'iterations'?); allowed keys here: name, variants" },
	{ "duplicate-top-key", "5:1", "name: duplicate key (first given at line 1)" },
	{ "missing-workload", "1:1", "workload: required key is missing" },
	{ "bad-job-name", "1:7", "name: 'my job' is not a valid name" },
	{ "variants-map", "2:11", "variants: got a mapping; expected a list" },
	{ "variants-empty", "2:11", "variants: has 0 entries; expected 1..64" },
	{ "variant-dup-name", "5:11",
	  "variants[2].name: 'base' is already the name of variants[0]" },
	{ "variant-no-name", "4:5", "variants[1].name: required key is missing" },
	{ "variant-unknown-key", "4:5",
	  "variants[0].kernal: unknown key 'kernal' (did you mean 'kernel'?); allowed keys here: name, kernel, cmdline, sysctl, thp" },
	{ "kernel-empty", "4:13", "variants[0].kernel: is empty; expected 'distro' or the path" },
	{ "kernel-pkg-empty", "4:20",
	  "variants[0].kernel.rpm: is empty; expected the path of an .rpm" },
	{ "kernel-pkg-key", "4:15",
	  "variants[0].kernel.packge: unknown key 'packge' (did you mean 'package'?)" },
	{ "kernel-pkg-list", "4:13",
	  "variants[0].kernel: got a list; expected 'distro' or the path" },
	{ "kernel-pkg-modules-deb", "4:27", "variants[0].kernel.modules: goes with 'rpm:'" },
	{ "kernel-pkg-name", "4:24",
	  "variants[0].kernel.package: '-oDebug::pkgAcquire=1' is not a Debian package name" },
	{ "kernel-pkg-none", "4:13", "variants[0].kernel: names no kernel; give exactly one of" },
	{ "kernel-pkg-two", "4:13", "variants[0].kernel: names more than one kernel" },
	{ "kernel-pkg-version-deb", "4:27", "variants[0].kernel.version: goes with 'package:'" },
	{ "kernel-pkg-version", "4:52",
	  "variants[0].kernel.version: '6.1 -1' is not a Debian version" },
	{ "thp-defrag", "5:37",
	  "variants[1].thp.defrag: 'sometimes' is not allowed; expected one of: always, defer, defer+madvise, madvise, never" },
	{ "thp-list", "4:10", "variants[0].thp: got a list; expected a mapping" },
	{ "sysctl-bad-name", "4:15",
	  "variants[0].sysctl.vm..swappiness: 'vm..swappiness' is not a sysctl name" },
	{ "sysctl-map-value", "5:22",
	  "variants[0].sysctl.vm.swappiness: got a mapping; expected a value" },
	{ "cmdline-newline", "4:14", "variants[0].cmdline: contains the control character 0x0a" },
	{ "topo-no-cpus", "5:5", "topology: no node has CPUs" },
	{ "node-empty", "6:7", "topology.nodes[1]: has neither CPUs nor memory" },
	{ "kmem-no-memory", "6:7", "topology.nodes[1]: kmem: true needs memory" },
	{ "node0-memoryless", "5:7", "topology.nodes[0]: node 0 must have ordinary memory" },
	{ "kmem-unaligned", "6:7",
	  "topology.nodes[1]: a kmem node's memory must be a whole number of 128M memory blocks" },
	{ "cpuless-before-cpu", "6:7",
	  "topology.nodes[1]: a CPU-less node before a node with CPUs (node 2) crashes libvirtd 9.0" },
	{ "hmat-initiator", "8:7", "topology.hmat[0]: initiator 1 has no CPUs" },
	{ "hmat-duplicate", "9:7", "topology.hmat[1]: initiator 0, target 1 is given twice" },
	{ "hmat-latency-range", "8:5",
	  "topology.hmat: latencies up to 70000 ns with a common unit of 1 ns do not fit QEMU's HMAT" },
	{ "hmat-no-initiator", "8:5",
	  "topology.hmat: node 1 has no CPUs and no entry with target: 1" },
	{ "hmat-bandwidth", "8:45",
	  "topology.hmat[0].bandwidth: 1536000 bytes/s is not allowed; expected a whole number of MiB" },
	{ "nodes-zero", "3:20", "topology.nodes: 0 is out of range; expected an integer 1..64" },
	{ "nodes-too-many", "4:10",
	  "topology.nodes: 65 is out of range; expected an integer 1..64" },
	{ "nodes-negative", "4:10", "topology.nodes: '-2' is negative" },
	{ "nodes-float", "4:10", "topology.nodes: '1.5' is not a whole number" },
	{ "memory-small", "5:20",
	  "topology.memory_per_node: 33554432 bytes is out of range; expected 64M..16T" },
	{ "memory-unaligned", "5:20",
	  "topology.memory_per_node: 102400000 bytes is not a whole number of MiB" },
	{ "memory-not-size", "5:20", "topology.memory_per_node: 'lots' is not a size" },
	{ "memory-missing", "4:3", "topology.memory_per_node: required key is missing" },
	{ "node-list-mixed", "5:3",
	  "topology.memory_per_node: cannot be combined with a list of nodes" },
	{ "node-list-entry-key", "6:18",
	  "topology.nodes[1].mem: unknown key 'mem' (did you mean 'kmem'?); allowed keys here: cpus, memory, kmem" },
	{ "cpus-total", "4:10", "topology: 400 vCPUs in total; at most 256 allowed" },
	{ "distance-scalar-range", "6:14",
	  "topology.distances: 10 is out of range; expected an integer 11..255" },
	{ "distance-shape", "8:7",
	  "topology.distances[1]: got a list of another length; expected a list of 2 distances" },
	{ "distance-diagonal", "6:30",
	  "topology.distances[1][1]: is 12; the distance of a node to itself must be 10" },
	{ "distance-rows", "6:14", "topology.distances: has 2 rows; expected a 3x3 matrix" },
	{ "distance-offdiag", "6:20",
	  "topology.distances[0][1]: 256 is out of range; expected an integer 11..255" },
	{ "workload-unknown", "4:19",
	  "workload.name: unknown workload 'stream'; expected one of: usemem, thpfault, compact, numamigrate, pagebench, noop" },
	{ "workload-string", "4:11", "workload: got a scalar; expected a mapping" },
	{ "param-unknown", "6:13",
	  "workload.params.thread: unknown parameter 'thread' of workload usemem; allowed parameters: threads, size, loops" },
	{ "param-pct-range", "7:11",
	  "workload.params.size: '150%' is not a percentage; expected 1%..100%" },
	{ "param-list-item", "7:21",
	  "workload.params.threads[2]: 0 is out of range; expected an integer 1..1024" },
	{ "param-uint-list-type", "7:12", "workload.params.loops: got a list; expected a scalar" },
	{ "param-size-small", "7:11",
	  "workload.params.size: '1K' (1024 bytes) is out of range; expected at least 4096 bytes" },
	{ "param-noop", "4:35",
	  "workload.params.size: unknown parameter 'size' of workload noop; this workload takes no parameters" },
	{ "iterations-range", "5:13",
	  "iterations: 1001 is out of range; expected an integer 1..1000" },
	{ "iterations-per-boot", "6:22", "iterations_per_boot: 4 is more than iterations (2)" },
	{ "timeout-bad", "5:19", "timeouts.boot: '2d' is not a duration" },
	/* issue 20: a quoted "" read v[len - 1] before the buffer */
	{ "timeout-empty-quoted", "5:19", "timeouts.boot: is empty; expected a duration" },
	/* issue 20: "variants\0x" was taken for variants */
	{ "key-nul", "2:1", "(top level): a key contains a NUL character" },
	{ "timeout-unknown", "5:23",
	  "timeouts.run: unknown key 'run'; allowed keys here: boot, iteration" },
	{ "too-deep", "4:51", "YAML: nested more than 16 levels deep" },
	{ "accel-bad", "5:8", "accel: 'hvf' is not allowed; expected one of: auto, kvm, tcg" },
	{ "collectors-tracepoint", "5:45",
	  "collectors.tracepoints[1]: 'mm_compaction_begin' is not a tracepoint pattern" },
	{ "collectors-key", "5:15",
	  "collectors.tracepoint: unknown key 'tracepoint' (did you mean 'tracepoints'?); allowed keys here: tracepoints, enabled" },
	{ "kernels-apply-empty", "4:39",
	  "variants[0].apply[0]: is empty; expected the path of a patch file" },
	{ "kernels-config-key", "4:13",
	  "kernels.config.bse: unknown key 'bse' (did you mean 'base'?); allowed keys here: base, fragments" },
	{ "kernels-no-tree", "3:3", "kernels.tree: required key is missing" },
	{ "kernels-ref-and-kernel", "4:35",
	  "variants[0].ref: a variant has either 'kernel:' (a prebuilt kernel) or 'ref:'" },
	{ "kernels-ref-no-kernels", "1:1",
	  "variants[0]: variant 'base' has 'ref:' but the job has no 'kernels:' mapping" },
	{ "kernels-revert-no-ref", "4:19", "variants[0].revert: needs 'ref:' in the same variant" },
	{ "image-kind", "5:16",
	  "image.kind: 'qcow' is not allowed; expected one of: initramfs, debootstrap" },
	{ "image-package", "5:49", "image.packages[1]: 'Bad Name' is not a Debian package name" },
	{ "image-size", "5:35",
	  "image.size: 104857600 bytes; expected a whole number of MiB from 512M to 1T" },
	{ "collect-dotdot", "5:34",
	  "collect_files[1]: '/var/log/../../etc/shadow' is not a usable path" },
	{ "collect-relative", "6:17", "collect_files[0]: 'var/log/syslog' is not a usable path" },
};
static void test_image(void **state)
{
	struct job *job;

	(void)state;
	job = load_ok("name: j\nvariants: [ { name: base } ]\n"
		      "topology: { nodes: 2, memory_per_node: 256M }\n"
		      "workload: { name: writefile, params: { size: 64K } }\n"
		      "image: { kind: debootstrap, packages: [numactl, linux-perf, g++] }\n"
		      "collect_files: [/var/log/mmlab/writefile.out, /var/log/syslog]\n");
	assert_int_equal(job->image.kind, IMAGE_DEBOOTSTRAP);
	assert_string_equal(job->image.suite, "bookworm");
	assert_int_equal(job->image.size_bytes, 4ULL << 30);
	assert_int_equal(job->image.packages.n, 3);
	assert_string_equal(job->image.packages.v[2], "g++");
	assert_int_equal(job->collect_files.n, 2);
	assert_string_equal(job->collect_files.v[0], "/var/log/mmlab/writefile.out");
	assert_string_equal(kvlist_get(&job->workload.params, "size"), "65536");
	job_free(job);

	job = load_ok("name: j\nvariants: [ { name: base } ]\n"
		      "topology: { nodes: 1, memory_per_node: 256M }\n"
		      "workload: { name: noop }\n"
		      "image: { kind: debootstrap, suite: trixie, size: 2G }\n");
	assert_string_equal(job->image.suite, "trixie");
	assert_int_equal(job->image.size_bytes, 2ULL << 30);
	assert_int_equal(job->collect_files.n, 0);
	job_free(job);

	/* files come back from the initramfs too (the data channel) */
	job = load_ok("name: j\nvariants: [ { name: base } ]\n"
		      "topology: { nodes: 1, memory_per_node: 256M }\n"
		      "workload: { name: noop }\ncollect_files: [/tmp/out.txt]\n");
	assert_int_equal(job->image.kind, IMAGE_INITRAMFS);
	assert_int_equal(job->collect_files.n, 1);
	job_free(job);

	/* the default stays the initramfs, with nothing to free */
	job = load_ok(full_job);
	assert_int_equal(job->image.kind, IMAGE_INITRAMFS);
	assert_null(job->image.suite);
	job_free(job);
}

/* source variants: kernels.tree/config resolved, operations kept in order */
/*
 * issue 20: a kernel path that cannot be read is found when the run
 * resolves the kernel, after the job loaded; its error names the place in
 * the job file like every other job error.
 */
static void test_kernel_path_located(void **state)
{
	struct job *job = load_ok("name: j\nvariants:\n"
				  "  - { name: a, kernel: /nonexistent/vmlinuz-none }\n"
				  "topology: { nodes: 2, memory_per_node: 256M }\n"
				  "workload: { name: usemem }\n");
	struct kernel_info ki;
	struct capture c;
	char *errs;

	(void)state;
	assert_int_equal(job->variants[0].kernel_line, 3);
	assert_int_equal(job->variants[0].kernel_col, 24);
	memset(&ki, 0, sizeof(ki));
	capture_start(&c);
	assert_int_equal(kernel_resolve_job(job, 0, "/nonexistent-cache", &ki), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "t.yaml:3:24: variants[0].kernel: cannot read the kernel "
				     "/nonexistent/vmlinuz-none"));
	free(errs);
	job_free(job);
}

static void test_source_variants(void **state)
{
	static const char yaml[] =
		"name: k\n"
		"kernels:\n"
		"  tree: ../linux\n"
		"  config: { base: defconfig, fragments: [lab.config, /abs/x.config] }\n"
		"variants:\n"
		"  - { name: base, ref: v6.4-rc2 }\n"
		"  - { name: fix, ref: v6.4-rc2, revert: 7efc3b726103, cherry_pick: [a1, b2],\n"
		"      apply: [p/series.mbox] }\n"
		"  - { name: distro, kernel: distro }\n"
		"topology: { nodes: 2, memory_per_node: 256M }\n"
		"workload: { name: noop }\n";
	struct job *job = NULL;

	(void)state;
	assert_int_equal(job_load_buffer("k.yaml", yaml, strlen(yaml), "/jobs", &job), 0);
	assert_string_equal(job->kernels.tree, "/jobs/../linux");
	assert_string_equal(job->kernels.config_base, "defconfig");
	assert_int_equal(job->kernels.fragments.n, 2);
	assert_string_equal(job->kernels.fragments.v[0], "/jobs/lab.config");
	assert_string_equal(job->kernels.fragments.v[1], "/abs/x.config");
	assert_int_equal(job->variants[0].kernel_kind, KERNEL_SOURCE);
	assert_string_equal(job->variants[0].ref, "v6.4-rc2");
	assert_int_equal(job->variants[1].revert.n, 1);
	assert_string_equal(job->variants[1].revert.v[0], "7efc3b726103");
	assert_int_equal(job->variants[1].cherry_pick.n, 2);
	assert_string_equal(job->variants[1].cherry_pick.v[1], "b2");
	assert_string_equal(job->variants[1].apply.v[0], "/jobs/p/series.mbox");
	assert_int_equal(job->variants[2].kernel_kind, KERNEL_DISTRO);
	assert_null(job->variants[2].ref);
	job_free(job);
}

/* kernel: { package | deb | rpm }: a package variant, paths resolved, located */
static void test_package_variants(void **state)
{
	static const char yaml[] =
		"name: k\n"
		"variants:\n"
		"  - { name: a, kernel: { package: linux-image-6.1.0-52-amd64, version: 6.1.176-1 } }\n"
		"  - { name: b, kernel: { deb: k/linux.deb } }\n"
		"  - { name: c, kernel: { rpm: /r/kernel-core.rpm, modules: m.rpm } }\n"
		"topology: { nodes: 2, memory_per_node: 256M }\n"
		"workload: { name: noop }\n";
	struct job *job = NULL;
	const struct job_variant *v;

	(void)state;
	assert_int_equal(job_load_buffer("k.yaml", yaml, strlen(yaml), "/jobs", &job), 0);
	v = job->variants;
	assert_int_equal(v[0].kernel_kind, KERNEL_PACKAGE);
	assert_string_equal(v[0].pkg_name, "linux-image-6.1.0-52-amd64");
	assert_string_equal(v[0].pkg_version, "6.1.176-1");
	assert_null(v[0].pkg_deb);
	assert_int_equal(v[0].kernel_line, 3);
	assert_int_equal(v[0].kernel_col, 24);
	assert_int_equal(v[1].kernel_kind, KERNEL_PACKAGE);
	assert_string_equal(v[1].pkg_deb, "/jobs/k/linux.deb");
	assert_null(v[1].pkg_version);
	assert_string_equal(v[2].pkg_rpm, "/r/kernel-core.rpm");
	assert_string_equal(v[2].pkg_modules, "/jobs/m.rpm");
	job_free(job);
}

static void test_bad_files(void **state)
{
	glob_t g;
	char *pattern;
	size_t checked = 0, failed = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct job *job = (struct job *)&job;
		char *path, *prefix, *errs, *line, *nl;
		struct capture c;
		int ret;

		assert_true(asprintf(&path, "%s/tests/unit/jobs/bad/%s.yaml", srcdir(), bc->file) >
			    0);
		capture_start(&c);
		ret = job_load(path, &job);
		errs = capture_end(&c);
		/* the first line is the first error, at the expected place */
		assert_true(asprintf(&prefix, "%s:%s: error: ", path, bc->pos) > 0);
		nl = strchr(errs, '\n');
		line = strndup(errs, nl ? (size_t)(nl - errs) : strlen(errs));
		if (ret != -1 || job || strncmp(line, prefix, strlen(prefix)) ||
		    !strstr(line, bc->msg) || !strstr(errs, "mmlab: error: ")) {
			print_error("%s: want -1 and \"%s...%s\", got %d and:\n%s", bc->file,
				    prefix, bc->msg, ret, errs);
			failed++;
		}
		free(line);
		free(prefix);
		free(errs);
		free(path);
		checked++;
	}
	assert_int_equal(failed, 0);
	assert_true(checked >= 30);

	/* every file in bad/ is in the table */
	assert_true(asprintf(&pattern, "%s/tests/unit/jobs/bad/*.yaml", srcdir()) > 0);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, ARRAY_SIZE(bad_cases));
	globfree(&g);
	free(pattern);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* several errors in one file are all reported, in order */
static void test_all_errors(void **state)
{
	struct job *job;
	char *errs;

	(void)state;
	assert_int_equal(load_str("name: x y\n"
				  "variants: [ { name: a, thp: { defrag: no } } ]\n"
				  "topology: { nodes: 2, memory_per_node: 1M }\n"
				  "workload: { name: usemem, params: { size: 10% } }\n"
				  "iterations: 0\n",
				  &job, &errs),
			 -1);
	assert_null(job);
	assert_non_null(strstr(errs, "t.yaml:1:7: error: name: 'x y'"));
	assert_non_null(strstr(errs, "t.yaml:2:39: error: variants[0].thp.defrag: 'no'"));
	assert_non_null(strstr(errs, "t.yaml:3:40: error: topology.memory_per_node"));
	assert_non_null(strstr(errs, "t.yaml:5:13: error: iterations: 0 is out of range"));
	/* the percentage cannot be resolved, but that is not a second error */
	assert_int_equal(count(errs, ": error: "), 5);
	assert_non_null(strstr(errs, "mmlab: error: t.yaml: 4 errors in the job file"));
	free(errs);
}

/* at most 20 errors are printed, then one line saying so */
static void test_error_cap(void **state)
{
	char *yaml = strdup("name: cap\n"), *tmp, *errs;
	struct job *job;

	(void)state;
	for (int i = 0; i < 30; i++) {
		assert_true(asprintf(&tmp, "%sbogus%d: 1\n", yaml, i) > 0);
		free(yaml);
		yaml = tmp;
	}
	assert_int_equal(load_str(yaml, &job, &errs), -1);
	assert_int_equal(count(errs, ": error: bogus"), 20);
	assert_non_null(strstr(errs, "t.yaml:21:1: error: bogus19: unknown key"));
	assert_null(strstr(errs, "bogus20"));
	assert_int_equal(count(errs, "too many errors, stopped after 20"), 1);
	free(errs);
	free(yaml);
}

/* a good job cut at every byte: never crashes or leaks, whatever it says */
/* deep nesting is refused quickly (libyaml is quadratic in depth) */
static void test_deep(void **state)
{
	size_t n = 200000;
	char *yaml = malloc(2 * n + 8), *errs;
	struct job *job;

	(void)state;
	assert_non_null(yaml);
	memcpy(yaml, "name: ", 6);
	memset(yaml + 6, '[', n);
	memset(yaml + 6 + n, ']', n);
	yaml[6 + 2 * n] = '\0';
	assert_int_equal(load_str(yaml, &job, &errs), -1);
	assert_non_null(strstr(errs, "t.yaml:1:22: error: YAML: nested more than 16 levels deep"));
	free(errs);
	free(yaml);
}

static void test_truncated(void **state)
{
	size_t len = strlen(full_job), ok = 0;
	struct capture c;

	(void)state;
	capture_start(&c);
	for (size_t n = 0; n <= len; n++) {
		char *buf = malloc(n + 1);
		struct job *job = NULL;

		assert_non_null(buf);
		memcpy(buf, full_job, n); /* not NUL-terminated: len is the bound */
		if (!job_load_buffer("cut.yaml", buf, n, "/", &job)) {
			assert_non_null(job);
			ok++;
			job_free(job);
		} else {
			assert_null(job);
		}
		free(buf);
	}
	free(capture_end(&c));
	/* the whole file and the file minus its last newline both load */
	assert_true(ok >= 2);
}

/* the tiered per-node form: cpus 0, memory 0, kmem, hmat, demotion */
static void test_tiered_topology(void **state)
{
	struct job *job = load_ok("name: t\nvariants: [ { name: a } ]\n"
				  "topology:\n  nodes:\n"
				  "    - { cpus: 2, memory: 512M }\n"
				  "    - { cpus: 1, memory: 0 }\n"
				  "    - { cpus: 0, memory: 256M, kmem: true }\n"
				  "  hmat:\n"
				  "    - { initiator: 0, target: 2, latency: 300, bandwidth: 4G }\n"
				  "    - { initiator: 1, target: 0, latency: 120 }\n"
				  "  demotion: false\n"
				  "workload: { name: tiering, params: { size: 50%, hot: 64M } }\n");

	(void)state;
	assert_int_equal(job->topo.nnodes, 3);
	assert_int_equal(job->topo.nodes[1].memory_kib, 0);
	assert_int_equal(job->topo.nodes[2].cpus, 0);
	assert_true(job->topo.nodes[2].kmem);
	assert_int_equal(job->topo.nhmat, 2);
	assert_int_equal(job->topo.hmat[0].target, 2);
	assert_int_equal(job->topo.hmat[0].latency_ns, 300);
	assert_int_equal(job->topo.hmat[0].bandwidth_mibs, 4096);
	assert_int_equal(job->topo.hmat[1].bandwidth_mibs, 0);
	assert_int_equal(topology_demotion(&job->topo), 0);
	assert_true(topology_is_tiered(&job->topo));
	assert_true(topology_has_kmem(&job->topo));
	/* 50% of 768M of memory (the memoryless node has none) */
	assert_string_equal(kvlist_get(&job->workload.params, "size"), "402653184");
	job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_tiered_topology),
		cmocka_unit_test(test_image),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_collectors),
		cmocka_unit_test(test_node_list),
		cmocka_unit_test(test_sizes_and_scalars),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_doc_examples),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_package_variants),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_all_errors),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_source_variants),
		cmocka_unit_test(test_kernel_path_located),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
