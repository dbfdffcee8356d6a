// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - mounts, bounded file reads, settings writes, node discovery.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "sysfs.h"

struct mnt {
	const char *src, *dir, *type;
	int required;
};

static const struct mnt mounts[] = {
	{ "proc", "/proc", "proc", 1 },
	{ "sysfs", "/sys", "sysfs", 1 },
	{ "devtmpfs", "/dev", "devtmpfs", 1 },
	{ "tmpfs", "/tmp", "tmpfs", 0 },
	{ "tracefs", "/sys/kernel/tracing", "tracefs", 0 },
	{ "debugfs", "/sys/kernel/debug", "debugfs", 0 },
};

static char mount_errors[1024];

void mount_all(void)
{
	size_t used = 0;

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		const struct mnt *m = &mounts[i];
		int n;

		mkdir(m->dir, 0755);
		if (mount(m->src, m->dir, m->type, 0, NULL) == 0 || errno == EBUSY)
			continue;
		/* no console yet: keep the message for mount_report() */
		n = snprintf(mount_errors + used, sizeof(mount_errors) - used,
			     "%smount %s on %s: %s%s", used ? "; " : "", m->type, m->dir,
			     strerror(errno), m->required ? "" : " (tolerated)");
		if (n > 0 && (size_t)n < sizeof(mount_errors) - used)
			used += (size_t)n;
	}
}

void mount_report(void)
{
	if (mount_errors[0])
		agent_log("warn", "%s", mount_errors);
}

char *read_capped(const char *path, size_t cap, size_t *len, int *truncated)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t alloc = 4096, n = 0;
	char *buf;

	*truncated = 0;
	if (fd < 0)
		return NULL;
	buf = malloc(alloc + 1);
	while (buf) {
		ssize_t r;

		if (n == alloc) {
			char *nb;

			if (alloc >= cap)
				break;
			alloc = alloc * 2 > cap ? cap : alloc * 2;
			nb = realloc(buf, alloc + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (buf && n == alloc && alloc >= cap) {
		char c;

		*truncated = read(fd, &c, 1) > 0;
	}
	close(fd);
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int list_nodes(int *ids, int max)
{
	DIR *d = opendir(NODE_DIR);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char *end;
		long id;

		if (strncmp(e->d_name, "node", 4) || !e->d_name[4])
			continue;
		id = strtol(e->d_name + 4, &end, 10);
		if (*end || id < 0 || id > 100000 || e->d_name[4] == '-' || e->d_name[4] == '+')
			continue;
		ids[n++] = (int)id;
	}
	closedir(d);
	qsort(ids, (size_t)n, sizeof(ids[0]), cmp_int);
	return n;
}
