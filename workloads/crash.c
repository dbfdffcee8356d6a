// SPDX-License-Identifier: GPL-2.0
/*
 * crash - panics the guest through sysrq after --delay_ms in the measured
 * phase (tests the host's crash handling). Exits 1 if it is still alive.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	uint64_t delay_ms;
	struct timespec ts;

	if (wl_init(argc, argv) < 0 || wl_param_u64("delay_ms", 0, &delay_ms) < 0)
		return 2;
	if (wl_ready_and_wait() < 0)
		return 1;
	ts.tv_sec = (time_t)(delay_ms / 1000);
	ts.tv_nsec = (long)(delay_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	write_str("/proc/sys/kernel/sysrq", "1");
	sync();
	write_str("/proc/sysrq-trigger", "c");
	fprintf(stderr, "crash: still alive after the sysrq crash trigger\n");
	return 1;
}
