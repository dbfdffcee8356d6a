// SPDX-License-Identifier: GPL-2.0
/*
 * parse_hmat.c - topology.hmat: HMAT latency and bandwidth per initiator
 * and target node, given to the guest through libvirt's <interconnects>.
 *
 * What QEMU 7.2 refuses, checked here with the entry's location (measured
 * with qemu-system-x86_64 -numa hmat-lb): an initiator without CPUs, the
 * same pair twice, a bandwidth not a multiple of 1 MiB/s, and values that
 * do not fit its 16-bit entries: QEMU stores each latency as a multiple of
 * the largest power of ten dividing all of them, each bandwidth as a
 * multiple of the largest power of two dividing all of them, and either
 * multiple must stay at most 65534. A CPU-less node that is no entry's
 * target has no initiator, which QEMU refuses too.
 */
#include <stdio.h>

#include "job/parse.h"

#define HMAT_MAX_LATENCY 1000000u /* ns */
#define HMAT_MAX_ENTRY 65534ULL

enum { HM_INITIATOR, HM_TARGET, HM_LATENCY, HM_BANDWIDTH, HM_N };

static bool parse_bandwidth(struct job_yaml *y, yaml_node_t *n, const char *path, uint64_t *mibs)
{
	uint64_t bytes;

	if (!job_yaml_size(y, n, path, &bytes))
		return false;
	if (!bytes || bytes % (1ULL << 20) || bytes > (1ULL << 50)) {
		job_yaml_err(
			y, n->start_mark, path,
			"%llu bytes/s is not allowed; expected a whole number of MiB per second, 1M..1P (QEMU's HMAT unit)",
			(unsigned long long)bytes);
		return false;
	}
	*mibs = bytes >> 20;
	return true;
}

static bool check_ends(struct job_yaml *y, yaml_node_t *n, const char *path,
		       const struct job_topology *t, const struct job_hmat *h)
{
	if (h->initiator >= t->nnodes || h->target >= t->nnodes) {
		job_yaml_err(y, n->start_mark, path, "names node %u; the topology has nodes 0..%u",
			     h->initiator >= t->nnodes ? h->initiator : h->target, t->nnodes - 1);
		return false;
	}
	if (!t->nodes[h->initiator].cpus) {
		job_yaml_err(y, n->start_mark, path,
			     "initiator %u has no CPUs; an initiator is a node with CPUs",
			     h->initiator);
		return false;
	}
	if (!t->nodes[h->target].memory_kib) {
		job_yaml_err(y, n->start_mark, path,
			     "target %u has no memory; a target is a node with memory", h->target);
		return false;
	}
	return true;
}

static bool parse_entry(struct job_yaml *y, yaml_node_t *n, const char *path,
			const struct job_topology *t, bool nodes_ok, struct job_hmat *h)
{
	struct job_field f[HM_N] = {
		[HM_INITIATOR] = { .key = "initiator" },
		[HM_TARGET] = { .key = "target" },
		[HM_LATENCY] = { .key = "latency" },
		[HM_BANDWIDTH] = { .key = "bandwidth" },
	};
	char p[PATHLEN];
	bool ok = true;

	if (!job_yaml_map(
		    y, n, path,
		    "a mapping such as { initiator: 0, target: 1, latency: 300, bandwidth: 8G }", f,
		    HM_N))
		return false;
	for (int i = HM_INITIATOR; i <= HM_TARGET; i++) {
		unsigned int *v = i == HM_INITIATOR ? &h->initiator : &h->target;

		if (!f[i].val) {
			job_yaml_missing(y, n, path, f[i].key, "0");
			ok = false;
		} else {
			ok &= job_yaml_uint(y, f[i].val, job_pkey(p, path, f[i].key), 0,
					    JOB_MAX_NODES - 1, v);
		}
	}
	if (f[HM_LATENCY].val)
		ok &= job_yaml_uint(y, f[HM_LATENCY].val, job_pkey(p, path, "latency"), 1,
				    HMAT_MAX_LATENCY, &h->latency_ns);
	if (f[HM_BANDWIDTH].val)
		ok &= parse_bandwidth(y, f[HM_BANDWIDTH].val, job_pkey(p, path, "bandwidth"),
				      &h->bandwidth_mibs);
	if (!f[HM_LATENCY].val && !f[HM_BANDWIDTH].val) {
		job_yaml_err(y, n->start_mark, path,
			     "gives neither latency nor bandwidth; give one or both");
		ok = false;
	}
	return ok && (!nodes_ok || check_ends(y, n, path, t, h));
}

