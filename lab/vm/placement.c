// SPDX-License-Identifier: GPL-2.0
/*
 * placement.c - disjoint host CPUs and NUMA node binding for concurrent
 * guests (see placement.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/placement.h"
#include "lib/util.h"

int parse_cpulist(const char *s, int *cpus, unsigned int max)
{
	unsigned int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*s))
			return -1;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			b = strtol(end + 1, &end, 10);
		}
		if (a < 0 || b < a || b >= PLACE_MAX_CPUS)
			return -1;
		for (long c = a; c <= b; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return (int)n;
}

/* "Node 0 MemFree: 123 kB" lines; MemFree + Inactive(file) + Active(file) */
static uint64_t node_free_kib(const char *text)
{
	static const char *const keys[] = { "MemFree:", "Inactive(file):", "Active(file):" };
	uint64_t sum = 0;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *k = strstr(text, keys[i]);

		if (k)
			sum += strtoull(k + strlen(keys[i]), NULL, 10);
	}
	return sum;
}

static int cmp_node(const void *a, const void *b)
{
	return ((const struct host_node *)a)->id - ((const struct host_node *)b)->id;
}

static int read_node(const char *dir, const char *name, struct host_node *n)
{
	char *p = xasprintf("%s/%s/cpulist", dir, name);
	char *text = read_file(p, NULL, 1 << 16);
	int cnt;

	if (!text) {
		free(p);
		return -1;
	}
	cnt = parse_cpulist(text, n->cpus, PLACE_MAX_CPUS);
	if (cnt < 0) {
		lab_err("cannot parse the CPU list '%.40s' in %s; is this a sysfs node directory?",
			text, p);
		free(text);
		free(p);
		return -1;
	}
	n->ncpus = (unsigned int)cnt;
	free(text);
	free(p);
	p = xasprintf("%s/%s/meminfo", dir, name);
	text = read_file(p, NULL, 1 << 16);
	n->mem_free_kib = text ? node_free_kib(text) : 0;
	free(text);
	free(p);
	n->id = atoi(name + 4);
	return 0;
}

/* no sysfs nodes: one node, every online CPU, MemAvailable */
static int read_flat(struct host_topo *h)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char *text = read_file("/proc/meminfo", NULL, 1 << 16);
	const char *k = text ? strstr(text, "MemAvailable:") : NULL;

	h->nnodes = 1;
	h->nodes[0].id = 0;
	h->nodes[0].ncpus = n > 0 && n <= PLACE_MAX_CPUS ? (unsigned int)n : 1;
	for (unsigned int i = 0; i < h->nodes[0].ncpus; i++)
		h->nodes[0].cpus[i] = (int)i;
	h->nodes[0].mem_free_kib = k ? strtoull(k + 13, NULL, 10) : 0;
	free(text);
	h->numa = false;
	return 0;
}

