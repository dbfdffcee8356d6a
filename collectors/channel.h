/* SPDX-License-Identifier: GPL-2.0 */
/*
 * channel.h - the agent's two outputs: the framed data channel on ttyS1
 * (records per common/proto.h) and human-readable lines on the console.
 */
#ifndef MMLAB_COLLECTORS_CHANNEL_H
#define MMLAB_COLLECTORS_CHANNEL_H

#include <stddef.h>

#define AGENT_VERSION "1"
#define AGENT_DATA_TTY "/dev/ttyS1"

/* make fds 0-2 valid (the console) and open the console for log lines */
void console_open(void);
/* "mmlab-agent: ..." on the console only */
void console_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* open the data tty in raw mode, 115200; 0 or -1 (logged on the console) */
int chan_open(const char *path);
/* one record: header line, then "\n" + body when body_len > 0 */
void chan_send(unsigned int type, const char *hdr, const char *body, size_t body_len);
void chan_sendf(unsigned int type, const char *body, size_t body_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* a LOG record (level info|warn|error) and the same line on the console */
void agent_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* wait until every byte sent has left the tty */
void chan_flush(void);

#endif