static bool same_pair(const struct job_hmat *a, const struct job_hmat *b)
{
	return a->initiator == b->initiator && a->target == b->target;
}

/* QEMU's 16-bit entries: latencies over a power of ten, bandwidths over a power of two */
static bool check_ranges(struct job_yaml *y, yaml_node_t *n, const struct job_topology *t)
{
	unsigned long long base10 = 1000000000ULL, lat_max = 0, bw_max = 0;
	unsigned int shift = 63;
	bool ok = true;

	for (unsigned int i = 0; i < t->nhmat; i++) {
		const struct job_hmat *h = &t->hmat[i];

		if (h->latency_ns) {
			while (h->latency_ns % base10)
				base10 /= 10;
			if (h->latency_ns > lat_max)
				lat_max = h->latency_ns;
		}
		if (h->bandwidth_mibs) {
			unsigned int s = (unsigned int)__builtin_ctzll(h->bandwidth_mibs);

			shift = s < shift ? s : shift;
			if (h->bandwidth_mibs > bw_max)
				bw_max = h->bandwidth_mibs;
		}
	}
	if (lat_max && lat_max / base10 > HMAT_MAX_ENTRY) {
		job_yaml_err(
			y, n->start_mark, "topology.hmat",
			"latencies up to %llu ns with a common unit of %llu ns do not fit QEMU's HMAT (at most 65534 units); round them to a coarser common unit (10, 100 ns)",
			lat_max, base10);
		ok = false;
	}
	if (bw_max && (bw_max >> shift) > HMAT_MAX_ENTRY) {
		job_yaml_err(
			y, n->start_mark, "topology.hmat",
			"bandwidths up to %llu MiB/s with a common unit of %llu MiB/s do not fit QEMU's HMAT (at most 65534 units); round them to a coarser common power of two",
			bw_max, 1ULL << shift);
		ok = false;
	}
	return ok;
}

/* each CPU-less node needs an initiator: libvirt takes it from the entries naming it */
static void check_cpuless(struct job_yaml *y, yaml_node_t *n, const struct job_topology *t)
{
	for (unsigned int i = 0; i < t->nnodes; i++) {
		bool found = false;

		if (t->nodes[i].cpus)
			continue;
		for (unsigned int k = 0; k < t->nhmat && !found; k++)
			found = t->hmat[k].target == i;
		if (!found)
			job_yaml_err(
				y, n->start_mark, "topology.hmat",
				"node %u has no CPUs and no entry with target: %u; QEMU needs an initiator for every CPU-less node: add { initiator: 0, target: %u, latency: ... }",
				i, i, i);
	}
}

void job_parse_hmat(struct job_yaml *y, yaml_node_t *n, struct job_topology *t, bool nodes_ok)
{
	const char *path = "topology.hmat";
	size_t len;
	char p[PATHLEN];
	bool ok = true;

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, path,
			     "got %s; expected a list of { initiator, target, latency, bandwidth }",
			     job_yaml_kind(n));
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > JOB_MAX_HMAT) {
		job_yaml_err(y, n->start_mark, path, "has %zu entries; expected 1..%d", len,
			     JOB_MAX_HMAT);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *e = job_yaml_seq_item(y, n, i);
		struct job_hmat h = { 0 };

		job_pidx(p, path, i);
		if (!parse_entry(y, e, p, t, nodes_ok, &h)) {
			ok = false;
			continue;
		}
		for (unsigned int k = 0; k < t->nhmat; k++) {
			if (!same_pair(&t->hmat[k], &h))
				continue;
			job_yaml_err(y, e->start_mark, p,
				     "initiator %u, target %u is given twice; give each pair once",
				     h.initiator, h.target);
			ok = false;
		}
		t->hmat[t->nhmat++] = h;
	}
	if (ok && check_ranges(y, n, t) && nodes_ok)
		check_cpuless(y, n, t);
}