int host_topo_read(const char *dir, struct host_topo *h)
{
	struct dirent *de;
	DIR *d;

	memset(h, 0, sizeof(*h));
	if (!dir)
		dir = getenv("MMLAB_SYSFS_NODE_DIR");
	if (!dir) {
		dir = "/sys/devices/system/node";
		if (!is_dir(dir))
			return read_flat(h);
	}
	d = opendir(dir);
	if (!d) {
		lab_err("cannot read the host's NUMA nodes in %s: %s; unset MMLAB_SYSFS_NODE_DIR "
			"or point it at a directory of nodeN/cpulist files",
			dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		const char *s = de->d_name;

		if (strncmp(s, "node", 4) || !s[4] || strspn(s + 4, "0123456789") != strlen(s + 4))
			continue;
		if (h->nnodes == PLACE_MAX_NODES)
			break;
		if (read_node(dir, s, &h->nodes[h->nnodes])) {
			closedir(d);
			lab_err("cannot read host node %s/%s; check MMLAB_SYSFS_NODE_DIR", dir, s);
			return -1;
		}
		if (h->nodes[h->nnodes].ncpus) /* memory-only nodes hold no vCPU */
			h->nnodes++;
	}
	closedir(d);
	if (!h->nnodes)
		return read_flat(h);
	qsort(h->nodes, h->nnodes, sizeof(h->nodes[0]), cmp_node);
	h->numa = h->nnodes > 1;
	return 0;
}

void placer_init(struct placer *p, const struct host_topo *h)
{
	memset(p, 0, sizeof(*p));
	p->host = *h;
}

static unsigned int free_cpus(const struct placer *p, unsigned int slot)
{
	const struct host_node *n = &p->host.nodes[slot];
	unsigned int c = 0;

	for (unsigned int i = 0; i < n->ncpus; i++)
		c += !p->used[n->cpus[i]];
	return c;
}

static uint64_t free_kib(const struct placer *p, unsigned int slot)
{
	uint64_t f = p->host.nodes[slot].mem_free_kib;

	return f > p->reserved_kib[slot] ? f - p->reserved_kib[slot] : 0;
}

static unsigned int host_cpus(const struct host_topo *h)
{
	unsigned int c = 0;

	for (unsigned int i = 0; i < h->nnodes; i++)
		c += h->nodes[i].ncpus;
	return c;
}

static uint64_t host_kib(const struct host_topo *h)
{
	uint64_t k = 0;

	for (unsigned int i = 0; i < h->nnodes; i++)
		k += h->nodes[i].mem_free_kib;
	return k;
}

/*
 * Guest node g goes on the host node with the most free CPUs that has
 * room for its CPUs and memory, preferring nodes this guest does not use
 * yet, so a 2-node guest on a 2-node host mirrors the host.
 */
static int pick_node(const struct placer *p, const bool *taken, unsigned int cpus, uint64_t kib,
		     const uint64_t *want_kib)
{
	int best = -1;
	unsigned int best_free = 0;
	bool best_taken = true;

	for (unsigned int s = 0; s < p->host.nnodes; s++) {
		unsigned int f = free_cpus(p, s);

		if (f < cpus || free_kib(p, s) < want_kib[s] + kib)
			continue;
		if (best < 0 || (best_taken && !taken[s]) ||
		    (best_taken == taken[s] && f > best_free)) {
			best = (int)s;
			best_free = f;
			best_taken = taken[s];
		}
	}
	return best;
}

int placer_place(struct placer *p, const struct job_topology *t, struct placement *out)
{
	unsigned int need = topology_total_cpus(t), v = 0;
	uint64_t want[PLACE_MAX_NODES] = { 0 };
	bool taken[PLACE_MAX_NODES] = { 0 };
	const struct host_topo *h = &p->host;

	memset(out, 0, sizeof(*out));
	if (need > host_cpus(h) || need > PLACE_MAX_CPUS) {
		lab_err("the guest needs %u vCPUs but this host has %u CPUs to pin them to; "
			"make the job's topology smaller",
			need, host_cpus(h));
		return -1;
	}
	if (topology_total_memory_kib(t) + PLACE_VM_OVERHEAD_KIB > host_kib(h)) {
		lab_err("the guest needs %llu MiB but the host has %llu MiB free; make the "
			"job's memory smaller or free memory",
			(unsigned long long)(topology_total_memory_kib(t) >> 10),
			(unsigned long long)(host_kib(h) >> 10));
		return -1;
	}
	out->nnodes = t->nnodes;
	out->nvcpus = need;
	out->numa = h->numa;
	for (unsigned int g = 0; g < t->nnodes; g++) {
		uint64_t kib = t->nodes[g].memory_kib + (g ? 0 : PLACE_VM_OVERHEAD_KIB);
		int s = pick_node(p, taken, t->nodes[g].cpus, kib, want);

		if (s < 0) {
			/* give back the CPUs of the guest nodes placed so far */
			for (unsigned int i = 0; i < v; i++)
				p->used[out->vcpu_pins[i]] = false;
			return 1;
		}
		taken[s] = true;
		want[s] += kib;
		out->node_slot[g] = s;
		out->node_kib[g] = kib;
		out->memnodes[g] = h->nodes[s].id;
		/* the CPUs, reserved tentatively so the next guest node sees them */
		for (unsigned int i = 0, k = 0; k < t->nodes[g].cpus; i++) {
			int c = h->nodes[s].cpus[i];

			if (p->used[c])
				continue;
			p->used[c] = true;
			out->vcpu_pins[v++] = c;
			k++;
		}
	}
	/* every guest node found room: commit the memory */
	for (unsigned int g = 0; g < t->nnodes; g++)
		p->reserved_kib[out->node_slot[g]] += out->node_kib[g];
	return 0;
}

void placer_release(struct placer *p, const struct placement *pl)
{
	for (unsigned int i = 0; i < pl->nvcpus; i++)
		p->used[pl->vcpu_pins[i]] = false;
	for (unsigned int g = 0; g < pl->nnodes; g++) {
		uint64_t *r = &p->reserved_kib[pl->node_slot[g]];

		*r = *r > pl->node_kib[g] ? *r - pl->node_kib[g] : 0;
	}
}

unsigned int placer_capacity(const struct host_topo *h, const struct job_topology *t)
{
	struct placer *p = xmalloc(sizeof(*p));
	struct placement pl;
	unsigned int n = 0;

	placer_init(p, h);
	if (topology_total_cpus(t) <= host_cpus(h) &&
	    topology_total_memory_kib(t) + PLACE_VM_OVERHEAD_KIB <= host_kib(h))
		while (n < PLACE_MAX_CPUS && placer_place(p, t, &pl) == 0)
			n++;
	free(p);
	return n ? n : 1;
}

json_t *placement_json(const struct placement *pl)
{
	json_t *pins = json_array(), *mem = json_array();

	for (unsigned int i = 0; i < pl->nvcpus; i++)
		json_array_append_new(pins, json_integer(pl->vcpu_pins[i]));
	for (unsigned int g = 0; g < pl->nnodes; g++)
		json_array_append_new(mem, json_integer(pl->memnodes[g]));
	if (!pl->numa) {
		json_decref(mem);
		mem = json_null();
	}
	return json_pack("{s:o, s:o}", "vcpu_pins", pins, "memnodes", mem);
}
