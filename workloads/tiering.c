// SPDX-License-Identifier: GPL-2.0
/*
 * tiering - a hot set and a cold set on a guest with a slow memory tier
 * (docs/workloads.md).
 *
 * Setup (not measured): find the fast tier (the nodes of the lowest
 * memory_tier, else the nodes with CPUs) and the slow one (the rest), set
 * the NUMA balancing knobs asked for, map the hot set and the cold set as
 * two mappings (a PROT_NONE page between them keeps them apart in
 * numa_maps), and fault the hot set in where --start says (mbind, then
 * the default policy again).
 *
 * Measured: fault the cold set in from the fast tier's CPUs (each 16M
 * chunk marked MADV_COLD once written, unless --age_cold=0): with the
 * working set larger than the fast tier, reclaim demotes; then read the
 * hot set again and again for --duration_s seconds, recording every
 * --interval_s seconds the hot set's read throughput and the share of its
 * pages on the fast tier. Pages are located with /proc/self/numa_maps,
 * which counts pages whose PTE NUMA balancing made PROT_NONE
 * (move_pages(2) reports those as -ENOENT on 6.1).
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mm.h"
#include "wl.h"

#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define PAGE 4096UL
#define MAX_NODES 64
#define MAX_INTERVALS 600
#define DBG "/sys/kernel/debug/sched/numa_balancing/"
#define COLD_CHUNK (16UL << 20)
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

static const char *const knobs[] = { "scan_delay_ms", "scan_period_min_ms", "scan_period_max_ms",
				     "scan_size_mb", "hot_threshold_ms" };
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))

struct tiers {
	unsigned long fast, slow; /* node masks */
};

/* a sysfs node list "0-2,5" into a mask */
static unsigned long parse_nodelist(const char *s)
{
	unsigned long m = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b && i >= 0 && i < MAX_NODES; i++)
			m |= 1UL << i;
		s = *end == ',' ? end + 1 : end;
	}
	return m;
}

static unsigned long read_nodelist(const char *path)
{
	char buf[512] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return parse_nodelist(buf);
}

/* the lowest memory tier is fast, the others slow; without tiers: CPUs */
static void find_tiers(struct tiers *t)
{
	DIR *d = opendir("/sys/devices/virtual/memory_tiering");
	struct dirent *e;
	long best = -1;
	char path[512];

	t->fast = t->slow = 0;
	while (d && (e = readdir(d))) {
		long id;

		if (strncmp(e->d_name, "memory_tier", 11) || !e->d_name[11])
			continue;
		id = strtol(e->d_name + 11, NULL, 10);
		snprintf(path, sizeof(path), "/sys/devices/virtual/memory_tiering/%s/nodelist",
			 e->d_name);
		if (best < 0 || id < best) {
			t->slow |= t->fast;
			t->fast = read_nodelist(path);
			best = id;
		} else {
			t->slow |= read_nodelist(path);
		}
	}
	if (d)
		closedir(d);
	if (!t->fast) {
		unsigned long mem = read_nodelist("/sys/devices/system/node/has_memory");

		t->fast = read_nodelist("/sys/devices/system/node/has_cpu") & mem;
		t->slow = mem & ~t->fast;
	}
}

/* set the NUMA balancing knobs given (non-zero); old values kept for restore */
static void set_knobs(char old[NKNOBS][32], int restore)
{
	char path[256], v[32];
	uint64_t x;

	for (size_t i = 0; i < NKNOBS; i++) {
		FILE *f;

		snprintf(path, sizeof(path), DBG "%s", knobs[i]);
		if (restore) {
			if (!old[i][0] || !(f = fopen(path, "w")))
				continue;
			fputs(old[i], f);
			fclose(f);
			continue;
		}
		old[i][0] = '\0';
		if (wl_param_u64(knobs[i], 0, &x) < 0 || !x)
			continue;
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "tiering: no %s (debugfs); %s left alone\n", path,
				knobs[i]);
			continue;
		}
		if (!fgets(old[i], sizeof(old[i]), f))
			old[i][0] = '\0';
		fclose(f);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)x);
		f = fopen(path, "w");
		if (!f || fputs(v, f) < 0)
			fprintf(stderr, "tiering: cannot write %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
	}
}

