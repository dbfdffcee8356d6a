/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - parsers for the raw counter files the guest agent sends
 * (/proc/vmstat, node<N>/numastat, node<N>/meminfo, /proc/buddyinfo) and
 * the delta of two snapshots. The text is untrusted: junk lines, missing
 * fields and numbers that do not fit an int64 are skipped and counted,
 * never fatal.
 */
#ifndef MMLAB_GUEST_COUNTERS_H
#define MMLAB_GUEST_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define COUNTERS_NAME_MAX 128
#define COUNTERS_MAX_ENTRIES 4096 /* more is hostile: counted as skipped */

struct counters_entry {
	char *name;
	int64_t value;
};

/* name -> value pairs in file order; the first occurrence of a name wins */
struct counters {
	struct counters_entry *v;
	size_t n, alloc;
	size_t skipped; /* lines that did not parse */
	size_t *index; /* open-addressing hash of v, 0 = empty, else i + 1 */
	size_t index_size;
};

/* "name value" lines (vmstat, numastat); returns the entries added */
size_t counters_parse_kv(const char *text, size_t len, struct counters *out);
/* "Node 0 MemTotal:  123 kB" -> "MemTotal" = 123 (kB as written) */
size_t counters_parse_node_meminfo(const char *text, size_t len, struct counters *out);
/*
 * "Node 0, zone   Normal  1 2 3 ..." -> "node0.Normal.order0" = 1, ...
 * (free blocks per order)
 */
size_t counters_parse_buddyinfo(const char *text, size_t len, struct counters *out);

/* NULL when absent */
const int64_t *counters_get(const struct counters *s, const char *name);
/*
 * out = after - before for every name present in both, in after's order;
 * names whose difference overflows int64 are skipped. Returns out->n.
 */
size_t counters_delta(const struct counters *before, const struct counters *after,
		      struct counters *out);
void counters_free(struct counters *s);

#endif
