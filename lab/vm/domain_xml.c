// SPDX-License-Identifier: GPL-2.0
/*
 * domain_xml.c - libvirt domain XML for a job's NUMA topology (libxml2
 * xmlTextWriter, so every value is escaped).
 *
 * Facts that shaped it (measured with libvirt 9.0 and QEMU 7.2, Debian 12):
 *  - without <features><acpi/> the guest gets no SRAT and sees one node
 *    however many <cell>s exist;
 *  - under TCG libvirt rejects host-passthrough, so TCG guests get the
 *    "qemu64" model, which `virsh domcapabilities --virttype qemu` lists
 *    as usable; KVM guests get host-passthrough.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include "vm/domain_xml.h"
#include "topo/topo_layout.h"
#include "lib/util.h"
#include "proto.h"

#define TCG_CPU_MODEL "qemu64"

const char *dom_accel_name(enum dom_accel a)
{
	return a == DOM_ACCEL_KVM ? "kvm" : "tcg";
}

/* sums computed here so this module does not depend on job.c */
static unsigned int total_cpus(const struct job_topology *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nnodes; i++)
		n += t->nodes[i].cpus;
	return n;
}

static bool has_distances(const struct job_topology *t)
{
	unsigned int i;

	for (i = 0; i < t->nnodes * t->nnodes; i++)
		if (t->distances[i])
			return true;
	return false;
}

/* libvirt wants UTF-8; xmlTextWriter would copy bad bytes through */
static int check_utf8(const struct domain_spec *s, const char *what, const char *value)
{
	if (!value || xmlCheckUTF8(BAD_CAST value))
		return 0;
	lab_err("domain XML for %s: the %s is not valid UTF-8; rename the file or fix the text so libvirt can read it",
		s->name, what);
	return -1;
}

static int check_path(const struct domain_spec *s, const char *what, const char *path)
{
	if (check_utf8(s, what, path) < 0)
		return -1;
	if (!path || path[0] == '/')
		return 0;
	lab_err("domain XML for %s: the %s path '%s' is relative; libvirt needs absolute paths (this is a bug in the caller)",
		s->name, what, path);
	return -1;
}

static int check_spec(const struct domain_spec *s)
{
	const struct job_topology *t = s->topo;

	if (!s->name || !*s->name || !s->kernel || !s->console_path || !s->data_path || !t) {
		lab_err("domain XML: incomplete domain spec (name, kernel, console and data paths and a topology are required); this is a bug in the caller");
		return -1;
	}
	if (check_path(s, "kernel", s->kernel) < 0 || check_path(s, "initrd", s->initrd) < 0 ||
	    check_path(s, "console", s->console_path) < 0 ||
	    check_path(s, "data channel", s->data_path) < 0 ||
	    check_path(s, "disk", s->disk_path) < 0 ||
	    check_path(s, "payload disk", s->payload_path) < 0 ||
	    check_utf8(s, "name", s->name) < 0 ||
	    check_utf8(s, "kernel command line", s->cmdline) < 0 ||
	    check_utf8(s, "cpuset", s->cpuset) < 0)
		return -1;
	if (t->nnodes == 0 || t->nnodes > JOB_MAX_NODES) {
		lab_err("domain XML for %s: topology has %u NUMA nodes; give 1 to %d nodes in the job's topology",
			s->name, t->nnodes, JOB_MAX_NODES);
		return -1;
	}
	if (!total_cpus(t)) {
		lab_err("domain XML for %s: topology has no CPUs; give at least one node cpus >= 1",
			s->name);
		return -1;
	}
	return 0;
}

/*
 * Each helper returns 0 or -1; callers OR the results together and check
 * once at the end (xmlTextWriter keeps working after an error).
 */
static int w_elem(xmlTextWriterPtr w, const char *name, const char *text)
{
	return xmlTextWriterWriteElement(w, BAD_CAST name, BAD_CAST text) < 0 ? -1 : 0;
}

static int w_start(xmlTextWriterPtr w, const char *name)
{
	return xmlTextWriterStartElement(w, BAD_CAST name) < 0 ? -1 : 0;
}

static int w_end(xmlTextWriterPtr w)
{
	return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

static int w_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
	return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST value) < 0 ? -1 : 0;
}

static int w_attru(xmlTextWriterPtr w, const char *name, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	return w_attr(w, name, buf);
}

/* <name attr='value'/> */
static int w_empty1(xmlTextWriterPtr w, const char *name, const char *attr, const char *value)
{
	int rc = w_start(w, name);

	if (attr)
		rc |= w_attr(w, attr, value);
	return rc | w_end(w);
}

