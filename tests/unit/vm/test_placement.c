// SPDX-License-Identifier: GPL-2.0
/*
 * test_placement.c - host topology from a fake sysfs node directory,
 * disjoint CPUs for concurrent guests, guest nodes bound to host nodes,
 * "not now" versus "never", and the <vcpupin>/<numatune> XML it leads to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "vm/placement.h"
#include "vm/domain_xml.h"
#include "lib/util.h"

static char *fake_dir;

/* nodeN/cpulist + nodeN/meminfo under a fresh directory */
static void fake_node(int id, const char *cpulist, unsigned long free_mib)
{
	char *d = xasprintf("%s/node%d", fake_dir, id), *p, *text;

	assert_int_equal(mkdir_p(d, 0755), 0);
	p = xasprintf("%s/cpulist", d);
	text = xasprintf("%s\n", cpulist);
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
	free(text);
	p = xasprintf("%s/meminfo", d);
	text = xasprintf("Node %d MemTotal:  %lu kB\nNode %d MemFree:  %lu kB\n"
			 "Node %d Active(file):  0 kB\nNode %d Inactive(file):  0 kB\n",
			 id, free_mib * 2048, id, free_mib * 1024, id, id);
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
	free(text);
	free(d);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-nodes.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	fake_dir = xstrdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(fake_dir);
	free(fake_dir);
	return 0;
}

static void topo(struct job_topology *t, unsigned int nodes, unsigned int cpus, unsigned long mib)
{
	memset(t, 0, sizeof(*t));
	t->nnodes = nodes;
	for (unsigned int i = 0; i < nodes; i++) {
		t->nodes[i].cpus = cpus;
		t->nodes[i].memory_kib = mib * 1024;
	}
}

static void test_cpulist(void **state)
{
	int c[16];

	(void)state;
	assert_int_equal(parse_cpulist("0-3,8,10-11\n", c, 16), 7);
	assert_int_equal(c[4], 8);
	assert_int_equal(c[6], 11);
	assert_int_equal(parse_cpulist("", c, 16), 0);
	assert_int_equal(parse_cpulist("3-1", c, 16), -1);
	assert_int_equal(parse_cpulist("0-", c, 16), -1);
	assert_int_equal(parse_cpulist("a", c, 16), -1);
	assert_int_equal(parse_cpulist("0-20", c, 16), -1); /* more than max */
}

/* two host nodes of 4 CPUs: 2-node guests mirror the host, pins disjoint */
static void test_numa_host(void **state)
{
	struct host_topo *h = xmalloc(sizeof(*h));
	struct placer *p = xmalloc(sizeof(*p));
	struct placement a, b, c;
	struct job_topology t;
	bool seen[8] = { 0 };

	(void)state;
	fake_node(0, "0-3", 4096);
	fake_node(1, "4-7", 4096);
	assert_int_equal(host_topo_read(fake_dir, h), 0);
	assert_int_equal(h->nnodes, 2);
	assert_true(h->numa);
	assert_int_equal(h->nodes[1].cpus[0], 4);
	assert_int_equal(h->nodes[0].mem_free_kib, 4096 * 1024);
	placer_init(p, h);
	topo(&t, 2, 2, 512);
	assert_int_equal(placer_place(p, &t, &a), 0);
	assert_int_equal(placer_place(p, &t, &b), 0);
	/* each guest node on its own host node, its vCPUs on that node */
	assert_int_not_equal(a.memnodes[0], a.memnodes[1]);
	for (unsigned int i = 0; i < 4; i++) {
		int ha = a.vcpu_pins[i], hb = b.vcpu_pins[i];

		assert_false(seen[ha]);
		seen[ha] = true;
		assert_false(seen[hb]);
		seen[hb] = true;
		assert_int_equal(ha / 4, a.memnodes[i / 2]);
		assert_int_equal(hb / 4, b.memnodes[i / 2]);
	}
	/* all 8 CPUs taken: a third guest waits (not never) */
	assert_int_equal(placer_place(p, &t, &c), 1);
	placer_release(p, &a);
	assert_int_equal(placer_place(p, &t, &c), 0);
	assert_int_equal(placer_capacity(h, &t), 2);
	/* a partial placement that fails gives back what it took: with b
	 * and c placed, free a's CPUs again (2 per host node); a guest of
	 * 2 + 3 vCPUs finds 2 for its first node but no node with 3 */
	placer_release(p, &c);
	{
		struct job_topology u;

		topo(&u, 2, 2, 512);
		u.nodes[1].cpus = 3;
		assert_int_equal(placer_place(p, &u, &c), 1);
		assert_int_equal(placer_place(p, &t, &c), 0); /* all 4 still free */
		placer_release(p, &c);
	}
	/* a guest bigger than the host: never, with a message */
	topo(&t, 2, 5, 512);
	assert_int_equal(placer_place(p, &t, &c), -1);
	/* memory: 3 GiB nodes fit once per host node pair (4 GiB each) */
	topo(&t, 2, 1, 3072);
	assert_int_equal(placer_capacity(h, &t), 1);
	free(p);
	free(h);
}

