// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_stream - the agent's data channel as the host reads it: raw bytes
 * through common/proto.c's reader and the one walk of run/boot.c
 * (walk.h): lab/guest/stream.c, outputs.c and files.c. The summary must
 * always encode as JSON.
 * fuzz-options: -max_len=262144
 */
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_walk(data, size);
	return 0;
}
