// SPDX-License-Identifier: GPL-2.0
/*
 * tap.c - copy the data channel's FIFO into its file (tap.h).
 *
 * The thread polls the FIFO and a stop pipe. It holds a write end of the
 * FIFO itself, so the FIFO never reports a hang-up (QEMU opens and closes
 * its end when it likes) and reads never return 0: the loop ends only
 * when stopped, after reading until the FIFO is empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/tap.h"
#include "lib/util.h"

#define TAP_BUF (256u << 10)

struct data_tap {
	pthread_t tid;
	int rfd, keep_wfd, out, stop[2];
	uint64_t cap, kept, dropped;
	int werr; /* errno of a failed write into the file */
	char *path, *in, *fifo;
};

/* what the FIFO holds now into the file; 0 when it is empty, -1 on a read error */
static int tap_copy(struct data_tap *t, char *buf)
{
	for (;;) {
		ssize_t n = read(t->rfd, buf, TAP_BUF), k;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (!n)
			return 0;
		k = (uint64_t)n > t->cap - t->kept ? (ssize_t)(t->cap - t->kept) : n;
		t->dropped += (uint64_t)(n - k);
		for (ssize_t off = 0; off < k && !t->werr;) {
			ssize_t w = write(t->out, buf + off, (size_t)(k - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				t->werr = w < 0 ? errno : ENOSPC;
			else
				off += w;
		}
		t->kept += (uint64_t)k;
	}
}

static void *tap_thread(void *arg)
{
	struct data_tap *t = arg;
	char *buf = xmalloc(TAP_BUF);
	struct pollfd p[2] = { { .fd = t->rfd, .events = POLLIN },
			       { .fd = t->stop[0], .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if ((p[0].revents & POLLIN) && tap_copy(t, buf))
			break;
		if (p[1].revents)
			break;
	}
	/* stopped: QEMU is gone, what it wrote is in the FIFO */
	tap_copy(t, buf);
	free(buf);
	return NULL;
}

static void tap_free(struct data_tap *t)
{
	int fds[] = { t->rfd, t->keep_wfd, t->out, t->stop[0], t->stop[1] };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (t->in)
		unlink(t->in);
	if (t->fifo)
		unlink(t->fifo);
	free(t->path);
	free(t->in);
	free(t->fifo);
	free(t);
}

static int make_fifo(const char *p)
{
	unlink(p);
	if (mkfifo(p, 0600)) {
		lab_err("cannot make the FIFO %s for the data channel: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

struct data_tap *data_tap_start(const char *path, uint64_t cap)
{
	struct data_tap *t = xcalloc(1, sizeof(*t));

	t->rfd = t->keep_wfd = t->out = t->stop[0] = t->stop[1] = -1;
	t->cap = cap;
	t->path = xstrdup(path);
	t->in = xasprintf("%s.in", path);
	t->fifo = xasprintf("%s.out", path);
	if (make_fifo(t->in) || make_fifo(t->fifo))
		goto fail;
	t->rfd = open(t->fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	t->keep_wfd = t->rfd < 0 ? -1 : open(t->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	t->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (t->rfd < 0 || t->keep_wfd < 0 || t->out < 0 || pipe2(t->stop, O_CLOEXEC)) {
		lab_err("cannot open the data channel %s: %s", path, strerror(errno));
		goto fail;
	}
	errno = pthread_create(&t->tid, NULL, tap_thread, t);
	if (errno) {
		lab_err("cannot start the data channel's reader: %s", strerror(errno));
		goto fail;
	}
	return t;
fail:
	tap_free(t);
	return NULL;
}

int64_t data_tap_stop(struct data_tap *t)
{
	int64_t ret;

	if (!t)
		return 0;
	while (write(t->stop[1], "x", 1) < 0 && errno == EINTR)
		;
	pthread_join(t->tid, NULL);
	ret = (int64_t)t->dropped;
	if (t->werr) {
		lab_err("cannot write the data channel's file %s: %s; check the free space in /tmp",
			t->path, strerror(t->werr));
		ret = -1;
	}
	tap_free(t);
	return ret;
}
