/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import_json.h - what mmtests' extract-mmtests.pl --print-json printed
 * for one benchmark (import.c runs it on the guest's log, so the document
 * is untrusted) as a typed struct: the mean of each operation's samples,
 * pooled over mmtests' iterations, and the benchmark's direction.
 */
#ifndef MMLAB_MMTESTS_IMPORT_JSON_H
#define MMLAB_MMTESTS_IMPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define MMTESTS_MAX_OPS 1000 /* operations of a benchmark kept */

struct mmtests_op {
	char *name; /* as mmtests names it (malloc'd) */
	double mean;
	size_t samples;
};

struct mmtests_extract {
	bool higher; /* _PreferredVal is "Higher": higher is better */
	struct mmtests_op *ops; /* those with at least one sample, in the document's order */
	size_t nops, samples;
};

/*
 * Read doc (borrowed): 0, or -1 when it has no _ResultData object. A
 * sample is a finite number, or a string of at most 64 bytes that is one
 * ("3490"); anything else is skipped. At most MMTESTS_MAX_OPS operations.
 * mmtests_extract_free(x) after, either way.
 */
int mmtests_extract_read(const json_t *doc, struct mmtests_extract *x);
void mmtests_extract_free(struct mmtests_extract *x);

#endif
