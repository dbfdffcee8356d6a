// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_records - the record payloads (HELLO, NODES, SNAPSHOT, WL_OUTPUT,
 * RESULT, COUNTS, SERIES, FILE, ...) past the checksum: the input is a
 * list of [type][len lo][len hi][payload] that the target frames with
 * mmrec_encode(), so every record reaches the handlers of lab/guest/
 * stream.c, outputs.c and files.c (walk.h; random bytes almost never carry
 * a valid CRC). Bit 7 of the type byte puts a stray byte before the record.
 * fuzz-options: -max_len=262144
 */
#include "proto.h"
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *out = malloc(size * 7 + 64);
	size_t n = 0;

	if (!out)
		abort();
	while (size >= 3) {
		unsigned int type = 1 + (data[0] & 0x7f) % MMREC_TYPE_MAX;
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;

		if (data[0] & 0x80)
			out[n++] = 'M';
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		n += mmrec_encode(out + n, type, data, (uint32_t)len);
		data += len;
		size -= len;
	}
	fuzz_walk(out, n);
	free(out);
	return 0;
}
