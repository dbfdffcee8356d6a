// SPDX-License-Identifier: GPL-2.0
/*
 * test_topology.c - the libvirt domain XML: parsed back with libxml2 and
 * checked element by element (values escaped, NUMA cells, accel modes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "vm/domain_xml.h"

struct parsed {
	xmlDocPtr doc;
	xmlXPathContextPtr ctx;
};

static void parse(const char *xml, struct parsed *p)
{
	assert_non_null(xml);
	p->doc = xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL, XML_PARSE_NONET);
	assert_non_null(p->doc);
	p->ctx = xmlXPathNewContext(p->doc);
	assert_non_null(p->ctx);
}

static void unparse(struct parsed *p)
{
	xmlXPathFreeContext(p->ctx);
	xmlFreeDoc(p->doc);
}

/* number of nodes matching expr */
static int count(struct parsed *p, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, p->ctx);
	int n;

	assert_non_null(o);
	n = o->nodesetval ? o->nodesetval->nodeNr : 0;
	xmlXPathFreeObject(o);
	return n;
}

/* the string value of expr (an element's text or an attribute) */
static char *str(struct parsed *p, const char *expr)
{
	char *full = NULL;
	xmlXPathObjectPtr o;
	xmlChar *s;

	if (asprintf(&full, "string(%s)", expr) < 0)
		fail();
	o = xmlXPathEvalExpression(BAD_CAST full, p->ctx);
	free(full);
	assert_non_null(o);
	s = xmlXPathCastToString(o);
	xmlXPathFreeObject(o);
	return (char *)s;
}

static void assert_str(struct parsed *p, const char *expr, const char *want)
{
	char *got = str(p, expr);

	assert_string_equal(got, want);
	xmlFree(got);
}

static void two_nodes(struct job_topology *t)
{
	memset(t, 0, sizeof(*t));
	t->nnodes = 2;
	t->nodes[0].cpus = 1;
	t->nodes[0].memory_kib = 262144;
	t->nodes[1].cpus = 1;
	t->nodes[1].memory_kib = 262144;
}

static struct domain_spec spec_for(const struct job_topology *t, enum dom_accel a)
{
	struct domain_spec s = {
		.name = "mmlab-test-1",
		.topo = t,
		.accel = a,
		.kernel = "/k/vmlinuz",
		.initrd = "/k/initrd.gz",
		.cmdline = "console=ttyS0 panic=-1",
		.console_path = "/r/console.log",
		.data_path = "/r/data.bin",
	};
	return s;
}

static void test_one_node(void **state)
{
	struct job_topology t = { .nnodes = 1 };
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	t.nodes[0].cpus = 1;
	t.nodes[0].memory_kib = 256 * 1024;
	s = spec_for(&t, DOM_ACCEL_TCG);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/memory", "262144");
	assert_str(&p, "/domain/memory/@unit", "KiB");
	assert_str(&p, "/domain/vcpu", "1");
	assert_int_equal(count(&p, "/domain/cpu/numa/cell"), 1);
	assert_str(&p, "/domain/cpu/numa/cell/@cpus", "0");
	assert_int_equal(count(&p, "//distances"), 0);
	assert_int_equal(count(&p, "/domain/cputune"), 0);
	unparse(&p);
	free(xml);
}