/* pages of the mapping at addr per node, from /proc/self/numa_maps */
static unsigned long node_pages(const void *addr, unsigned long per[MAX_NODES])
{
	FILE *f = fopen("/proc/self/numa_maps", "r");
	char line[4096], *tok, *save;
	unsigned long total = 0;

	memset(per, 0, MAX_NODES * sizeof(per[0]));
	while (f && fgets(line, sizeof(line), f)) {
		if (strtoul(line, NULL, 16) != (unsigned long)addr)
			continue;
		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			unsigned long n, pages;

			if (sscanf(tok, "N%lu=%lu", &n, &pages) == 2 && n < MAX_NODES) {
				per[n] = pages;
				total += pages;
			}
		}
		break;
	}
	if (f)
		fclose(f);
	return total;
}

static double fast_pct(const void *addr, unsigned long fast)
{
	unsigned long per[MAX_NODES], on = 0, total = node_pages(addr, per);

	for (int n = 0; n < MAX_NODES; n++)
		if (fast & (1UL << n))
			on += per[n];
	return total ? 100.0 * (double)on / (double)total : 0;
}

/* one pass over the hot set: read every word, write one per page */
static uint64_t pass(volatile uint64_t *p, size_t len)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < len / 8; i++)
		sum += p[i];
	for (size_t off = 0; off < len / 8; off += PAGE / 8)
		p[off] = sum;
	return sum;
}

struct sample {
	double mbs, fast_pct;
};

static int hot_loop(char *hot, size_t len, const struct tiers *t, double dur, double step,
		    struct sample *s, int *ns)
{
	double start = wl_now(), next = start + step, mark = start, bytes = 0, now;

	*ns = 0;
	do {
		pass((volatile uint64_t *)hot, len);
		bytes += (double)len;
		now = wl_now();
		if (now < next && now - start < dur)
			continue;
		if (*ns < MAX_INTERVALS) {
			s[*ns].mbs = bytes / (now - mark) / 1e6;
			s[*ns].fast_pct = fast_pct(hot, t->fast);
			(*ns)++;
		}
		bytes = 0;
		mark = now;
		next = now + step;
	} while (now - start < dur);
	return 0;
}

