// SPDX-License-Identifier: GPL-2.0
/*
 * parse_topology.c - the job's "topology:" (docs/job-format.md): uniform
 * nodes (nodes: N, cpus_per_node, memory_per_node) or a list of node
 * entries, and the optional distance matrix.
 */
#include <stdio.h>
#include <stdlib.h>

#include "job/parse.h"
#include "topo/topo_layout.h"
#include "lib/util.h"

#define JOB_MIN_NODE_BYTES (64ULL << 20)
#define JOB_MAX_NODE_BYTES (16ULL << 40)

static bool get_node_memory(struct job_yaml *y, yaml_node_t *n, const char *path, uint64_t *kib,
			    bool zero_ok)
{
	uint64_t bytes;

	if (!job_yaml_size(y, n, path, &bytes))
		return false;
	if (!bytes && zero_ok) {
		*kib = 0;
		return true;
	}
	if (bytes < JOB_MIN_NODE_BYTES || bytes > JOB_MAX_NODE_BYTES) {
		job_yaml_err(y, n->start_mark, path,
			     "%llu bytes is out of range; expected %s64M..16T per node",
			     (unsigned long long)bytes, zero_ok ? "0 (a memoryless node) or " : "");
		return false;
	}
	if (bytes % (1ULL << 20)) {
		job_yaml_err(y, n->start_mark, path,
			     "%llu bytes is not a whole number of MiB; expected a multiple of 1M",
			     (unsigned long long)bytes);
		return false;
	}
	*kib = bytes >> 10;
	return true;
}

enum { TN_CPUS, TN_MEMORY, TN_KMEM, TN_N };

static bool parse_node_entry(struct job_yaml *y, yaml_node_t *n, const char *path,
			     struct job_node *jn)
{
	static const char *const bools[] = { "false", "true", NULL };
	struct job_field f[TN_N] = {
		[TN_CPUS] = { .key = "cpus" },
		[TN_MEMORY] = { .key = "memory" },
		[TN_KMEM] = { .key = "kmem" },
	};
	char p[PATHLEN];
	bool ok = true;

	if (!job_yaml_map(y, n, path, "a mapping such as {cpus: 1, memory: 256M}", f, TN_N))
		return false;
	jn->cpus = 1;
	if (f[TN_CPUS].val)
		ok &= job_yaml_uint(y, f[TN_CPUS].val, job_pkey(p, path, "cpus"), 0, JOB_MAX_CPUS,
				    &jn->cpus);
	if (f[TN_MEMORY].val) {
		ok &= get_node_memory(y, f[TN_MEMORY].val, job_pkey(p, path, "memory"),
				      &jn->memory_kib, true);
	} else {
		job_yaml_missing(y, n, path, "memory", "256M");
		ok = false;
	}
	if (f[TN_KMEM].val) {
		int b = job_yaml_enum(y, f[TN_KMEM].val, job_pkey(p, path, "kmem"), bools);

		ok &= b >= 0;
		jn->kmem = b == 1;
	}
	return ok;
}

enum { TP_NODES, TP_CPUS, TP_MEMORY, TP_DISTANCES, TP_HMAT, TP_DEMOTION, TP_N };

static bool parse_node_list(struct job_yaml *y, yaml_node_t *n, struct job_field *f,
			    struct job_topology *t)
{
	const char *path = "topology.nodes";
	size_t len = job_yaml_seq_len(n);
	char p[PATHLEN];
	bool ok = true;

	for (int i = TP_CPUS; i <= TP_MEMORY; i++) {
		if (!f[i].val)
			continue;
		job_yaml_err(
			y, f[i].key_node->start_mark, job_pkey(p, "topology", f[i].key),
			"cannot be combined with a list of nodes; give cpus and memory in each node entry instead");
		ok = false;
	}
	if (len < 1 || len > JOB_MAX_NODES) {
		job_yaml_err(y, n->start_mark, path, "has %zu entries; expected 1..%d nodes", len,
			     JOB_MAX_NODES);
		return false;
	}
	for (size_t i = 0; i < len; i++)
		ok &= parse_node_entry(y, job_yaml_seq_item(y, n, i), job_pidx(p, path, i),
				       &t->nodes[i]);
	t->nnodes = (unsigned int)len;
	return ok;
}

