/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture.h - bounded capture of a command workload's output: the first
 * CAP_HEAD and the last CAP_TAIL bytes of a stream of any length (a
 * program may print 1 GB), the rest counted, never stored. Sent to the host
 * as WL_OUTPUT records with stream= (common/proto.h). Also the kernel log
 * of an iteration (/dev/kmsg) and the files read back after it.
 */
#ifndef MMLAB_COLLECTORS_CAPTURE_H
#define MMLAB_COLLECTORS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define CAP_HEAD (64u << 10)
#define CAP_TAIL (64u << 10)
#define CAP_FILE_MAX (1u << 20) /* one file read back */

struct capture {
	char *head, *tail; /* CAP_HEAD bytes; a ring of CAP_TAIL bytes */
	size_t hlen; /* bytes in head */
	size_t tpos, tlen; /* next write in the ring; bytes in it */
	uint64_t total; /* every byte seen */
};

/* 0, or -1 when out of memory */
int capture_init(struct capture *c);
void capture_add(struct capture *c, const char *data, size_t n);
/* send WL_OUTPUT "iter=<i> stream=<name> total= head= dropped=" */
void capture_send(struct capture *c, unsigned int iter, const char *stream);
void capture_free(struct capture *c);

/* the kernel log from now on: an fd at the end of /dev/kmsg, or -1 */
int kmsg_open(void);
/* the messages since kmsg_open() into c (one line each), then close fd */
void kmsg_read(int fd, struct capture *c);

/* send FILE iter=<i> index=<k> for the file at path (at most CAP_FILE_MAX bytes) */
void capture_send_file(unsigned int iter, unsigned int index, const char *path);

#endif
