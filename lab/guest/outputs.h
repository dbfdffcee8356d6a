/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outputs.h - what a command workload left in the agent's stream, per
 * iteration: its stdout and stderr and the kernel log (WL_OUTPUT records
 * with stream=), the files read back (FILE records with iter=) and whether the agent's
 * timeout fired (RESULT timed_out=). Untrusted like the rest of the
 * stream: every text is bounded again here (the agent keeps the first and
 * last 64 KiB of each stream; more than GUEST_OUT_MAX is cut to its head
 * and tail), numbers are clamped, and records that do not check out are
 * dropped. guest/extract.h turns these into metrics.
 */
#ifndef MMLAB_GUEST_OUTPUTS_H
#define MMLAB_GUEST_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest/records.h"

#define GUEST_OUT_MAX (256u << 10) /* one stream of one iteration, kept */
#define GUEST_FILE_MAX (1u << 20) /* one file read back */
#define GUEST_OUT_FILES 16

enum guest_stream { GUEST_STDOUT, GUEST_STDERR, GUEST_DMESG, GUEST_NSTREAMS };

struct guest_text {
	bool present;
	char *data; /* len bytes (any bytes, NUL-terminated for convenience) */
	size_t len;
	size_t head; /* data[0..head) is the start, data[head..len) the end */
	uint64_t total; /* bytes the program wrote (the agent's count) */
	uint64_t dropped; /* bytes between head and the end, not kept */
	bool cut; /* a file: only its first bytes were read */
	int missing; /* a file: errno of the guest's open(), 0 when read */
};

struct guest_iter_out {
	unsigned int index;
	struct guest_text stream[GUEST_NSTREAMS];
	struct guest_text files[GUEST_OUT_FILES];
	bool timed_out;
};

struct guest_outputs {
	struct guest_iter_out *its;
	size_t n;
};

/* the records of a whole stream (common/proto.h) into o (empty when none) */
void guest_outputs_parse(const void *buf, size_t len, struct guest_outputs *o);
/* the same as a handler of a walk (records.h): o initialised, then each record */
void guest_outputs_init(struct guest_outputs *o);
guest_record_fn guest_outputs_record;
/* iteration index's, or NULL */
const struct guest_iter_out *guest_outputs_find(const struct guest_outputs *o, unsigned int index);
void guest_outputs_free(struct guest_outputs *o);
const char *guest_stream_name(enum guest_stream s); /* "stdout", ... */

#endif
