// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_stream - the agent's data channel as the host reads it: raw bytes
 * through common/proto.c's reader and lab/guest/stream.c. The summary
 * must always encode as JSON.
 * fuzz-options: -max_len=262144
 */
#include <jansson.h>

#include "fuzz.h"
#include "guest/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = guest_stream_parse(data, size, "usemem");
	char *s = json_dumps(j, JSON_COMPACT);

	if (!s)
		abort(); /* what the store writes must be JSON */
	free(s);
	json_decref(j);
	return 0;
}
