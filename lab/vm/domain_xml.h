/* SPDX-License-Identifier: GPL-2.0 */
/*
 * domain_xml.h - libvirt domain XML for a job's NUMA topology.
 *
 * The XML is written with libxml2's xmlTextWriter, so every value (names,
 * paths, the kernel command line) is escaped. The guest boots a kernel
 * directly (<kernel>/<initrd>/<cmdline>), has no disks, network, graphics
 * or USB, and two serial ports: ttyS0 (console log, a file) and ttyS1 (the
 * agent's data channel, see common/proto.h: a file, or FIFOs a thread of
 * the host copies, guest/tap.h).
 */
#ifndef MMLAB_DOMAIN_XML_H
#define MMLAB_DOMAIN_XML_H

#include <stdbool.h>

#include "topo/topology.h"

enum dom_accel {
	DOM_ACCEL_KVM,
	DOM_ACCEL_TCG,
};
const char *dom_accel_name(enum dom_accel a); /* "kvm", "tcg" */

struct domain_spec {
	const char *name; /* "mmlab-..." unique per run */
	const struct job_topology *topo;
	enum dom_accel accel;
	const char *kernel, *initrd, *cmdline; /* absolute paths; cmdline complete */
	const char *console_path; /* ttyS0 -> file (console log) */
	const char *data_path; /* ttyS1 -> file (agent data channel) */
	/* ttyS1 as <serial type='pipe'>: the FIFOs data_path.in/.out (guest/tap.h) */
	bool data_pipe;
	const char *cpuset; /* host cpus for <vcpupin>, NULL = none */
	/*
	 * Placement (lab/vm/placement.h): one host CPU per vCPU (overrides
	 * cpuset), and one host NUMA node per guest node for
	 * <numatune><memnode>; NULL = none. Arrays of total vCPUs / nnodes.
	 */
	const int *vcpu_pins;
	const int *memnodes;
	const char *disk_path; /* qcow2 as virtio-blk vda, NULL = no disk */
	/* the boot's payload (common/proto.h): raw, read-only vdb, NULL = none */
	const char *payload_path;
};

/*
 * The domain XML for spec, malloc'd (free() it). NULL after one lab_err()
 * when the spec is incomplete (missing name/kernel/paths, no nodes, a node
 * without cpus or memory) or the XML cannot be written.
 */
char *topology_domain_xml(const struct domain_spec *spec);

#endif