/* the spec's command line and the topology's memmap= arguments (malloc'd), or NULL */
static char *full_cmdline(const struct domain_spec *s, const struct topo_layout *l)
{
	char *extra = topo_kernel_args(l), *all;

	if (!extra)
		return s->cmdline ? xstrdup(s->cmdline) : NULL;
	all = xasprintf("%s%s%s", s->cmdline ? s->cmdline : "", s->cmdline ? " " : "", extra);
	free(extra);
	return all;
}

static int write_os(xmlTextWriterPtr w, const struct domain_spec *s, const struct topo_layout *l)
{
	char *cmdline = full_cmdline(s, l);
	int rc = w_start(w, "os");

	rc |= w_start(w, "type");
	rc |= w_attr(w, "arch", "x86_64");
	rc |= w_attr(w, "machine", "pc");
	rc |= xmlTextWriterWriteString(w, BAD_CAST "hvm") < 0 ? -1 : 0;
	rc |= w_end(w);
	rc |= w_elem(w, "kernel", s->kernel);
	if (s->initrd)
		rc |= w_elem(w, "initrd", s->initrd);
	if (cmdline)
		rc |= w_elem(w, "cmdline", cmdline);
	free(cmdline);
	return rc | w_end(w);
}

static int write_cell(xmlTextWriterPtr w, const struct job_topology *t, const struct topo_layout *l,
		      unsigned int i, unsigned int first_cpu, bool dist)
{
	const struct job_node *n = &t->nodes[i];
	char cpus[32];
	unsigned int j;
	int rc = w_start(w, "cell");

	rc |= w_attru(w, "id", i);
	if (n->cpus) {
		if (n->cpus == 1)
			snprintf(cpus, sizeof(cpus), "%u", first_cpu);
		else
			snprintf(cpus, sizeof(cpus), "%u-%u", first_cpu, first_cpu + n->cpus - 1);
		rc |= w_attr(w, "cpus", cpus);
	}
	rc |= w_attru(w, "memory", l->cell_bytes[i] >> 10);
	rc |= w_attr(w, "unit", "KiB");
	if (dist) {
		rc |= w_start(w, "distances");
		for (j = 0; j < t->nnodes; j++) {
			unsigned int d = t->distances[i * t->nnodes + j];

			if (!d)
				d = i == j ? 10 : 20;
			rc |= w_start(w, "sibling");
			rc |= w_attru(w, "id", j);
			rc |= w_attru(w, "value", d);
			rc |= w_end(w);
		}
		rc |= w_end(w);
	}
	return rc | w_end(w);
}

/* HMAT: <interconnects> (libvirt sets each CPU-less node's initiator from them) */
static int write_interconnects(xmlTextWriterPtr w, const struct job_topology *t)
{
	int rc;

	if (!t->nhmat)
		return 0;
	rc = w_start(w, "interconnects");
	for (unsigned int i = 0; i < t->nhmat; i++) {
		const struct job_hmat *h = &t->hmat[i];

		if (!h->latency_ns)
			continue;
		rc |= w_start(w, "latency");
		rc |= w_attru(w, "initiator", h->initiator);
		rc |= w_attru(w, "target", h->target);
		rc |= w_attr(w, "type", "access");
		rc |= w_attru(w, "value", h->latency_ns);
		rc |= w_end(w);
	}
	for (unsigned int i = 0; i < t->nhmat; i++) {
		const struct job_hmat *h = &t->hmat[i];

		if (!h->bandwidth_mibs)
			continue;
		rc |= w_start(w, "bandwidth");
		rc |= w_attru(w, "initiator", h->initiator);
		rc |= w_attru(w, "target", h->target);
		rc |= w_attr(w, "type", "access");
		rc |= w_attru(w, "value", h->bandwidth_mibs);
		rc |= w_attr(w, "unit", "MiB");
		rc |= w_end(w);
	}
	return rc | w_end(w);
}

static int write_cpu(xmlTextWriterPtr w, const struct domain_spec *s, const struct topo_layout *l)
{
	const struct job_topology *t = s->topo;
	bool dist = has_distances(t);
	unsigned int i, cpu = 0;
	int rc = w_start(w, "cpu");

	if (s->accel == DOM_ACCEL_KVM) {
		rc |= w_attr(w, "mode", "host-passthrough");
		rc |= w_attr(w, "check", "none");
	} else {
		rc |= w_attr(w, "mode", "custom");
		rc |= w_attr(w, "match", "exact");
		rc |= w_attr(w, "check", "none");
		rc |= w_start(w, "model");
		rc |= w_attr(w, "fallback", "forbid");
		rc |= xmlTextWriterWriteString(w, BAD_CAST TCG_CPU_MODEL) < 0 ? -1 : 0;
		rc |= w_end(w);
	}
	rc |= w_start(w, "numa");
	for (i = 0; i < t->nnodes; i++) {
		rc |= write_cell(w, t, l, i, cpu, dist);
		cpu += t->nodes[i].cpus;
	}
	rc |= write_interconnects(w, t);
	rc |= w_end(w);
	return rc | w_end(w);
}

