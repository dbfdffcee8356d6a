// SPDX-License-Identifier: GPL-2.0
/*
 * channel.c - data channel (ttyS1, framed records) and console log lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "channel.h"
#include "proto.h"

static int console_fd = -1;
static int chan_fd = -1;

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void console_open(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		fd = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	/* PID 1 may start with no fds at all: make 0-2 the console */
	for (int i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0)
			dup2(fd, i);
	console_fd = fd;
}

static void console_vlog(const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	if (console_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "mmlab-agent: ");
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	strcat(line, "\n");
	write_all(console_fd, line, strlen(line));
}

void console_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	console_vlog(fmt, ap);
	va_end(ap);
}

int chan_open(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		console_log("cannot open data channel %s: %s", path, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		t.c_cflag |= CLOCAL | CREAD;
		t.c_cflag &= ~(tcflag_t)CRTSCTS;
		if (tcsetattr(fd, TCSANOW, &t) < 0)
			console_log("cannot set %s raw: %s", path, strerror(errno));
	} else {
		console_log("%s is not a tty (%s); writing anyway", path, strerror(errno));
	}
	chan_fd = fd;
	return 0;
}

void chan_send(unsigned int type, const char *hdr, const char *body, size_t body_len)
{
	size_t hl = strlen(hdr);
	size_t plen = hl + (body_len ? 1 + body_len : 0);
	char *payload, *rec;

	if (chan_fd < 0)
		return;
	if (plen > MMREC_MAX_PAYLOAD) {
		body_len = MMREC_MAX_PAYLOAD - hl - 1;
		plen = MMREC_MAX_PAYLOAD;
		console_log("%s record cut to %zu bytes", mmrec_type_name(type), plen);
	}
	payload = malloc(plen + 1);
	rec = malloc(MMREC_HDR_SIZE + plen);
	if (!payload || !rec) {
		console_log("out of memory sending a %zu-byte %s record", plen,
			    mmrec_type_name(type));
		free(payload);
		free(rec);
		return;
	}
	memcpy(payload, hdr, hl);
	if (body_len) {
		payload[hl] = '\n';
		memcpy(payload + hl + 1, body, body_len);
	}
	mmrec_encode(rec, type, payload, (uint32_t)plen);
	if (write_all(chan_fd, rec, MMREC_HDR_SIZE + plen) < 0)
		console_log("write to data channel failed: %s", strerror(errno));
	free(payload);
	free(rec);
}

void chan_sendf(unsigned int type, const char *body, size_t body_len, const char *fmt, ...)
{
	char hdr[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hdr, sizeof(hdr), fmt, ap);
	va_end(ap);
	chan_send(type, hdr, body, body_len);
}

void agent_log(const char *level, const char *fmt, ...)
{
	char msg[1024], hdr[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	console_log("%s: %s", level, msg);
	snprintf(hdr, sizeof(hdr), "level=%s", level);
	chan_send(MMREC_LOG, hdr, msg, strlen(msg));
}

void chan_flush(void)
{
	if (chan_fd >= 0)
		tcdrain(chan_fd);
}