static void test_two_nodes_required_elements(void **state)
{
	struct job_topology t;
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	two_nodes(&t);
	s = spec_for(&t, DOM_ACCEL_TCG);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/@type", "qemu");
	assert_str(&p, "/domain/name", "mmlab-test-1");
	assert_str(&p, "/domain/memory", "524288");
	assert_str(&p, "/domain/vcpu", "2");
	assert_str(&p, "/domain/os/type", "hvm");
	assert_str(&p, "/domain/os/type/@arch", "x86_64");
	assert_str(&p, "/domain/os/type/@machine", "pc");
	assert_str(&p, "/domain/os/kernel", "/k/vmlinuz");
	assert_str(&p, "/domain/os/initrd", "/k/initrd.gz");
	assert_str(&p, "/domain/os/cmdline", "console=ttyS0 panic=-1");
	assert_int_equal(count(&p, "/domain/features/acpi"), 1);
	assert_int_equal(count(&p, "/domain/features/apic"), 1);
	assert_str(&p, "/domain/clock/@offset", "utc");
	assert_str(&p, "/domain/on_poweroff", "destroy");
	assert_str(&p, "/domain/on_reboot", "destroy");
	assert_str(&p, "/domain/on_crash", "destroy");
	assert_int_equal(count(&p, "/domain/devices/serial[@type='file']"), 2);
	assert_str(&p, "/domain/devices/serial[target/@port='0']/source/@path", "/r/console.log");
	assert_str(&p, "/domain/devices/serial[target/@port='1']/source/@path", "/r/data.bin");
	assert_str(&p, "/domain/devices/panic/@model", "isa");
	assert_str(&p, "/domain/devices/controller[@type='usb']/@model", "none");
	assert_str(&p, "/domain/devices/memballoon/@model", "none");
	assert_int_equal(count(&p, "/domain/devices/disk"), 0);
	assert_int_equal(count(&p, "/domain/devices/interface"), 0);
	assert_int_equal(count(&p, "/domain/devices/graphics"), 0);
	assert_int_equal(count(&p, "/domain/cpu/numa/cell"), 2);
	assert_str(&p, "/domain/cpu/numa/cell[@id='0']/@cpus", "0");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@cpus", "1");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@memory", "262144");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@unit", "KiB");
	unparse(&p);
	free(xml);
}

/* a disk image boot: the overlay as vda, the payload read-only as vdb */
static void test_disks(void **state)
{
	struct job_topology t;
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	two_nodes(&t);
	s = spec_for(&t, DOM_ACCEL_TCG);
	s.disk_path = "/r/disk.qcow2";
	s.payload_path = "/r/payload.cpio";
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_int_equal(count(&p, "/domain/devices/disk"), 2);
	assert_str(&p, "/domain/devices/disk[1]/target/@dev", "vda");
	assert_str(&p, "/domain/devices/disk[1]/source/@file", "/r/disk.qcow2");
	assert_str(&p, "/domain/devices/disk[1]/driver/@type", "qcow2");
	assert_int_equal(count(&p, "/domain/devices/disk[1]/readonly"), 0);
	assert_str(&p, "/domain/devices/disk[2]/target/@dev", "vdb");
	assert_str(&p, "/domain/devices/disk[2]/target/@bus", "virtio");
	assert_str(&p, "/domain/devices/disk[2]/source/@file", "/r/payload.cpio");
	assert_str(&p, "/domain/devices/disk[2]/driver/@type", "raw");
	assert_str(&p, "/domain/devices/disk[2]/serial", "mmlab-payload");
	assert_int_equal(count(&p, "/domain/devices/disk[2]/readonly"), 1);
	assert_str(&p, "/domain/devices/serial[target/@port='1']/@type", "file");
	unparse(&p);
	free(xml);

	/* the data channel through FIFOs (guest/tap.h) */
	s.data_pipe = true;
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/devices/serial[target/@port='1']/@type", "pipe");
	assert_str(&p, "/domain/devices/serial[target/@port='1']/source/@path", "/r/data.bin");
	assert_str(&p, "/domain/devices/serial[target/@port='0']/@type", "file");
	unparse(&p);
	free(xml);
}

static void test_three_nodes_unequal_with_distances(void **state)
{
	static const unsigned int d[9] = { 10, 21, 31, 21, 10, 21, 31, 21, 10 };
	struct job_topology t = { .nnodes = 3 };
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	t.nodes[0].cpus = 2;
	t.nodes[0].memory_kib = 196608;
	t.nodes[1].cpus = 3;
	t.nodes[1].memory_kib = 327680;
	t.nodes[2].cpus = 0; /* memory-only node */
	t.nodes[2].memory_kib = 131072;
	memcpy(t.distances, d, sizeof(d));
	s = spec_for(&t, DOM_ACCEL_TCG);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/memory", "655360");
	assert_str(&p, "/domain/vcpu", "5");
	assert_str(&p, "/domain/cpu/numa/cell[@id='0']/@cpus", "0-1");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@cpus", "2-4");
	assert_int_equal(count(&p, "/domain/cpu/numa/cell[@id='2']/@cpus"), 0);
	assert_str(&p, "/domain/cpu/numa/cell[@id='0']/@memory", "196608");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@memory", "327680");
	assert_str(&p, "/domain/cpu/numa/cell[@id='2']/@memory", "131072");
	assert_int_equal(count(&p, "/domain/cpu/numa/cell/distances/sibling"), 9);
	assert_str(&p, "/domain/cpu/numa/cell[@id='0']/distances/sibling[@id='2']/@value", "31");
	assert_str(&p, "/domain/cpu/numa/cell[@id='2']/distances/sibling[@id='1']/@value", "21");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/distances/sibling[@id='1']/@value", "10");
	unparse(&p);
	free(xml);
}

