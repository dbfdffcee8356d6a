/* SPDX-License-Identifier: GPL-2.0 */
/*
 * records.h - the one pass over the agent's record stream (common/proto.h):
 * each record's header and CRC checked once, by mmrec_next(), and every
 * valid record handed to each handler in turn, in stream order. The
 * stream's readers are handlers: stream.c (the iterations), outputs.c (a
 * command workload's outputs), files.c (collect_files, and the stream kept
 * without them); run/boot.c walks a boot's stream once with all of them.
 */
#ifndef MMLAB_GUEST_RECORDS_H
#define MMLAB_GUEST_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct guest_record {
	unsigned int type; /* enum mmrec_type */
	const char *p; /* the payload, len bytes, in the walked buffer */
	uint32_t len;
	size_t start, end; /* the whole record (header too): buf[start..end) */
};

typedef void guest_record_fn(void *ctx, const struct guest_record *rec);

struct guest_record_handler {
	guest_record_fn *fn;
	void *ctx;
};

/*
 * Hand every valid record of buf/len to the n handlers h (in the order of
 * h, for each record). r, when not NULL, is the reader afterwards: what
 * was skipped and why (struct mmrec_reader's statistics).
 */
void guest_records_walk(const void *buf, size_t len, const struct guest_record_handler *h, size_t n,
			struct mmrec_reader *r);

#endif