static int write_cputune(xmlTextWriterPtr w, const struct domain_spec *s)
{
	unsigned int i, n = total_cpus(s->topo);
	int rc = w_start(w, "cputune");

	for (i = 0; i < n; i++) {
		char pin[16];

		if (s->vcpu_pins)
			snprintf(pin, sizeof(pin), "%d", s->vcpu_pins[i]);
		rc |= w_start(w, "vcpupin");
		rc |= w_attru(w, "vcpu", i);
		rc |= w_attr(w, "cpuset", s->vcpu_pins ? pin : s->cpuset);
		rc |= w_end(w);
	}
	return rc | w_end(w);
}

/* <numatune>: the guest's memory on the host nodes placement chose */
static int write_numatune(xmlTextWriterPtr w, const struct domain_spec *s)
{
	unsigned int i, n = s->topo->nnodes;
	char all[256] = "", one[16];
	int rc = w_start(w, "numatune");

	for (i = 0; i < n; i++) {
		snprintf(one, sizeof(one), "%s%d", i ? "," : "", s->memnodes[i]);
		if (strlen(all) + strlen(one) < sizeof(all))
			strcat(all, one);
	}
	rc |= w_start(w, "memory");
	rc |= w_attr(w, "mode", "strict");
	rc |= w_attr(w, "nodeset", all);
	rc |= w_end(w);
	for (i = 0; i < n; i++) {
		snprintf(one, sizeof(one), "%d", s->memnodes[i]);
		rc |= w_start(w, "memnode");
		rc |= w_attru(w, "cellid", i);
		rc |= w_attr(w, "mode", "strict");
		rc |= w_attr(w, "nodeset", one);
		rc |= w_end(w);
	}
	return rc | w_end(w);
}

static int write_serial(xmlTextWriterPtr w, const char *path, unsigned int port, bool pipe)
{
	int rc = w_start(w, "serial");

	/* pipe: QEMU opens path.in and path.out, not virtlogd (guest/tap.h) */
	rc |= w_attr(w, "type", pipe ? "pipe" : "file");
	rc |= w_empty1(w, "source", "path", path);
	rc |= w_start(w, "target");
	rc |= w_attru(w, "port", port);
	rc |= w_end(w);
	return rc | w_end(w);
}

/* the root disk of a debootstrap image: a per-boot qcow2 overlay */
static int write_disk(xmlTextWriterPtr w, const char *path)
{
	int rc = w_start(w, "disk");

	rc |= w_attr(w, "type", "file");
	rc |= w_attr(w, "device", "disk");
	rc |= w_start(w, "driver");
	rc |= w_attr(w, "name", "qemu");
	rc |= w_attr(w, "type", "qcow2");
	rc |= w_end(w);
	rc |= w_empty1(w, "source", "file", path);
	rc |= w_start(w, "target");
	rc |= w_attr(w, "dev", "vda");
	rc |= w_attr(w, "bus", "virtio");
	rc |= w_end(w);
	return rc | w_end(w);
}

/* the boot's payload beside it: a raw cpio the agent finds by its serial */
static int write_payload_disk(xmlTextWriterPtr w, const char *path)
{
	int rc = w_start(w, "disk");

	rc |= w_attr(w, "type", "file");
	rc |= w_attr(w, "device", "disk");
	rc |= w_start(w, "driver");
	rc |= w_attr(w, "name", "qemu");
	rc |= w_attr(w, "type", "raw");
	rc |= w_end(w);
	rc |= w_empty1(w, "source", "file", path);
	rc |= w_start(w, "target");
	rc |= w_attr(w, "dev", "vdb");
	rc |= w_attr(w, "bus", "virtio");
	rc |= w_end(w);
	rc |= w_elem(w, "serial", MMPAYLOAD_SERIAL);
	rc |= w_start(w, "readonly");
	rc |= w_end(w);
	return rc | w_end(w);
}

