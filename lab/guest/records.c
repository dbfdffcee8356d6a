// SPDX-License-Identifier: GPL-2.0
/*
 * records.c - the one pass over the agent's record stream (records.h).
 */
#include "guest/records.h"

void guest_records_walk(const void *buf, size_t len, const struct guest_record_handler *h, size_t n,
			struct mmrec_reader *r)
{
	const char *b = buf;
	struct mmrec_reader rd;
	struct guest_record rec;

	mmrec_reader_init(&rd, buf, len);
	while (mmrec_next(&rd, &rec.type, &rec.p, &rec.len)) {
		rec.start = (size_t)(rec.p - b) - MMREC_HDR_SIZE;
		rec.end = rd.pos;
		for (size_t i = 0; i < n; i++)
			h[i].fn(h[i].ctx, &rec);
	}
	if (r)
		*r = rd;
}
