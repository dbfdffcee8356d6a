// SPDX-License-Identifier: GPL-2.0
/*
 * usemem - anonymous memory pressure. For each thread count T in
 * --threads (a comma-separated list), T threads each mmap size/T bytes of
 * anonymous memory, write every page --loops times and munmap it. The
 * whole list runs in the one measured phase; each count is timed on its
 * own and reported as elapsed_s.T<N>, user_s.T<N>, system_s.T<N> and
 * throughput_mbs.T<N> (10^6 bytes written per second of wall time).
 *
 * --file bytes (split the same way) are file-backed: each thread maps a
 * MAP_SHARED file on the guest's tmpfs (/tmp) and writes it like the
 * anonymous part. --step is the stride between writes (default a page).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

#define MAX_COUNTS 64
#define MAX_THREADS 1024

struct worker {
	pthread_t tid;
	unsigned int id;
	size_t bytes, file_bytes, step;
	uint64_t loops;
	int err;
};

struct count_result {
	unsigned int threads;
	double elapsed_s, user_s, system_s, bytes;
};

static void touch(volatile char *p, size_t bytes, size_t step, uint64_t loops)
{
	for (uint64_t l = 0; l < loops; l++)
		for (size_t off = 0; off < bytes; off += step)
			p[off] = (char)(l + 1);
}

static int file_part(struct worker *w)
{
	char path[64];
	volatile char *p;
	int fd;

	snprintf(path, sizeof(path), "/tmp/usemem.%u", w->id);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	unlink(path);
	if (ftruncate(fd, (off_t)w->file_bytes)) {
		close(fd);
		return errno;
	}
	p = mmap(NULL, w->file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return errno;
	touch(p, w->file_bytes, w->step, w->loops);
	munmap((void *)p, w->file_bytes);
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	volatile char *p = NULL;

	if (w->bytes) {
		p = mmap(NULL, w->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (p == MAP_FAILED) {
			w->err = errno;
			return NULL;
		}
		touch(p, w->bytes, w->step, w->loops);
	}
	if (w->file_bytes)
		w->err = file_part(w);
	if (p)
		munmap((void *)p, w->bytes);
	return NULL;
}

static int parse_threads(const char *s, unsigned int *v, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);

		if (end == s || x < 1 || x > MAX_THREADS || n == max || (*end && *end != ','))
			return -1;
		v[n++] = (unsigned int)x;
		s = *end ? end + 1 : end;
	}
	return n;
}

static int run_count(unsigned int nthreads, uint64_t size, uint64_t file, uint64_t step,
		     uint64_t loops, struct count_result *r)
{
	static struct worker w[MAX_THREADS];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t per = (size_t)(size / nthreads / page * page);
	size_t fper = (size_t)(file / nthreads / page * page);
	double t0, u0, s0, u1, s1;
	int ret = 0;

	if (per < page && size)
		per = page;
	if (fper < page && file)
		fper = page;
	wl_cpu_times(&u0, &s0);
	t0 = wl_now();
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .id = i,
					.bytes = per,
					.file_bytes = fper,
					.step = (size_t)step,
					.loops = loops };
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "usemem: cannot start thread %u\n", i);
			nthreads = i;
			ret = -1;
			break;
		}
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].err) {
			fprintf(stderr, "usemem: thread %u, %zu anonymous + %zu file bytes: %s\n",
				i, per, fper, strerror(w[i].err));
			ret = -1;
		}
	}
	r->elapsed_s = wl_now() - t0;
	wl_cpu_times(&u1, &s1);
	r->user_s = u1 - u0;
	r->system_s = s1 - s0;
	r->bytes = ((double)per + (double)fper) * nthreads * (double)loops;
	return ret;
}

static void report(const struct count_result *r)
{
	char name[64];

	snprintf(name, sizeof(name), "elapsed_s.T%u", r->threads);
	wl_metric(name, r->elapsed_s);
	snprintf(name, sizeof(name), "system_s.T%u", r->threads);
	wl_metric(name, r->system_s);
	snprintf(name, sizeof(name), "user_s.T%u", r->threads);
	wl_metric(name, r->user_s);
	snprintf(name, sizeof(name), "throughput_mbs.T%u", r->threads);
	wl_metric(name, r->elapsed_s > 0 ? r->bytes / 1e6 / r->elapsed_s : 0);
}

int main(int argc, char **argv)
{
	static struct count_result res[MAX_COUNTS];
	unsigned int counts[MAX_COUNTS];
	const char *threads;
	uint64_t size, loops, file, step;
	int n, failed = 0;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 64 << 20, &size) < 0 ||
	    wl_param_u64("loops", 1, &loops) < 0 || wl_param_u64("file", 0, &file) < 0 ||
	    wl_param_u64("step", 4096, &step) < 0)
		return 2;
	threads = wl_param("threads");
	n = parse_threads(threads ? threads : "1", counts, MAX_COUNTS);
	if (n <= 0 || (size == 0 && file == 0) || loops == 0 || step == 0) {
		fprintf(stderr, "usemem: bad parameters: threads=%s size=%llu loops=%llu\n",
			threads ? threads : "1", (unsigned long long)size,
			(unsigned long long)loops);
		return 2;
	}
	if (wl_ready_and_wait() < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		res[i].threads = counts[i];
		failed |= run_count(counts[i], size, file, step, loops, &res[i]) < 0;
	}
	if (wl_done_and_wait() < 0)
		return 1;
	for (int i = 0; i < n; i++)
		report(&res[i]);
	return failed;
}