static void test_partial_distances_get_defaults(void **state)
{
	struct job_topology t;
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	two_nodes(&t);
	t.distances[1] = 17; /* only 0->1 given */
	s = spec_for(&t, DOM_ACCEL_TCG);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "//cell[@id='0']/distances/sibling[@id='1']/@value", "17");
	assert_str(&p, "//cell[@id='0']/distances/sibling[@id='0']/@value", "10");
	assert_str(&p, "//cell[@id='1']/distances/sibling[@id='0']/@value", "20");
	unparse(&p);
	free(xml);
}

static void test_kvm_vs_tcg(void **state)
{
	struct job_topology t;
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	two_nodes(&t);
	s = spec_for(&t, DOM_ACCEL_KVM);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/@type", "kvm");
	assert_str(&p, "/domain/cpu/@mode", "host-passthrough");
	assert_int_equal(count(&p, "/domain/cpu/model"), 0);
	unparse(&p);
	free(xml);

	s.accel = DOM_ACCEL_TCG;
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/@type", "qemu");
	assert_str(&p, "/domain/cpu/@mode", "custom");
	assert_str(&p, "/domain/cpu/model", "qemu64");
	assert_int_equal(count(&p, "/domain/cpu/numa/cell"), 2);
	unparse(&p);
	free(xml);
	assert_string_equal(dom_accel_name(DOM_ACCEL_KVM), "kvm");
	assert_string_equal(dom_accel_name(DOM_ACCEL_TCG), "tcg");
}

static void test_hostile_values_escaped(void **state)
{
	static const char name[] = "mmlab-<x>&'\"-</name><evil/>";
	static const char kern[] = "/a b/<k>&'\"/vmlinuz";
	static const char cmd[] = "console=ttyS0 x=\"<&>\" y='1' ]]> <!-- z";
	static const char con[] = "/r/'con\"&<>.log";
	static const char dat[] = "/r/\"/><serial type='pty'/>";
	struct job_topology t;
	struct domain_spec s;
	struct parsed p;
	char *xml;

	(void)state;
	two_nodes(&t);
	s = spec_for(&t, DOM_ACCEL_TCG);
	s.name = name;
	s.kernel = kern;
	s.initrd = NULL;
	s.cmdline = cmd;
	s.console_path = con;
	s.data_path = dat;
	s.cpuset = "0-1,'&";
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/name", name);
	assert_str(&p, "/domain/os/kernel", kern);
	assert_str(&p, "/domain/os/cmdline", cmd);
	assert_int_equal(count(&p, "/domain/os/initrd"), 0);
	assert_int_equal(count(&p, "//evil"), 0);
	assert_int_equal(count(&p, "/domain/devices/serial"), 2);
	assert_str(&p, "/domain/devices/serial[target/@port='0']/source/@path", con);
	assert_str(&p, "/domain/devices/serial[target/@port='1']/source/@path", dat);
	assert_str(&p, "/domain/devices/console/source/@path", con);
	assert_int_equal(count(&p, "/domain/cputune/vcpupin"), 2);
	assert_str(&p, "/domain/cputune/vcpupin[@vcpu='1']/@cpuset", "0-1,'&");
	unparse(&p);
	free(xml);
}