static bool parse_node_uniform(struct job_yaml *y, yaml_node_t *topo, struct job_field *f,
			       struct job_topology *t)
{
	unsigned int nnodes, cpus = 1;
	uint64_t kib = 0;
	bool ok;

	ok = job_yaml_uint(y, f[TP_NODES].val, "topology.nodes", 1, JOB_MAX_NODES, &nnodes);
	if (f[TP_CPUS].val)
		ok &= job_yaml_uint(y, f[TP_CPUS].val, "topology.cpus_per_node", 1, JOB_MAX_CPUS,
				    &cpus);
	if (f[TP_MEMORY].val) {
		ok &= get_node_memory(y, f[TP_MEMORY].val, "topology.memory_per_node", &kib, false);
	} else {
		job_yaml_missing(y, topo, "topology", "memory_per_node", "256M");
		ok = false;
	}
	if (!ok)
		return false;
	t->nnodes = nnodes;
	for (unsigned int i = 0; i < nnodes; i++) {
		t->nodes[i].cpus = cpus;
		t->nodes[i].memory_kib = kib;
	}
	return true;
}

static void parse_distance_row(struct job_yaml *y, yaml_node_t *row, size_t i,
			       struct job_topology *t)
{
	unsigned int n = t->nnodes, d;
	char p[PATHLEN], q[PATHLEN];

	job_pidx(p, "topology.distances", i);
	if (row->type != YAML_SEQUENCE_NODE || job_yaml_seq_len(row) != n) {
		job_yaml_err(y, row->start_mark, p,
			     "got %s%s; expected a list of %u distances (one per node)",
			     job_yaml_kind(row),
			     row->type == YAML_SEQUENCE_NODE ? " of another length" : "", n);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		yaml_node_t *e = job_yaml_seq_item(y, row, j);

		job_pidx(q, p, j);
		if (i == j) {
			if (!job_yaml_uint(y, e, q, 0, 255, &d))
				continue;
			if (d != 10)
				job_yaml_err(y, e->start_mark, q,
					     "is %u; the distance of a node to itself must be 10",
					     d);
			t->distances[i * n + j] = 10;
		} else if (job_yaml_uint(y, e, q, 11, 255, &d)) {
			t->distances[i * n + j] = d;
		}
	}
}

static void parse_distances(struct job_yaml *y, yaml_node_t *n, struct job_topology *t,
			    bool nodes_ok)
{
	const char *path = "topology.distances";
	unsigned int d;

	if (n->type == YAML_SEQUENCE_NODE) {
		if (!nodes_ok)
			return; /* shape unknown; the node error says why */
		if (job_yaml_seq_len(n) != t->nnodes) {
			job_yaml_err(y, n->start_mark, path,
				     "has %zu rows; expected a %ux%u matrix (one row per node)",
				     job_yaml_seq_len(n), t->nnodes, t->nnodes);
			return;
		}
		for (size_t i = 0; i < t->nnodes; i++)
			parse_distance_row(y, job_yaml_seq_item(y, n, i), i, t);
		return;
	}
	if (n->type == YAML_MAPPING_NODE) {
		job_yaml_err(
			y, n->start_mark, path,
			"got a mapping; expected a remote distance 11..255 or an NxN list of lists");
		return;
	}
	if (!job_yaml_uint(y, n, path, 11, 255, &d) || !nodes_ok)
		return;
	for (unsigned int i = 0; i < t->nnodes; i++)
		for (unsigned int j = 0; j < t->nnodes; j++)
			t->distances[i * t->nnodes + j] = i == j ? 10 : d;
}

/* where node i is written: its list entry, or the uniform "nodes: N" */
static yaml_mark_t node_mark(struct job_yaml *y, yaml_node_t *nodes, unsigned int i,
			     char p[PATHLEN])
{
	if (nodes->type != YAML_SEQUENCE_NODE) {
		snprintf(p, PATHLEN, "topology.nodes");
		return nodes->start_mark;
	}
	job_pidx(p, "topology.nodes", i);
	return job_yaml_seq_item(y, nodes, i)->start_mark;
}