static int fault_in(char *p, size_t len, unsigned long mask)
{
	if (mask && wl_mbind(p, len, MPOL_BIND, &mask, MAX_NODES, 0)) {
		fprintf(stderr, "tiering: mbind to nodes 0x%lx: %s\n", mask, strerror(errno));
		return -1;
	}
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
	if (mask && wl_mbind(p, len, MPOL_DEFAULT, NULL, 0, 0)) {
		fprintf(stderr, "tiering: mbind default: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Fault the cold set in, each chunk marked MADV_COLD once written when
 * age: its pages go to the inactive list with their accessed bits clear,
 * as cold data ages in a long-running program. Without it kswapd, woken
 * while the fill writes, finds only young pages; in some runs under TCG
 * it then nearly stopped scanning the fast node (~100 pages/s against
 * ~2000) and promotion, which needs it to make room, stalled after 2-3
 * thousand pages (likely the node counted hopeless: kswapd_failures).
 */
static void fill_cold(char *p, size_t len, int age)
{
	for (size_t off = 0; off < len; off += COLD_CHUNK) {
		size_t n = len - off < COLD_CHUNK ? len - off : COLD_CHUNK;

		for (size_t o = 0; o < n; o += PAGE)
			p[off + o] = 1;
		if (age)
			madvise(p + off, n, MADV_COLD);
	}
}

static void report(const char *hot, const char *cold, const struct tiers *t, const struct sample *s,
		   int ns, double fill_s)
{
	unsigned long hp[MAX_NODES], cp[MAX_NODES], hf = 0, cf = 0;
	unsigned long htot = node_pages(hot, hp), ctot = node_pages(cold, cp);
	char name[64];
	double sum = 0;

	for (int i = 0; i < ns; i++) {
		snprintf(name, sizeof(name), "hot_mbs.i%d", i);
		wl_metric(name, s[i].mbs);
		snprintf(name, sizeof(name), "hot_fast_pct.i%d", i);
		wl_metric(name, s[i].fast_pct);
		sum += s[i].mbs;
	}
	for (int n = 0; n < MAX_NODES; n++) {
		if (t->fast & (1UL << n))
			hf += hp[n], cf += cp[n];
		if (!hp[n] && !cp[n])
			continue;
		snprintf(name, sizeof(name), "resident_mb.node%d", n);
		wl_metric(name, (double)(hp[n] + cp[n]) * PAGE / (1 << 20));
	}
	wl_metric("hot_mbs_first", ns ? s[0].mbs : 0);
	wl_metric("hot_mbs_last", ns ? s[ns - 1].mbs : 0);
	wl_metric("hot_mbs_mean", ns ? sum / ns : 0);
	wl_metric("hot_pages", (double)htot);
	wl_metric("hot_fast_pages", (double)hf);
	wl_metric("cold_pages", (double)ctot);
	wl_metric("cold_fast_pages", (double)cf);
	wl_metric("fill_s", fill_s);
}

int main(int argc, char **argv)
{
	static struct sample s[MAX_INTERVALS];
	uint64_t size, hot_len, dur, step, age;
	char old[NKNOBS][32], *map, *hot, *cold;
	const char *start;
	struct tiers t;
	size_t cold_len;
	double fill_s;
	int ns;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 256 << 20, &size) < 0 ||
	    wl_param_u64("hot", 32 << 20, &hot_len) < 0 ||
	    wl_param_u64("duration_s", 30, &dur) < 0 || wl_param_u64("interval_s", 2, &step) < 0 ||
	    wl_param_u64("age_cold", 1, &age) < 0)
		return 2;
	start = wl_param("start") ? wl_param("start") : "slow";
	hot_len = hot_len / PAGE * PAGE;
	if (hot_len < PAGE || hot_len >= size || !dur || !step) {
		fprintf(stderr, "tiering: need 0 < hot < size, duration_s and interval_s > 0\n");
		return 2;
	}
	cold_len = (size - hot_len) / PAGE * PAGE;
	find_tiers(&t);
	if (!strcmp(start, "slow") && !t.slow) {
		fprintf(stderr,
			"tiering: --start=slow but the guest has no slow tier (no CPU-less node in a lower memory tier)\n");
		return 2;
	}
	map = mmap(NULL, hot_len + PAGE + cold_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "tiering: mmap %zu bytes: %s\n", (size_t)size, strerror(errno));
		return 1;
	}
	hot = map, cold = map + hot_len + PAGE;
	madvise(map, hot_len + PAGE + cold_len, MADV_NOHUGEPAGE); /* base pages */
	mprotect(map + hot_len, PAGE, PROT_NONE); /* two VMAs in numa_maps */
	set_knobs(old, 0);
	if (fault_in(hot, hot_len,
		     !strcmp(start, "slow") ? t.slow :
		     !strcmp(start, "fast") ? t.fast :
					      0) < 0)
		return 1;
	if (wl_ready_and_wait() < 0)
		return 1;
	fill_s = wl_now();
	fill_cold(cold, cold_len, (int)age);
	fill_s = wl_now() - fill_s;
	hot_loop(hot, hot_len, &t, (double)dur, (double)step, s, &ns);
	if (wl_done_and_wait() < 0)
		return 1;
	set_knobs(old, 1);
	report(hot, cold, &t, s, ns, fill_s);
	return 0;
}
