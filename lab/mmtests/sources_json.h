/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sources_json.h - the record beside a source file in the cache
 * ($MMLAB_CACHE/mmtests-sources/<benchmark>/<file>.json, sources.c) as a
 * typed struct and back. The cache may be shared and outlive mmlab's
 * version: a record is read bounded and a bad one refused (the file is
 * then fetched again).
 */
#ifndef MMLAB_MMTESTS_SOURCES_JSON_H
#define MMLAB_MMTESTS_SOURCES_JSON_H

#include <stdint.h>

#define SOURCE_META_MAX (64u << 10) /* bytes of a record */

struct source_meta {
	uint64_t size; /* bytes of the file */
	char sha256[65]; /* 64 lowercase hex digits */
	/* malloc'd, NULL when the record has none (commit: curl's files) */
	char *url; /* where it came from */
	char *fetched; /* when, ISO 8601 UTC */
	char *by; /* "curl" or "git archive" */
	char *commit; /* git archive: what was archived */
};

/*
 * Parse a record (len bytes, at most SOURCE_META_MAX): 0, or -1 when it
 * is not one. Either way source_meta_free(m) after.
 */
int source_meta_parse(const char *text, size_t len, struct source_meta *m);
void source_meta_free(struct source_meta *m);
/*
 * The record as written beside the file: a malloc'd NUL-terminated string,
 * or NULL when a string of m is not UTF-8 (or one of url, fetched, by is
 * NULL).
 */
char *source_meta_dump(const struct source_meta *m);

#endif
