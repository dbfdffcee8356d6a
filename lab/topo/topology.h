/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topology.h - the guest machine a job asks for: its NUMA topology (nodes,
 * HMAT entries, distances, demotion) and its accelerator mode.
 *
 * These are plain types with no parser behind them: job/ fills them from a
 * job file (job/parse_topology.c), vm/ turns them into a libvirt domain and
 * places its vCPUs, run/ and store/ read them. They live below all of them
 * (lab/LAYERS) so that vm/ needs nothing of job/.
 */
#ifndef MMLAB_TOPOLOGY_H
#define MMLAB_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#define JOB_MAX_NODES 64

enum accel_mode {
	ACCEL_AUTO,
	ACCEL_KVM,
	ACCEL_TCG,
};
const char *accel_mode_name(enum accel_mode m); /* "auto", "kvm", "tcg" */

struct job_node {
	unsigned int cpus; /* 0: a CPU-less (memory-only) node */
	uint64_t memory_kib; /* 0: a memoryless node (CPUs only) */
	/*
	 * The node's memory is given to the guest as soft-reserved memory
	 * (a dax device) that the agent onlines with the kmem driver, as CXL
	 * expanders and PMEM in system-ram mode appear: the kernel puts such
	 * memory in a lower memory tier (docs/job-format.md, "Memory tiers").
	 */
	bool kmem;
};

/*
 * One HMAT entry (libvirt <interconnects>): the access latency and/or
 * bandwidth from the CPUs of node initiator to the memory of node target.
 */
#define JOB_MAX_HMAT 256
struct job_hmat {
	unsigned int initiator, target;
	unsigned int latency_ns; /* 0: not given */
	uint64_t bandwidth_mibs; /* MiB/s; 0: not given */
};

struct job_topology {
	unsigned int nnodes;
	struct job_node nodes[JOB_MAX_NODES];
	unsigned int nhmat;
	struct job_hmat hmat[JOB_MAX_HMAT];
	/*
	 * /sys/kernel/mm/numa/demotion_enabled as the job says: 0 when it
	 * says nothing (then on when a node is kmem), 1 true, -1 false
	 */
	int demotion;
	/*
	 * distances[i * nnodes + j]; all zero when the job gives none (libvirt
	 * and the guest then use the firmware default: 10 local, 20 remote).
	 * A scalar "distances: 21" fills every remote entry with 21 and every
	 * local one with 10.
	 */
	unsigned int distances[JOB_MAX_NODES * JOB_MAX_NODES];
};
unsigned int topology_total_cpus(const struct job_topology *t);
uint64_t topology_total_memory_kib(const struct job_topology *t);
/* a node is CPU-less, memoryless or kmem, or HMAT is given: the agent reports the tiers */
bool topology_is_tiered(const struct job_topology *t);
/* some node is kmem: the guest needs the dax and kmem drivers */
bool topology_has_kmem(const struct job_topology *t);
/* demotion_enabled for the guest: 1, 0, or -1 to leave the kernel's default */
int topology_demotion(const struct job_topology *t);

#endif
