// SPDX-License-Identifier: GPL-2.0
/*
 * payload.c - unpack the boot's payload disk (payload.h). The host wrote
 * it (lab/image/payload.c), so this is a small reader of what that writer
 * makes: cpio "newc", 110-byte ASCII headers, names and data padded to 4
 * bytes. It still checks every name and size, since a damaged disk must
 * end in a message, not in files outside the root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "payload.h"
#include "proto.h"
#include "sysfs.h"

#define HDR_LEN 110
#define NAME_MAX_LEN 4096
#define RD_BUF (256u << 10)
#define WAIT_S 10

struct rd {
	int fd;
	unsigned char *buf;
	size_t pos, len;
	unsigned long long off; /* bytes consumed */
};

static int rd_fill(struct rd *r)
{
	ssize_t n;

	do
		n = read(r->fd, r->buf, RD_BUF);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	r->pos = 0;
	r->len = (size_t)n;
	return 0;
}

/* the next n bytes into dst (NULL: skip them); -1 at the end of the disk */
static int rd_take(struct rd *r, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		size_t k;

		if (r->pos == r->len && rd_fill(r))
			return -1;
		k = r->len - r->pos < n ? r->len - r->pos : n;
		if (d) {
			memcpy(d, r->buf + r->pos, k);
			d += k;
		}
		r->pos += k;
		r->off += k;
		n -= k;
	}
	return 0;
}

static int rd_align4(struct rd *r)
{
	return rd_take(r, NULL, (size_t)((4 - r->off % 4) % 4));
}

static int hex8(const char *s, unsigned long *v)
{
	*v = 0;
	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 :
					       -1;

		if (d < 0)
			return -1;
		*v = *v << 4 | (unsigned long)d;
	}
	return 0;
}

/* relative, no empty, "." or ".." component */
static int name_ok(const char *n)
{
	if (!*n || *n == '/')
		return 0;
	for (const char *c = n; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
	}
	return 1;
}

static int mkdirs(char *path, unsigned int mode)
{
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(path, mode) && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* size bytes of r into path (made, or replaced) with mode */
static int put_file(struct rd *r, char *path, unsigned int mode, unsigned long size, char *err,
		    size_t errlen)
{
	static unsigned char chunk[RD_BUF];
	char *slash = strrchr(path, '/');
	int fd = -1, bad = 0;

	*slash = '\0';
	if (slash != path)
		bad = mkdirs(path, 0755);
	*slash = '/';
	if (!bad)
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0 && errno == ETXTBSY && !unlink(path)) /* a program running now */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	while (size) {
		size_t k = size < sizeof(chunk) ? size : sizeof(chunk);

		if (rd_take(r, chunk, k)) {
			snprintf(err, errlen, "%s: the disk ends inside it", path);
			close(fd);
			return -1;
		}
		if (write_all(fd, chunk, k)) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		size -= k;
	}
	if (fchmod(fd, mode) || close(fd)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* one entry; 1 at the trailer, 0 done, -1 error */
static int one_entry(struct rd *r, const char *root, struct payload_stats *st, char *err,
		     size_t errlen)
{
	static char name[NAME_MAX_LEN + 1];
	char hdr[HDR_LEN], *path;
	unsigned long mode, size, nlen;
	int ret = 0;

	if (rd_take(r, hdr, HDR_LEN) || (memcmp(hdr, "070701", 6) && memcmp(hdr, "070702", 6)) ||
	    hex8(hdr + 14, &mode) || hex8(hdr + 54, &size) || hex8(hdr + 94, &nlen)) {
		snprintf(err, errlen, "no cpio header at byte %llu", r->off);
		return -1;
	}
	if (nlen < 2 || nlen > sizeof(name) || rd_take(r, name, nlen) || name[nlen - 1] ||
	    rd_align4(r)) {
		snprintf(err, errlen, "a bad name at byte %llu", r->off);
		return -1;
	}
	if (!strcmp(name, "TRAILER!!!"))
		return 1;
	if (!name_ok(name)) {
		snprintf(err, errlen, "refusing the name '%.200s'", name);
		return -1;
	}
	path = malloc(strlen(root) + nlen + 2);
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sprintf(path, "%s/%s", root, name);
	if (S_ISDIR(mode)) {
		ret = mkdirs(path, mode & 07777);
		if (ret)
			snprintf(err, errlen, "cannot make %s: %s", path, strerror(errno));
		st->dirs += !ret;
	} else if (S_ISREG(mode)) {
		ret = put_file(r, path, mode & 07777, size, err, errlen);
		st->files += !ret;
		st->bytes += ret ? 0 : size;
	} else if (rd_take(r, NULL, size)) {
		snprintf(err, errlen, "%s: the disk ends inside it", path);
		ret = -1;
	}
	free(path);
	if (!ret && rd_align4(r)) {
		snprintf(err, errlen, "the disk ends after %s", name);
		ret = -1;
	}
	return ret;
}

int payload_unpack_fd(int fd, const char *root, struct payload_stats *st, char *err, size_t errlen)
{
	struct rd r = { .fd = fd, .buf = malloc(RD_BUF) };
	int ret;

	memset(st, 0, sizeof(*st));
	if (!r.buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (!(ret = one_entry(&r, root, st, err, errlen)))
		;
	free(r.buf);
	return ret < 0 ? -1 : 0;
}

/* /dev/<name> of the virtio disk whose serial is MMPAYLOAD_SERIAL, or "" */
static void find_disk(char *dev, size_t len)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;

	dev[0] = '\0';
	while (d && (e = readdir(d))) {
		char path[300];
		size_t n;
		int cut;
		char *serial;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", e->d_name);
		serial = read_capped(path, 64, &n, &cut);
		if (serial && !strncmp(serial, MMPAYLOAD_SERIAL, strlen(MMPAYLOAD_SERIAL)) &&
		    strspn(serial + strlen(MMPAYLOAD_SERIAL), " \n") ==
			    n - strlen(MMPAYLOAD_SERIAL))
			snprintf(dev, len, "/dev/%s", e->d_name);
		free(serial);
		if (dev[0])
			break;
	}
	if (d)
		closedir(d);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int payload_unpack(struct payload_stats *st, char *err, size_t errlen)
{
	double t0 = mono();
	char dev[300];
	int fd, ret;

	memset(st, 0, sizeof(*st));
	for (;;) {
		find_disk(dev, sizeof(dev));
		if (dev[0])
			break;
		/* an initramfs has its plan already; a disk image waits for its disk */
		if (!access(MMPLAN_PATH, F_OK) || mono() - t0 > WAIT_S)
			return 0;
		usleep(100000);
	}
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the payload disk %s: %s", dev, strerror(errno));
		return -1;
	}
	ret = payload_unpack_fd(fd, "", st, err, errlen);
	close(fd);
	return ret < 0 ? -1 : 1;
}
