/* SPDX-License-Identifier: GPL-2.0 */
/*
 * placement.h - where concurrent guests go on the host: each VM gets host
 * CPUs no other VM of this queue runner has (one per vCPU, for
 * <cputune><vcpupin>), and on a NUMA host each guest node's memory is
 * bound to one host node (<numatune><memnode>) that has the CPUs and the
 * free memory for it.
 *
 * The host's topology is read from sysfs (/sys/devices/system/node, or
 * $MMLAB_SYSFS_NODE_DIR for tests: nodeN/cpulist and nodeN/meminfo); a
 * kernel without NUMA gives one node holding every online CPU and
 * /proc/meminfo's MemAvailable.
 */
#ifndef MMLAB_PLACEMENT_H
#define MMLAB_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "topo/topology.h"

#define PLACE_MAX_CPUS 1024
#define PLACE_MAX_NODES 64
/* per-VM host memory on top of the guest's RAM (QEMU, page tables) */
#define PLACE_VM_OVERHEAD_KIB (96u << 10)

struct host_node {
	int id; /* nodeN */
	unsigned int ncpus;
	int cpus[PLACE_MAX_CPUS];
	uint64_t mem_free_kib; /* free when read, what we may use */
};

struct host_topo {
	unsigned int nnodes;
	struct host_node nodes[PLACE_MAX_NODES];
	bool numa; /* more than one node */
};

/*
 * Read the host's nodes from dir (NULL: $MMLAB_SYSFS_NODE_DIR, else
 * /sys/devices/system/node). 0, or -1 after a message.
 */
int host_topo_read(const char *dir, struct host_topo *h);
/* "0-3,8,10-11" -> cpus; the count, or -1 on bad syntax or more than max */
int parse_cpulist(const char *s, int *cpus, unsigned int max);

struct placement {
	unsigned int nvcpus, nnodes;
	int vcpu_pins[PLACE_MAX_CPUS]; /* host CPU of each vCPU */
	int memnodes[JOB_MAX_NODES]; /* host node of each guest node */
	int node_slot[JOB_MAX_NODES]; /* index into host_topo.nodes */
	uint64_t node_kib[JOB_MAX_NODES]; /* reserved on that host node */
	bool numa; /* memnodes are meaningful (NUMA host) */
};

struct placer {
	struct host_topo host;
	bool used[PLACE_MAX_CPUS]; /* by host CPU number */
	uint64_t reserved_kib[PLACE_MAX_NODES];
};

void placer_init(struct placer *p, const struct host_topo *h);
/*
 * Find disjoint host CPUs and host nodes for a guest of topology t.
 * 0 placed (out filled, resources reserved), 1 not now (CPUs or memory
 * taken by running guests), -1 never (the host is too small; message).
 */
int placer_place(struct placer *p, const struct job_topology *t, struct placement *out);
void placer_release(struct placer *p, const struct placement *pl);
/* how many guests of topology t fit on the idle host at once (>= 1) */
unsigned int placer_capacity(const struct host_topo *h, const struct job_topology *t);

/* {"vcpu_pins":[..], "memnodes":[..] or null, "host_nodes": N}; a new reference */
json_t *placement_json(const struct placement *pl);

#endif
