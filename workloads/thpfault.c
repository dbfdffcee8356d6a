// SPDX-License-Identifier: GPL-2.0
/*
 * thpfault - THP allocation latency under fragmentation (after mmtests'
 * thpscale).
 *
 * Setup (not measured): fill --size bytes of anonymous memory with base
 * pages (capped at 90% of MemAvailable), free every other 4 KiB page of
 * each aligned 2 MB region (alternating halves: no 2 MB block stays whole),
 * then fill part of the holes with page cache: a tmpfs file of a quarter
 * of the freed memory.
 *
 * Measured: for each thread count T of --threads, T threads each fault
 * their share of a MADV_HUGEPAGE region (size/4, at most 3/4 of MemFree)
 * one 2 MB page at a time. Around each fault, and only the fault, the time
 * on CLOCK_MONOTONIC; after it, whether the fault got a huge page (the
 * second 4 KiB page of the 2 MB range is present in pagemap) and whether
 * it landed on the faulting CPU's node. The region is unmapped between
 * thread counts, so later counts start from what the earlier left.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mm.h"
#include "wl.h"

#define MAX_THREADS 256
#define FILL_FILE "/tmp/thpfault.fill"

struct worker {
	pthread_t tid;
	char *base;
	size_t len;
	int madv, pagemap;
	double *huge_us, *base_us;
	size_t nhuge, nbase, local, faults;
	int err;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t n = w->len / WL_HPAGE;

	w->huge_us = calloc(n ? n : 1, sizeof(double));
	w->base_us = calloc(n ? n : 1, sizeof(double));
	if (!w->huge_us || !w->base_us) {
		w->err = ENOMEM;
		return NULL;
	}
	if (w->madv && madvise(w->base, w->len, MADV_HUGEPAGE)) {
		w->err = errno;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		volatile char *p = w->base + i * WL_HPAGE;
		double t0 = now_us(), dt;
		int huge, cpu_node, page_node;

		*p = 1; /* the fault, and nothing else, is timed */
		dt = now_us() - t0;
		huge = wl_page_present(w->pagemap, (const char *)p + 4096) == 1;
		cpu_node = wl_cpu_node();
		page_node = wl_page_node((void *)p);
		if (huge)
			w->huge_us[w->nhuge++] = dt;
		else
			w->base_us[w->nbase++] = dt;
		w->local += cpu_node >= 0 && cpu_node == page_node;
		w->faults++;
	}
	return NULL;
}

struct count_res {
	unsigned int threads;
	double *huge, *base;
	size_t nhuge, nbase, local, faults;
};

static int run_count(unsigned int t, size_t region, int madv, int pagemap, struct count_res *r)
{
	static struct worker w[MAX_THREADS];
	size_t per = region / t / WL_HPAGE * WL_HPAGE;
	char *m, *a;
	int ret = 0;

	if (per < WL_HPAGE)
		per = WL_HPAGE;
	m = mmap(NULL, per * t + WL_HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	a = (char *)(((uintptr_t)m + WL_HPAGE - 1) & ~(WL_HPAGE - 1));
	for (unsigned int i = 0; i < t; i++) {
		w[i] = (struct worker){
			.base = a + i * per, .len = per, .madv = madv, .pagemap = pagemap
		};
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			t = i;
			ret = -1;
			break;
		}
	}
	r->huge = calloc(region / WL_HPAGE + t + 1, sizeof(double));
	r->base = calloc(region / WL_HPAGE + t + 1, sizeof(double));
	for (unsigned int i = 0; i < t; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].err) {
			fprintf(stderr, "thpfault: thread %u: %s\n", i, strerror(w[i].err));
			ret = -1;
		}
		if (r->huge && r->base) {
			memcpy(r->huge + r->nhuge, w[i].huge_us, w[i].nhuge * sizeof(double));
			memcpy(r->base + r->nbase, w[i].base_us, w[i].nbase * sizeof(double));
			r->nhuge += w[i].nhuge;
			r->nbase += w[i].nbase;
		}
		r->local += w[i].local;
		r->faults += w[i].faults;
		free(w[i].huge_us);
		free(w[i].base_us);
	}
	munmap(m, per * t + WL_HPAGE);
	return r->huge && r->base ? ret : -1;
}

static void report_lat(const char *what, unsigned int t, double *v, size_t n)
{
	static const int pct[] = { 50, 90, 99 };
	char name[64];

	if (!n)
		return; /* no fault of this kind: no latency to report */
	snprintf(name, sizeof(name), "fault_%s_us.T%u", what, t);
	wl_metric(name, wl_mean(v, n));
	for (size_t i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "fault_%s_us_p%d.T%u", what, pct[i], t);
		wl_metric(name, wl_percentile(v, n, pct[i]));
	}
}

int main(int argc, char **argv)
{
	static struct count_res res[WL_MAX_COUNTS];
	unsigned int counts[WL_MAX_COUNTS];
	const char *threads;
	uint64_t size, madv, avail;
	size_t freed = 0, region;
	int n, failed = 0, pagemap;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 64 << 20, &size) < 0 ||
	    wl_param_u64("madvise", 1, &madv) < 0)
		return 2;
	threads = wl_param("threads");
	n = wl_parse_counts(threads ? threads : "1", counts, WL_MAX_COUNTS, MAX_THREADS);
	if (n < 0 || size < 4 * WL_HPAGE) {
		fprintf(stderr, "thpfault: bad parameters: threads=%s size=%llu (at least 8M)\n",
			threads ? threads : "1", (unsigned long long)size);
		return 2;
	}
	avail = wl_meminfo("MemAvailable");
	if (avail && size > avail / 10 * 9) {
		fprintf(stderr, "thpfault: size %llu capped at 90%% of MemAvailable: %llu\n",
			(unsigned long long)size, (unsigned long long)(avail / 10 * 9));
		size = avail / 10 * 9;
	}
	size &= ~(WL_HPAGE - 1);
	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pagemap < 0) {
		fprintf(stderr, "thpfault: /proc/self/pagemap: %s\n", strerror(errno));
		return 1;
	}
	if (!wl_fragment(size, FILL_FILE, &freed))
		return 1;
	region = size / 4;
	if (region > wl_meminfo("MemFree") / 4 * 3)
		region = wl_meminfo("MemFree") / 4 * 3;
	region &= ~(WL_HPAGE - 1);
	if (wl_ready_and_wait() < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		res[i].threads = counts[i];
		failed |= run_count(counts[i], region, (int)madv, pagemap, &res[i]) < 0;
	}
	if (wl_done_and_wait() < 0)
		return 1;
	unlink(FILL_FILE);
	for (int i = 0; i < n; i++) {
		struct count_res *r = &res[i];
		char name[64];

		report_lat("huge", r->threads, r->huge, r->nhuge);
		report_lat("base", r->threads, r->base, r->nbase);
		snprintf(name, sizeof(name), "huge_pct.T%u", r->threads);
		wl_metric(name, r->faults ? 100.0 * (double)r->nhuge / (double)r->faults : 0);
		snprintf(name, sizeof(name), "local_pct.T%u", r->threads);
		wl_metric(name, r->faults ? 100.0 * (double)r->local / (double)r->faults : 0);
		snprintf(name, sizeof(name), "faults.T%u", r->threads);
		wl_metric(name, (double)r->faults);
		free(r->huge);
		free(r->base);
	}
	wl_metric("region_mb", (double)region / 1048576.0);
	return failed;
}
