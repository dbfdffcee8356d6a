// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_counters - the snapshot parsers of lab/guest/counters.c (vmstat
 * and numastat "name value", node meminfo, buddyinfo) and the delta of
 * two snapshots: the input is "before" and "after", split at the first
 * NUL byte (or in the middle).
 * fuzz-options: -max_len=131072
 */
#include "fuzz.h"
#include "guest/counters.h"

typedef size_t (*parse_fn)(const char *text, size_t len, struct counters *out);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const parse_fn parsers[] = { counters_parse_kv, counters_parse_node_meminfo,
					    counters_parse_buddyinfo };
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	size_t half = nul ? (size_t)(nul - text) : size / 2;

	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		struct counters b = { 0 }, a = { 0 }, d = { 0 };

		parsers[i](text, half, &b);
		parsers[i](text + half + (nul != NULL), size - half - (nul != NULL), &a);
		counters_delta(&b, &a, &d);
		if (d.n > COUNTERS_MAX_ENTRIES || b.n > COUNTERS_MAX_ENTRIES)
			abort();
		for (size_t k = 0; k < d.n; k++)
			if (!counters_get(&a, d.v[k].name) || !counters_get(&b, d.v[k].name))
				abort();
		counters_free(&b);
		counters_free(&a);
		counters_free(&d);
	}
	return 0;
}