static void test_bad_specs_rejected(void **state)
{
	struct job_topology t;
	struct domain_spec s;

	(void)state;
	two_nodes(&t);
	s = spec_for(&t, DOM_ACCEL_TCG);
	s.kernel = "relative/vmlinuz";
	assert_null(topology_domain_xml(&s));
	s = spec_for(&t, DOM_ACCEL_TCG);
	s.data_path = NULL;
	assert_null(topology_domain_xml(&s));
	s = spec_for(&t, DOM_ACCEL_TCG);
	s.name = "";
	assert_null(topology_domain_xml(&s));
	t.nodes[1].kmem = true;
	t.nodes[1].memory_kib = 100 << 10; /* not whole memory blocks */
	s = spec_for(&t, DOM_ACCEL_TCG);
	assert_null(topology_domain_xml(&s));
	two_nodes(&t);
	t.nodes[0].cpus = t.nodes[1].cpus = 0;
	assert_null(topology_domain_xml(&s));
	t.nnodes = 0;
	assert_null(topology_domain_xml(&s));
	/* and invalid UTF-8 cannot be written into an XML document */
	two_nodes(&t);
	s.cmdline = "bad \xff\xfe utf8";
	assert_null(topology_domain_xml(&s));
}

/*
 * A fast node, a memoryless CPU node and a CPU-less kmem node with HMAT:
 * the cells' memory (a 128M placeholder, the kmem node padded by one block
 * past the BIOS's top 128K), no cpus attribute on the CPU-less cell, the
 * interconnects, and the memmap= arguments on the command line.
 */
static void test_tiered(void **state)
{
	struct job_topology t = { .nnodes = 3 };
	struct domain_spec s;
	struct parsed p;
	char *xml, *cmd;

	(void)state;
	t.nodes[0] = (struct job_node){ .cpus = 1, .memory_kib = 512 << 10 };
	t.nodes[1] = (struct job_node){ .cpus = 1, .memory_kib = 0 };
	t.nodes[2] = (struct job_node){ .cpus = 0, .memory_kib = 256 << 10, .kmem = true };
	t.nhmat = 2;
	t.hmat[0] = (struct job_hmat){ .initiator = 0, .target = 0, .latency_ns = 10 };
	t.hmat[1] = (struct job_hmat){
		.initiator = 0, .target = 2, .latency_ns = 30, .bandwidth_mibs = 4096
	};
	s = spec_for(&t, DOM_ACCEL_TCG);
	xml = topology_domain_xml(&s);
	parse(xml, &p);
	assert_str(&p, "/domain/cpu/numa/cell[@id='0']/@memory", "524288");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@memory", "131072");
	assert_str(&p, "/domain/cpu/numa/cell[@id='1']/@cpus", "1");
	assert_str(&p, "/domain/cpu/numa/cell[@id='2']/@memory", "393216");
	assert_int_equal(count(&p, "/domain/cpu/numa/cell[@id='2']/@cpus"), 0);
	assert_str(&p, "/domain/memory", "1048576");
	assert_int_equal(count(&p, "/domain/cpu/numa/interconnects/latency"), 2);
	assert_int_equal(count(&p, "/domain/cpu/numa/interconnects/bandwidth"), 1);
	assert_str(&p, "/domain/cpu/numa/interconnects/latency[2]/@target", "2");
	assert_str(&p, "/domain/cpu/numa/interconnects/latency[2]/@value", "30");
	assert_str(&p, "/domain/cpu/numa/interconnects/bandwidth/@value", "4096");
	assert_str(&p, "/domain/cpu/numa/interconnects/bandwidth/@unit", "MiB");
	cmd = str(&p, "/domain/os/cmdline");
	assert_string_equal(cmd,
			    "console=ttyS0 panic=-1 nokaslr memmap=128M%0x20000000-1+0x2 "
			    "memmap=256M%0x28000000-1+0xefffffff memmap=128M%0x38000000-1+0x2");
	xmlFree(cmd);
	unparse(&p);
	free(xml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_two_nodes_required_elements),
		cmocka_unit_test(test_disks),
		cmocka_unit_test(test_three_nodes_unequal_with_distances),
		cmocka_unit_test(test_partial_distances_get_defaults),
		cmocka_unit_test(test_kvm_vs_tcg),
		cmocka_unit_test(test_hostile_values_escaped),
		cmocka_unit_test(test_bad_specs_rejected),
		cmocka_unit_test(test_tiered),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return rc;
}
