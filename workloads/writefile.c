// SPDX-License-Identifier: GPL-2.0
/*
 * writefile - write a file through the page cache to the root filesystem
 * and fsync it, in the measured phase. On the debootstrap disk image the
 * file is /var/log/mmlab/writefile.out, which "collect_files" can bring
 * back; on the initramfs it lands in tmpfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wl.h"

#define OUT_DIR "/var/log/mmlab"
#define OUT_FILE OUT_DIR "/writefile.out"

static int write_out(int fd, uint64_t size)
{
	char buf[65536];
	uint64_t done = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	while (done < size) {
		size_t n = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (uint64_t)w;
	}
	return fsync(fd);
}

int main(int argc, char **argv)
{
	uint64_t size;
	double t0;
	int fd;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 1 << 20, &size) < 0)
		return 2;
	mkdir("/var", 0755);
	mkdir("/var/log", 0755);
	mkdir(OUT_DIR, 0755);
	fd = open(OUT_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "writefile: %s: %s\n", OUT_FILE, strerror(errno));
		return 1;
	}
	if (wl_ready_and_wait() < 0)
		return 1;
	t0 = wl_now();
	if (write_out(fd, size) < 0) {
		fprintf(stderr, "writefile: writing %s: %s\n", OUT_FILE, strerror(errno));
		return 1;
	}
	t0 = wl_now() - t0;
	if (wl_done_and_wait() < 0)
		return 1;
	close(fd);
	wl_metric("elapsed_s", t0);
	return 0;
}
