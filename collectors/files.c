// SPDX-License-Identifier: GPL-2.0
/*
 * files.c - send the plan's collect.file.<i> back as FILE records
 * (files.h): pieces of MMFILE_CHUNK bytes in order from offset 0, each
 * with the file's size; an error record when there is nothing to send.
 * A /proc or /sys file (or any whose size is 0) is read whole first: its
 * size is what it held then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "files.h"
#include "proto.h"

static void send_error(const char *enc, const char *path, const char *code, int e)
{
	char hdr[MMPATH_ENC_MAX + 64];

	snprintf(hdr, sizeof(hdr), "path=%s error=%s", enc, code);
	chan_send(MMREC_FILE, hdr, NULL, 0);
	console_log("collect_files: %s: %s%s%s", path, code, e ? ": " : "", e ? strerror(e) : "");
}

/* up to n bytes at the file's current offset: fewer only at its end */
static size_t read_full(int fd, char *buf, size_t n, int *err)
{
	size_t got = 0;

	*err = 0;
	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			*err = errno;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The pieces of an open regular file of size bytes. mem: its contents
 * read already (a /proc or /sys file, whose size says nothing), else
 * read from fd as they go.
 */
static void send_pieces(int fd, const char *mem, const char *enc, const char *path,
			unsigned long long size)
{
	unsigned long long want = size < MMFILE_MAX ? size : MMFILE_MAX, off = 0;
	char hdr[MMPATH_ENC_MAX + 96], *buf = mem ? NULL : malloc(MMFILE_CHUNK);
	double t0 = mono();
	int e = 0;

	if (!mem && !buf) {
		send_error(enc, path, "unreadable", ENOMEM);
		return;
	}
	do {
		size_t k = want - off < MMFILE_CHUNK ? (size_t)(want - off) : MMFILE_CHUNK;
		size_t n = mem ? k : read_full(fd, buf, k, &e);

		if (n < k) {
			send_error(enc, path, e ? "unreadable" : "changed", e);
			break;
		}
		snprintf(hdr, sizeof(hdr), "path=%s size=%llu offset=%llu", enc, size, off);
		chan_send(MMREC_FILE, hdr, mem ? mem + off : buf, n);
		off += n;
	} while (off < want);
	free(buf);
	if (off == want)
		console_log("collect_files: %s: sent %llu of its %llu bytes in %.2f s", path, off,
			    size, mono() - t0);
}

/* a file whose size is not what it holds: read it (at most MMFILE_MAX bytes) */
static int pseudo_file(int fd, const struct stat *st)
{
	struct statfs fs;

	return st->st_size == 0 ||
	       (!fstatfs(fd, &fs) && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC));
}

static void send_pseudo(int fd, const char *enc, const char *path)
{
	char *mem = malloc(MMFILE_MAX);
	size_t n;
	int e;

	if (!mem) {
		send_error(enc, path, "unreadable", ENOMEM);
		return;
	}
	n = read_full(fd, mem, MMFILE_MAX, &e);
	if (e)
		send_error(enc, path, "unreadable", e);
	else
		send_pieces(fd, mem, enc, path, n);
	free(mem);
}

static void send_one(const char *path)
{
	char enc[MMPATH_ENC_MAX + 1];
	struct stat st;
	int fd;

	if (mmpath_encode(path, enc, sizeof(enc)))
		return; /* the plan holds no longer path */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		send_error(enc, path,
			   errno == ENOENT || errno == ENOTDIR ? "missing" : "unreadable", errno);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		send_error(enc, path, "notfile", 0);
	else if (pseudo_file(fd, &st))
		send_pseudo(fd, enc, path);
	else
		send_pieces(fd, NULL, enc, path, (unsigned long long)st.st_size);
	close(fd);
}

void files_send(const struct plan *p)
{
	for (unsigned int i = 0; i < p->nfiles; i++)
		send_one(p->files[i]);
}
