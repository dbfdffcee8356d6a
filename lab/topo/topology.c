// SPDX-License-Identifier: GPL-2.0
/*
 * topology.c - what a topology adds up to, and the accel modes' names.
 */
#include "topo/topology.h"

const char *accel_mode_name(enum accel_mode m)
{
	switch (m) {
	case ACCEL_AUTO:
		return "auto";
	case ACCEL_KVM:
		return "kvm";
	case ACCEL_TCG:
		return "tcg";
	}
	return "unknown";
}

unsigned int topology_total_cpus(const struct job_topology *t)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->nnodes; i++)
		n += t->nodes[i].cpus;
	return n;
}

uint64_t topology_total_memory_kib(const struct job_topology *t)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < t->nnodes; i++)
		n += t->nodes[i].memory_kib;
	return n;
}

bool topology_has_kmem(const struct job_topology *t)
{
	for (unsigned int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kmem)
			return true;
	return false;
}

bool topology_is_tiered(const struct job_topology *t)
{
	if (t->nhmat)
		return true;
	for (unsigned int i = 0; i < t->nnodes; i++)
		if (!t->nodes[i].cpus || !t->nodes[i].memory_kib || t->nodes[i].kmem)
			return true;
	return false;
}

int topology_demotion(const struct job_topology *t)
{
	if (t->demotion)
		return t->demotion > 0;
	return topology_has_kmem(t) ? 1 : -1;
}
