// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - bounded output capture (see capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "channel.h"
#include "proto.h"
#include "sysfs.h"

int capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->head = malloc(CAP_HEAD);
	c->tail = malloc(CAP_TAIL);
	if (!c->head || !c->tail) {
		capture_free(c);
		return -1;
	}
	return 0;
}

void capture_free(struct capture *c)
{
	free(c->head);
	free(c->tail);
	c->head = c->tail = NULL;
}

void capture_add(struct capture *c, const char *data, size_t n)
{
	size_t k;

	if (!c->head)
		return;
	c->total += n;
	k = CAP_HEAD - c->hlen < n ? CAP_HEAD - c->hlen : n;
	memcpy(c->head + c->hlen, data, k);
	c->hlen += k;
	data += k;
	n -= k;
	if (n > CAP_TAIL) { /* only the last CAP_TAIL bytes can stay */
		data += n - CAP_TAIL;
		n = CAP_TAIL;
	}
	while (n) {
		k = CAP_TAIL - c->tpos < n ? CAP_TAIL - c->tpos : n;
		memcpy(c->tail + c->tpos, data, k);
		c->tpos = (c->tpos + k) % CAP_TAIL;
		c->tlen = c->tlen + k > CAP_TAIL ? CAP_TAIL : c->tlen + k;
		data += k;
		n -= k;
	}
}

void capture_send(struct capture *c, unsigned int iter, const char *stream)
{
	size_t start = c->tlen < CAP_TAIL ? 0 : c->tpos, len = c->hlen + c->tlen;
	char *body = c->head ? malloc(len + 1) : NULL;

	if (!body) {
		chan_sendf(MMREC_WL_OUTPUT, NULL, 0,
			   "iter=%u stream=%s total=%llu head=0 dropped=%llu", iter, stream,
			   (unsigned long long)c->total, (unsigned long long)c->total);
		return;
	}
	memcpy(body, c->head, c->hlen);
	/* the ring from its oldest byte */
	memcpy(body + c->hlen, c->tail + start, c->tlen - start);
	memcpy(body + c->hlen + (c->tlen - start), c->tail, start);
	chan_sendf(MMREC_WL_OUTPUT, body, len, "iter=%u stream=%s total=%llu head=%zu dropped=%llu",
		   iter, stream, (unsigned long long)c->total, c->hlen,
		   (unsigned long long)(c->total - len));
	free(body);
}

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

void kmsg_read(int fd, struct capture *c)
{
	char rec[8192];

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message\n" then " KEY=value" lines */
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		capture_add(c, msg, strlen(msg));
		capture_add(c, "\n", 1);
	}
	close(fd);
}

void capture_send_file(unsigned int iter, unsigned int index, const char *path)
{
	size_t len = 0;
	int cut = 0;
	char *text = read_capped(path, CAP_FILE_MAX, &len, &cut);

	if (!text) {
		chan_sendf(MMREC_FILE, NULL, 0, "iter=%u index=%u missing=%d", iter, index, errno);
		return;
	}
	chan_sendf(MMREC_FILE, text, len, "iter=%u index=%u size=%zu cut=%d", iter, index, len,
		   cut);
	free(text);
}
