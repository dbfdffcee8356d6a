// SPDX-License-Identifier: GPL-2.0
/*
 * thp-compact-repro.c - a bug report's reproducer, as reporters write
 * them: "after memory gets fragmented, MADV_HUGEPAGE regions get almost no
 * huge pages and faults get slow". Used by jobs/own-reproducer.yaml and
 * the recipe jobs/repro/thp-madvise-fragmented.yaml (docs/workloads.md,
 * "Bring your own workload").
 *
 * 1. Fragment: map base pages (MADV_NOHUGEPAGE) 8 MB at a time, touching
 *    every page, until no free 2 MB block is left (/proc/buddyinfo),
 *    --size-pct percent of MemAvailable is mapped, or MemFree would fall
 *    below 1/16 of MemTotal (no OOM kill: that floor leaves some free
 *    2 MB blocks); then free every other 4 KiB page, so that the freed
 *    memory is all holes; then take the free 2 MB blocks still left with
 *    huge pages (a MADV_HUGEPAGE region faulted while buddyinfo shows a
 *    free block: no compaction is needed for those), so that none serves
 *    the faults below; and fill a quarter of the holes with page cache (a
 *    file in the working directory).
 * 2. Fault: map a MADV_HUGEPAGE region of --fault-pct percent of MemFree
 *    and fault it 2 MB at a time, timing each fault. A 2 MB range got a
 *    huge page when its second 4 KiB page is present after touching the
 *    first (/proc/self/pagemap).
 *
 * Whether those faults get huge pages depends on direct compaction: the
 * kernel compacts (migrates the scattered pages away) when THP defrag
 * allows it for MADV_HUGEPAGE regions (madvise, defer+madvise, always)
 * and falls back to base pages when it does not (never, defer).
 *
 * Prints:
 *	fragmented: 832 MB, freed 416 MB, pinned 96 MB, page cache 104 MB, free 2 MB blocks left 1
 *	faults: 40 ranges of 2 MB, huge: 31 (77.5 %)
 *	avg fault latency: 812.3 us
 *	max fault latency: 5012.0 us
 *
 * Build: gcc -O2 -static thp-compact-repro.c -o thp-compact-repro
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HPAGE (2UL << 20)
#define PAGE 4096UL
#define FILL_FILE "thp-compact-repro.fill"

static long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			kb = strtol(line + strlen(key) + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static char *aligned_map(size_t len)
{
	char *m =
		mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return (char *)(((uintptr_t)m + HPAGE - 1) & ~(HPAGE - 1));
}

/*
 * free blocks of 2 MB or more, in 2 MB units, over the zones a huge page
 * of a process can come from (/proc/buddyinfo; not DMA), on one node or
 * (node < 0) on all
 */
static long free_hpages(int node)
{
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[512];
	long n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		long c;
		int k = 0, used, nn;

		if (!p || (node >= 0 && (sscanf(line, "Node %d", &nn) != 1 || nn != node)))
			continue;
		p += 4 + strspn(p + 4, " ");
		if (!strncmp(p, "DMA ", 4))
			continue;
		p += strcspn(p, " "); /* the zone's name */
		while (sscanf(p, "%ld%n", &c, &used) == 1) {
			if (k >= 9)
				n += c << (k - 9);
			k++;
			p += used;
		}
	}
	if (f)
		fclose(f);
	return n;
}

static int present(int pagemap, const void *p)
{
	uint64_t e;

	if (pread(pagemap, &e, sizeof(e), (off_t)((uintptr_t)p / PAGE * sizeof(e))) != sizeof(e))
		return -1;
	return (int)(e >> 63);
}

/*
 * The free 2 MB blocks left taken with huge pages, on each CPU's node in
 * turn (a huge page fault takes a block of its own node only, unless it
 * may reclaim), one fault at a time while buddyinfo shows one there,
 * stopping at the first fault that got a base page; at most max bytes in
 * all. Returns the bytes taken.
 */
static size_t pin_free_blocks(size_t max)
{
	char *a = aligned_map(max);
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	cpu_set_t all, one;
	unsigned int cpu, node;
	size_t n = 0;

	if (pagemap < 0 || madvise(a, max, MADV_HUGEPAGE) ||
	    sched_getaffinity(0, sizeof(all), &all)) {
		perror("pin: pagemap, madvise(MADV_HUGEPAGE) or sched_getaffinity");
		exit(1);
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) || getcpu(&cpu, &node))
			continue;
		while (n + HPAGE <= max && free_hpages((int)node) > 0) {
			a[n] = 1;
			n += HPAGE;
			if (present(pagemap, a + n - HPAGE + PAGE) != 1)
				break;
		}
	}
	sched_setaffinity(0, sizeof(all), &all);
	close(pagemap);
	return n;
}

