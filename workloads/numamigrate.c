// SPDX-License-Identifier: GPL-2.0
/*
 * numamigrate - NUMA placement and migration on a guest with 2+ nodes.
 *
 * Setup (not measured): switch AutoNUMA off (kernel.numa_balancing=0, unless
 * --autonuma=0 leaves it alone), bind this process to the CPUs of node
 * --cpu_node, place two ranges of --size bytes on node --mem_node with
 * mbind(MPOL_BIND), touch them, then reset their policy to MPOL_DEFAULT
 * without moving anything.
 *
 * Measured, part 1 (explicit migration): the second range is moved to the
 * CPU node with one move_pages(2) call, timed. Part 2 (AutoNUMA
 * convergence): kernel.numa_balancing=1, then touch the first range again
 * and again from the CPU node; every 250 ms ask move_pages(2) where each
 * page is. Stop when --converge_pct of the pages are local or after
 * --wait_s. (move_pages comes first: once the NUMA scanner has made a
 * range's PTEs PROT_NONE, 6.1 kernels report its pages as -ENOENT.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm.h"
#include "wl.h"

#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

static unsigned long long vmstat(const char *field)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[128];
	unsigned long long v, r = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%127s %llu", name, &v) == 2)
		if (!strcmp(name, field)) {
			r = v;
			break;
		}
	fclose(f);
	return r;
}

/* map len bytes on node and touch them; policy reset to default after */
static char *place(size_t len, int node)
{
	unsigned long mask = 1UL << node;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE); /* count base pages */
	if (wl_mbind(p, len, MPOL_BIND, &mask, sizeof(mask) * 8, 0)) {
		fprintf(stderr, "numamigrate: mbind to node %d: %s\n", node, strerror(errno));
		return NULL;
	}
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	if (wl_mbind(p, len, MPOL_DEFAULT, NULL, 0, 0)) {
		fprintf(stderr, "numamigrate: mbind default: %s\n", strerror(errno));
		return NULL;
	}
	return p;
}

