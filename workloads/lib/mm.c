// SPDX-License-Identifier: GPL-2.0
/*
 * mm.c - shared helpers of the memory workloads (mm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mm.h"

int wl_parse_counts(const char *s, unsigned int *v, int max, unsigned int lim)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);

		if (end == s || x < 1 || x > lim || n == max || (*end && *end != ','))
			return -1;
		v[n++] = (unsigned int)x;
		s = *end ? end + 1 : end;
	}
	return n ? n : -1;
}

uint64_t wl_meminfo(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t fl = strlen(field);
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':') {
			sscanf(line + fl + 1, "%llu", &kb);
			break;
		}
	fclose(f);
	return (uint64_t)kb << 10;
}

long wl_mbind(void *addr, size_t len, int mode, const unsigned long *mask, unsigned long maxnode,
	      unsigned int flags)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

long wl_set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

long wl_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
		   int flags)
{
	return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
}

int wl_page_node(void *addr)
{
	int status = -1;

	if (wl_move_pages(0, 1, &addr, NULL, &status, 0) < 0)
		return -1;
	return status;
}

int wl_cpu_node(void)
{
	unsigned int cpu, node;

	if (syscall(SYS_getcpu, &cpu, &node, NULL) < 0)
		return -1;
	return (int)node;
}

int wl_page_present(int pagemap_fd, const void *addr)
{
	uint64_t e;
	off_t off = (off_t)((uintptr_t)addr / 4096 * sizeof(e));

	if (pread(pagemap_fd, &e, sizeof(e), off) != (ssize_t)sizeof(e))
		return -1;
	return (int)(e >> 63);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double wl_percentile(double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double wl_mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

int wl_bind_to_node(int node)
{
	char path[96], buf[256];
	cpu_set_t set;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	CPU_ZERO(&set);
	for (p = buf; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, &set);
		p = *end == ',' ? end + 1 : end;
	}
	if (!CPU_COUNT(&set))
		return -1; /* a memory-only node */
	return sched_setaffinity(0, sizeof(set), &set);
}

int wl_nodes(void)
{
	int n = 0;

	for (;;) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

char *wl_fragment(size_t size, const char *file, size_t *freed)
{
	char *m = mmap(NULL, size + WL_HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0),
	     *a;
	size_t fill, done = 0;
	char buf[1 << 16];
	int fd;

	if (m == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)m + WL_HPAGE - 1) & ~(WL_HPAGE - 1));
	madvise(a, size, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < size; off += 4096)
		a[off] = 1;
	*freed = 0;
	for (size_t off = 4096; off < size; off += 8192) {
		madvise(a + off, 4096, MADV_DONTNEED);
		*freed += 4096;
	}
	fill = *freed / 4;
	fd = open(file, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "create %s: %s\n", file, strerror(errno));
		return NULL;
	}
	memset(buf, 'f', sizeof(buf));
	while (done < fill) {
		ssize_t n = write(fd, buf, sizeof(buf));

		if (n <= 0) {
			fprintf(stderr, "write %s: %s\n", file, strerror(errno));
			close(fd);
			return NULL;
		}
		done += (size_t)n;
	}
	close(fd);
	return a;
}

double wl_unusable_index(int order, unsigned long long *blocks_at_order)
{
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[1024];
	double free_pages = 0, usable = 0;

	*blocks_at_order = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		int k = 0, off;
		unsigned long long c;

		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		p += strcspn(p, " "); /* the zone name */
		while (sscanf(p, "%llu%n", &c, &off) == 1) {
			double pages = (double)c * (double)(1ULL << k);

			free_pages += pages;
			if (k >= order) {
				usable += pages;
				*blocks_at_order += c << (k - order);
			}
			p += off;
			k++;
		}
	}
	fclose(f);
	return free_pages > 0 ? (free_pages - usable) / free_pages : 0;
}

int wl_thp_attempts(int n, int pagemap_fd)
{
	char *m = mmap(NULL, (size_t)(n + 1) * WL_HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
	     *a;
	int huge = 0;

	if (m == MAP_FAILED)
		return 0;
	a = (char *)(((uintptr_t)m + WL_HPAGE - 1) & ~(WL_HPAGE - 1));
	madvise(a, (size_t)n * WL_HPAGE, MADV_HUGEPAGE);
	for (int i = 0; i < n; i++) {
		char *p = a + (size_t)i * WL_HPAGE;

		*(volatile char *)p = 1;
		huge += wl_page_present(pagemap_fd, p + 4096) == 1;
	}
	munmap(m, (size_t)(n + 1) * WL_HPAGE);
	return huge;
}