/*
 * Base pages until no free 2 MB block is left (or max bytes), then every
 * other one freed, the free 2 MB blocks left pinned with huge pages, and
 * a quarter of the holes filled with page cache.
 */
static void fragment(size_t max)
{
	size_t size = 0, freed = 0, pinned, fill, done = 0, chunk = 8UL << 20;
	char *a = aligned_map(max), buf[65536];
	int fd;

	madvise(a, max, MADV_NOHUGEPAGE);
	/* stop short of the OOM killer: MemFree stays above 1/16 of MemTotal */
	while (size + chunk <= max && free_hpages(-1) * HPAGE > max / 100 &&
	       meminfo_kb("MemFree") > meminfo_kb("MemTotal") / 16 + (long)(chunk >> 10)) {
		for (size_t off = size; off < size + chunk; off += PAGE)
			a[off] = 1;
		size += chunk;
	}
	for (size_t off = PAGE; off < size; off += 2 * PAGE) {
		madvise(a + off, PAGE, MADV_DONTNEED);
		freed += PAGE;
	}
	pinned = pin_free_blocks(max / 4 / HPAGE * HPAGE);
	fill = freed / 4;
	fd = open(FILL_FILE, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0) {
		fprintf(stderr, "create %s: %s\n", FILL_FILE, strerror(errno));
		exit(1);
	}
	memset(buf, 'f', sizeof(buf));
	while (done < fill) {
		ssize_t n = write(fd, buf, sizeof(buf));

		if (n <= 0) {
			fprintf(stderr, "write %s: %s\n", FILL_FILE, strerror(errno));
			exit(1);
		}
		done += (size_t)n;
	}
	close(fd);
	printf("fragmented: %zu MB, freed %zu MB, pinned %zu MB, page cache %zu MB, free 2 MB blocks left %ld\n",
	       size >> 20, freed >> 20, pinned >> 20, fill >> 20, free_hpages(-1));
}

static int fault(size_t len)
{
	size_t n = len / HPAGE, huge = 0;
	char *a = aligned_map(len);
	double sum = 0, max = 0;
	int pagemap = open("/proc/self/pagemap", O_RDONLY);

	if (pagemap < 0) {
		perror("/proc/self/pagemap");
		return 1;
	}
	if (madvise(a, len, MADV_HUGEPAGE)) {
		perror("madvise(MADV_HUGEPAGE)");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		volatile char *p = a + i * HPAGE;
		double t0 = now_us(), dt;

		*p = 1;
		dt = now_us() - t0;
		sum += dt;
		max = dt > max ? dt : max;
		huge += present(pagemap, (const char *)p + PAGE) == 1;
	}
	printf("faults: %zu ranges of 2 MB, huge: %zu (%.1f %%)\n", n, huge,
	       n ? 100.0 * (double)huge / (double)n : 0.0);
	printf("avg fault latency: %.1f us\n", n ? sum / (double)n : 0.0);
	printf("max fault latency: %.1f us\n", max);
	close(pagemap);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: thp-compact-repro [--size-pct 1..95] [--fault-pct 1..90]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long size_pct = 95, fault_pct = 50, avail, memfree;
	int rc;

	for (int i = 1; i < argc; i++) {
		long *v = !strcmp(argv[i], "--size-pct")  ? &size_pct :
			  !strcmp(argv[i], "--fault-pct") ? &fault_pct :
							    NULL;

		if (!v || i + 1 == argc)
			usage();
		*v = strtol(argv[++i], NULL, 10);
		if (*v < 1 || *v > (v == &size_pct ? 95 : 90))
			usage();
	}
	avail = meminfo_kb("MemAvailable");
	if (avail <= 0) {
		fprintf(stderr, "no MemAvailable in /proc/meminfo\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fragment((size_t)avail * 1024 / 100 * (size_t)size_pct / HPAGE * HPAGE);
	memfree = meminfo_kb("MemFree");
	rc = fault((size_t)(memfree > 0 ? memfree : 0) * 1024 / 100 * (size_t)fault_pct / HPAGE *
		   HPAGE);
	unlink(FILL_FILE);
	return rc;
}