/* share of pages on node, in percent */
static double local_pct(char *p, size_t len, int node, void **pages, int *status)
{
	size_t n = len / 4096, local = 0;

	for (size_t i = 0; i < n; i++)
		pages[i] = p + i * 4096;
	if (wl_move_pages(0, n, pages, NULL, status, 0) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		local += status[i] == node;
	return 100.0 * (double)local / (double)n;
}

/* after a move_pages(2) that left pages behind: say why, once per distinct status */
static void report_unmoved(const int *status, size_t n, int cpu_node)
{
	int shown[8], nshown = 0;

	for (size_t i = 0; i < n && nshown < 8; i++) {
		int seen = 0;

		for (int k = 0; k < nshown; k++)
			seen |= shown[k] == status[i];
		if (seen || status[i] == cpu_node)
			continue;
		shown[nshown++] = status[i];
		fprintf(stderr, "numamigrate: move_pages: page %zu has status %d (%s)\n", i,
			status[i], status[i] < 0 ? strerror(-status[i]) : "another node");
	}
}

/*
 * part 1: the n pages at p moved to cpu_node with one timed move_pages(2)
 * call; *mv_s its time, *moved the pages now there; returns its result
 */
static long move_range(char *p, size_t n, int cpu_node, void **pages, int *nodes, int *status,
		       double *mv_s, size_t *moved)
{
	double t0;
	long r;

	for (size_t i = 0; i < n; i++) {
		pages[i] = p + i * 4096;
		nodes[i] = cpu_node;
		status[i] = -1;
	}
	t0 = wl_now();
	r = wl_move_pages(0, n, pages, nodes, status, MPOL_MF_MOVE);
	*mv_s = wl_now() - t0;
	if (r < 0)
		fprintf(stderr, "numamigrate: move_pages: %s\n", strerror(errno));
	*moved = 0;
	for (size_t i = 0; i < n; i++)
		*moved += status[i] == cpu_node;
	if (*moved != n)
		report_unmoved(status, n, cpu_node);
	return r;
}

/*
 * part 2: touch the len bytes at p from cpu_node, asking every 250 ms where
 * the pages are, until conv percent are local or wait_s passed; *pct the
 * last share seen; returns the seconds it took, or -1 if it did not converge
 */
static double converge(char *p, size_t len, int cpu_node, double wait_s, double conv, void **pages,
		       int *status, double *pct)
{
	double t0 = wl_now();

	while (wl_now() - t0 < wait_s) {
		double t1 = wl_now();

		while (wl_now() - t1 < 0.25)
			for (size_t off = 0; off < len; off += 4096)
				p[off]++;
		*pct = local_pct(p, len, cpu_node, pages, status);
		if (*pct >= conv)
			return wl_now() - t0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t size, cpu_node, mem_node, wait_s, conv, autonuma;
	double pct = 0, converge_s, mv_s;
	unsigned long long hint0, mig0;
	size_t n, moved = 0;
	char *a, *b;
	void **pages;
	int *status, *nodes;
	long r;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 32 << 20, &size) < 0 ||
	    wl_param_u64("cpu_node", 0, &cpu_node) < 0 ||
	    wl_param_u64("mem_node", 1, &mem_node) < 0 || wl_param_u64("wait_s", 30, &wait_s) < 0 ||
	    wl_param_u64("converge_pct", 90, &conv) < 0 ||
	    wl_param_u64("autonuma", 1, &autonuma) < 0)
		return 2;
	size &= ~4095ULL;
	if ((int)cpu_node >= wl_nodes() || (int)mem_node >= wl_nodes() || cpu_node == mem_node ||
	    mem_node >= 64 || !size) {
		fprintf(stderr,
			"numamigrate: needs two different nodes of the %d this guest has (cpu_node=%llu mem_node=%llu) and size > 0\n",
			wl_nodes(), (unsigned long long)cpu_node, (unsigned long long)mem_node);
		return 2;
	}
	/*
	 * AutoNUMA off during the setup and the move_pages part: its scanner
	 * makes PTEs PROT_NONE, and move_pages(2) then reports such pages as
	 * -ENOENT on 6.1 kernels
	 */
	if (autonuma && write_str("/proc/sys/kernel/numa_balancing", "0"))
		fprintf(stderr, "numamigrate: cannot write kernel.numa_balancing: %s\n",
			strerror(errno));
	if (wl_bind_to_node((int)cpu_node)) {
		fprintf(stderr, "numamigrate: cannot bind to the CPUs of node %llu\n",
			(unsigned long long)cpu_node);
		return 1;
	}
	n = size / 4096;
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	nodes = calloc(n, sizeof(*nodes));
	a = place(size, (int)mem_node);
	b = place(size, (int)mem_node);
	if (!pages || !status || !nodes || !a || !b)
		return 1;
	if (wl_ready_and_wait() < 0)
		return 1;

	/* part 1: move_pages, before any NUMA hinting fault marks the range */
	r = move_range(b, n, (int)cpu_node, pages, nodes, status, &mv_s, &moved);

	/* part 2: AutoNUMA, switched on only now */
	if (autonuma && write_str("/proc/sys/kernel/numa_balancing", "1"))
		fprintf(stderr, "numamigrate: cannot enable kernel.numa_balancing: %s\n",
			strerror(errno));
	hint0 = vmstat("numa_hint_faults");
	mig0 = vmstat("numa_pages_migrated");
	converge_s =
		converge(a, size, (int)cpu_node, (double)wait_s, (double)conv, pages, status, &pct);
	hint0 = vmstat("numa_hint_faults") - hint0;
	mig0 = vmstat("numa_pages_migrated") - mig0;

	if (wl_done_and_wait() < 0)
		return 1;
	wl_metric("converged", converge_s >= 0);
	wl_metric("converge_s", converge_s >= 0 ? converge_s : (double)wait_s);
	wl_metric("local_pct_end", pct);
	wl_metric("autonuma_hint_faults", (double)hint0);
	wl_metric("autonuma_pages_migrated", (double)mig0);
	wl_metric("move_pages_requested", (double)n);
	wl_metric("move_pages_moved", (double)moved);
	wl_metric("move_pages_per_s", mv_s > 0 ? (double)moved / mv_s : 0);
	return r < 0;
}