/* what libvirt, QEMU or the kernel cannot boot, refused here (docs/job-format.md) */
static bool check_node(struct job_yaml *y, yaml_node_t *nodes, const struct job_topology *t,
		       unsigned int i)
{
	const struct job_node *n = &t->nodes[i];
	char p[PATHLEN];
	yaml_mark_t m = node_mark(y, nodes, i, p);

	if (!n->cpus && !n->memory_kib) {
		job_yaml_err(y, m, p, "has neither CPUs nor memory; give it cpus >= 1 or memory");
		return false;
	}
	if (n->kmem && !n->memory_kib) {
		job_yaml_err(y, m, p,
			     "kmem: true needs memory; give the node memory (128M or more)");
		return false;
	}
	if (!n->cpus && i + 1 < t->nnodes && t->nodes[i + 1].cpus) {
		/*
		 * libvirt 9.0's qemuProcessSetupPid looks for each vCPU's cell
		 * with virBitmapIsBitSet() on every cell before it, and a
		 * CPU-less cell has no CPU mask: libvirtd segfaults (measured).
		 */
		job_yaml_err(
			y, m, p,
			"a CPU-less node before a node with CPUs (node %u) crashes libvirtd 9.0; put the CPU-less nodes after every node with CPUs",
			i + 1);
		return false;
	}
	if (i == 0 && (!n->memory_kib || n->kmem)) {
		job_yaml_err(
			y, m, p,
			"node 0 must have ordinary memory (memory > 0, no kmem): the kernel boots in it; put memoryless and kmem nodes after node 0");
		return false;
	}
	return true;
}

static bool check_nodes(struct job_yaml *y, yaml_node_t *nodes, const struct job_topology *t)
{
	struct topo_layout *l;
	unsigned int bad;
	char why[256], p[PATHLEN];
	bool ok = true;

	for (unsigned int i = 0; i < t->nnodes; i++)
		ok &= check_node(y, nodes, t, i);
	if (ok && !topology_total_cpus(t)) {
		job_yaml_err(y, nodes->start_mark, "topology",
			     "no node has CPUs; give at least one node cpus >= 1");
		return false;
	}
	if (!ok)
		return false;
	l = xmalloc(sizeof(*l));
	if (topo_layout(t, l, &bad, why, sizeof(why)) < 0) {
		yaml_mark_t m = node_mark(y, nodes, bad, p);

		job_yaml_err(y, m, p, "%s", why);
		ok = false;
	}
	free(l);
	return ok;
}

static void parse_demotion(struct job_yaml *y, yaml_node_t *n, struct job_topology *t)
{
	static const char *const bools[] = { "false", "true", NULL };
	int b = job_yaml_enum(y, n, "topology.demotion", bools);

	if (b >= 0)
		t->demotion = b ? 1 : -1;
}

void job_parse_topology(struct job_yaml *y, yaml_node_t *n, struct job_topology *t)
{
	struct job_field f[TP_N] = {
		[TP_NODES] = { .key = "nodes" },
		[TP_CPUS] = { .key = "cpus_per_node" },
		[TP_MEMORY] = { .key = "memory_per_node" },
		[TP_DISTANCES] = { .key = "distances" },
		[TP_HMAT] = { .key = "hmat" },
		[TP_DEMOTION] = { .key = "demotion" },
	};
	bool ok;

	if (!job_yaml_map(
		    y, n, "topology",
		    "a mapping with nodes, cpus_per_node, memory_per_node, distances, hmat, demotion",
		    f, TP_N))
		return;
	if (!f[TP_NODES].val) {
		job_yaml_missing(y, n, "topology", "nodes", "2");
		return;
	}
	if (f[TP_NODES].val->type == YAML_SEQUENCE_NODE)
		ok = parse_node_list(y, f[TP_NODES].val, f, t);
	else
		ok = parse_node_uniform(y, n, f, t);
	if (ok && topology_total_cpus(t) > JOB_MAX_CPUS) {
		job_yaml_err(y, f[TP_NODES].val->start_mark, "topology",
			     "%u vCPUs in total; at most %d allowed", topology_total_cpus(t),
			     JOB_MAX_CPUS);
		ok = false;
	}
	ok = ok && check_nodes(y, f[TP_NODES].val, t);
	if (ok)
		y->total_mem = topology_total_memory_kib(t) << 10;
	if (f[TP_DISTANCES].val)
		parse_distances(y, f[TP_DISTANCES].val, t, ok);
	if (f[TP_HMAT].val)
		job_parse_hmat(y, f[TP_HMAT].val, t, ok);
	if (f[TP_DEMOTION].val)
		parse_demotion(y, f[TP_DEMOTION].val, t);
}