/* one node (this machine's shape): 1-vCPU guests get CPUs 0 and 1 */
static void test_flat_host(void **state)
{
	struct host_topo *h = xmalloc(sizeof(*h));
	struct placer *p = xmalloc(sizeof(*p));
	struct placement a, b, c;
	struct job_topology t;
	json_t *j;

	(void)state;
	fake_node(0, "0-1", 8192);
	assert_int_equal(host_topo_read(fake_dir, h), 0);
	assert_int_equal(h->nnodes, 1);
	assert_false(h->numa);
	placer_init(p, h);
	topo(&t, 1, 1, 256);
	assert_int_equal(placer_place(p, &t, &a), 0);
	assert_int_equal(placer_place(p, &t, &b), 0);
	assert_int_not_equal(a.vcpu_pins[0], b.vcpu_pins[0]);
	assert_int_equal(placer_place(p, &t, &c), 1);
	j = placement_json(&a);
	assert_true(json_is_null(json_object_get(j, "memnodes")));
	assert_int_equal(json_array_size(json_object_get(j, "vcpu_pins")), 1);
	json_decref(j);
	placer_release(p, &b);
	assert_int_equal(placer_place(p, &t, &c), 0);
	assert_int_equal(c.vcpu_pins[0], b.vcpu_pins[0]);
	placer_release(p, &a);
	placer_release(p, &c);
	topo(&t, 1, 2, 256);
	assert_int_equal(placer_place(p, &t, &c), 0);
	free(p);
	free(h);
}

static void test_bad_dir(void **state)
{
	struct host_topo *h = xmalloc(sizeof(*h));
	char *bad = xasprintf("%s/nope", fake_dir);

	(void)state;
	assert_int_equal(host_topo_read(bad, h), -1);
	free(bad);
	free(h);
}

static int xcount(xmlXPathContextPtr ctx, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;

	xmlXPathFreeObject(o);
	return n;
}

/* the placement in the domain XML: one <vcpupin> per vCPU, <memnode> per node */
static void test_domain_xml(void **state)
{
	struct job_topology t;
	int pins[4] = { 4, 5, 0, 1 }, mem[2] = { 1, 0 };
	struct domain_spec s = {
		.name = "mmlab-x",
		.topo = &t,
		.accel = DOM_ACCEL_TCG,
		.kernel = "/k",
		.initrd = "/i",
		.cmdline = "c",
		.console_path = "/c",
		.data_path = "/d",
		.vcpu_pins = pins,
		.memnodes = mem,
	};
	char *xml;
	xmlDocPtr doc;
	xmlXPathContextPtr ctx;

	(void)state;
	topo(&t, 2, 2, 256);
	xml = topology_domain_xml(&s);
	assert_non_null(xml);
	doc = xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	ctx = xmlXPathNewContext(doc);
	assert_int_equal(xcount(ctx, "/domain/cputune/vcpupin"), 4);
	assert_int_equal(xcount(ctx, "/domain/cputune/vcpupin[@vcpu='0' and @cpuset='4']"), 1);
	assert_int_equal(xcount(ctx, "/domain/cputune/vcpupin[@vcpu='3' and @cpuset='1']"), 1);
	assert_int_equal(xcount(ctx, "/domain/numatune/memory[@mode='strict' and @nodeset='1,0']"),
			 1);
	assert_int_equal(xcount(ctx, "/domain/numatune/memnode[@cellid='0' and @nodeset='1']"), 1);
	assert_int_equal(xcount(ctx, "/domain/numatune/memnode[@cellid='1' and @nodeset='0']"), 1);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	free(xml);
	/* no placement: neither element */
	s.vcpu_pins = NULL;
	s.memnodes = NULL;
	xml = topology_domain_xml(&s);
	assert_null(strstr(xml, "numatune"));
	assert_null(strstr(xml, "cputune"));
	free(xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test_setup_teardown(test_numa_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flat_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_dir, setup, teardown),
		cmocka_unit_test(test_domain_xml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
