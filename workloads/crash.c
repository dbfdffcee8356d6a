// SPDX-License-Identifier: GPL-2.0
/*
 * crash - panics the guest through sysrq after --delay_ms in the measured
 * phase (tests the host's crash handling). Exits 1 if it is still alive.
 *
 * --probability=P (percent, default 100) crashes in P % of the iterations
 * only, a stand-in for a bug that does not always trigger. With --seed=0
 * (default) the draw is random; with --seed=S it is a fixed function of S
 * and the iteration index (MMLAB_ITERATION, set by the agent), so the same
 * job crashes in the same iterations every time. An iteration that does
 * not crash finishes normally.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "crash: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = write(fd, s, strlen(s));
	if (n < 0)
		fprintf(stderr, "crash: write %s: %s\n", path, strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* splitmix64: a well-mixed 64-bit function of its input */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* the draw in 0..99 for this iteration */
static unsigned int draw(uint64_t seed)
{
	const char *it = getenv("MMLAB_ITERATION");
	uint64_t r = 0;

	if (seed)
		return (unsigned int)(mix(seed ^ mix(it ? strtoull(it, NULL, 10) : 0)) % 100);
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	return (unsigned int)(r % 100);
}

int main(int argc, char **argv)
{
	uint64_t delay_ms, prob, seed;
	struct timespec ts;
	unsigned int d;

	if (wl_init(argc, argv) < 0 || wl_param_u64("delay_ms", 0, &delay_ms) < 0 ||
	    wl_param_u64("probability", 100, &prob) < 0 || wl_param_u64("seed", 0, &seed) < 0)
		return 2;
	d = draw(seed);
	if (wl_ready_and_wait() < 0)
		return 1;
	ts.tv_sec = (time_t)(delay_ms / 1000);
	ts.tv_nsec = (long)(delay_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (d >= prob) {
		fprintf(stderr, "crash: draw %u >= probability %llu: no crash this time\n", d,
			(unsigned long long)prob);
		if (wl_done_and_wait() < 0)
			return 1;
		wl_metric("crashed", 0);
		return 0;
	}
	write_str("/proc/sys/kernel/sysrq", "1");
	sync();
	write_str("/proc/sysrq-trigger", "c");
	fprintf(stderr, "crash: still alive after the sysrq crash trigger\n");
	return 1;
}