static int write_devices(xmlTextWriterPtr w, const struct domain_spec *s)
{
	int rc = w_start(w, "devices");

	if (s->disk_path)
		rc |= write_disk(w, s->disk_path);
	if (s->payload_path)
		rc |= write_payload_disk(w, s->payload_path);

	rc |= write_serial(w, s->console_path, 0, false);
	rc |= write_serial(w, s->data_path, 1, s->data_pipe);
	/* the console is ttyS0 (libvirt would add this for serial 0 anyway) */
	rc |= w_start(w, "console");
	rc |= w_attr(w, "type", "file");
	rc |= w_empty1(w, "source", "path", s->console_path);
	rc |= w_start(w, "target");
	rc |= w_attr(w, "type", "serial");
	rc |= w_attr(w, "port", "0");
	rc |= w_end(w);
	rc |= w_end(w);
	rc |= w_start(w, "controller");
	rc |= w_attr(w, "type", "usb");
	rc |= w_attr(w, "model", "none");
	rc |= w_end(w);
	rc |= w_empty1(w, "memballoon", "model", "none");
	rc |= w_empty1(w, "panic", "model", "isa");
	return rc | w_end(w);
}

static int write_domain(xmlTextWriterPtr w, const struct domain_spec *s,
			const struct topo_layout *l)
{
	char buf[32];
	int rc = 0;

	rc |= xmlTextWriterSetIndent(w, 1) < 0 ? -1 : 0;
	rc |= xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0 ? -1 : 0;
	rc |= w_start(w, "domain");
	rc |= w_attr(w, "type", s->accel == DOM_ACCEL_KVM ? "kvm" : "qemu");
	rc |= w_elem(w, "name", s->name);
	rc |= w_start(w, "memory");
	rc |= w_attr(w, "unit", "KiB");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(l->total >> 10));
	rc |= xmlTextWriterWriteString(w, BAD_CAST buf) < 0 ? -1 : 0;
	rc |= w_end(w);
	rc |= w_start(w, "vcpu");
	rc |= w_attr(w, "placement", "static");
	snprintf(buf, sizeof(buf), "%u", total_cpus(s->topo));
	rc |= xmlTextWriterWriteString(w, BAD_CAST buf) < 0 ? -1 : 0;
	rc |= w_end(w);
	if (s->cpuset || s->vcpu_pins)
		rc |= write_cputune(w, s);
	if (s->memnodes)
		rc |= write_numatune(w, s);
	rc |= write_os(w, s, l);
	rc |= w_start(w, "features");
	rc |= w_empty1(w, "acpi", NULL, NULL);
	rc |= w_empty1(w, "apic", NULL, NULL);
	rc |= w_end(w);
	rc |= write_cpu(w, s, l);
	rc |= w_empty1(w, "clock", "offset", "utc");
	rc |= w_elem(w, "on_poweroff", "destroy");
	rc |= w_elem(w, "on_reboot", "destroy");
	rc |= w_elem(w, "on_crash", "destroy");
	rc |= write_devices(w, s);
	rc |= w_end(w);
	rc |= xmlTextWriterEndDocument(w) < 0 ? -1 : 0;
	return rc;
}

/* the layout of the spec's topology (malloc'd), or NULL after a message */
static struct topo_layout *spec_layout(const struct domain_spec *s)
{
	struct topo_layout *l = xmalloc(sizeof(*l));
	unsigned int bad;
	char why[256];

	if (topo_layout(s->topo, l, &bad, why, sizeof(why)) == 0)
		return l;
	lab_err("domain XML for %s: NUMA node %u: %s; fix the job's topology", s->name, bad, why);
	free(l);
	return NULL;
}

char *topology_domain_xml(const struct domain_spec *spec)
{
	struct topo_layout *l;
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
	char *out = NULL;
	int rc;

	if (!spec || check_spec(spec) < 0)
		return NULL;
	l = spec_layout(spec);
	if (!l)
		return NULL;
	buf = xmlBufferCreate();
	if (!buf) {
		lab_err("domain XML for %s: out of memory creating the XML buffer", spec->name);
		free(l);
		return NULL;
	}
	w = xmlNewTextWriterMemory(buf, 0);
	if (!w) {
		xmlBufferFree(buf);
		free(l);
		lab_err("domain XML for %s: cannot create the libxml2 writer", spec->name);
		return NULL;
	}
	rc = write_domain(w, spec, l);
	free(l);
	xmlFreeTextWriter(w); /* flushes into buf */
	if (rc < 0)
		lab_err("domain XML for %s: libxml2 failed to write the document; this is a bug, please report it",
			spec->name);
	else
		out = xstrdup((const char *)xmlBufferContent(buf));
	xmlBufferFree(buf);
	return out;
}
