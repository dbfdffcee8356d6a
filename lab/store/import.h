/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import.h - runs from a store copied from another lab server (rsync):
 * "mmlab results import DIR". Each run is checked whole before anything
 * is copied (a partial copy is refused, naming what is missing), copied
 * under a temporary name and renamed into place, with its provenance in
 * <run>/import.json; a run already in the store is skipped, never stored
 * twice. The copied files are untrusted: bounded and checked
 * (tests/fuzz/fuzz_import.c). See docs/queue.md, "Stores of other lab
 * servers".
 */
#ifndef MMLAB_STORE_IMPORT_H
#define MMLAB_STORE_IMPORT_H

#include <stddef.h>

#include <jansson.h>

#include "store/store.h"
#include "lib/util.h"

#define IMPORT_MAX_RUN_JSON (16u << 20)
#define IMPORT_MAX_ITERATION_JSON (64u << 20)
#define IMPORT_MAX_FILES 200000u
#define IMPORT_MAX_DEPTH 16

/*
 * Check run.json text of run id (the directory's name): a JSON object
 * naming this run, with variants of valid names. NULL ok, else why
 * (malloc'd). The variant names go into *variants when not NULL.
 */
char *import_check_run_json(const char *buf, size_t len, const char *id, struct strlist *variants);
/* check iteration.json text: an object with a status string and metrics object */
char *import_check_iteration_json(const char *buf, size_t len);

enum store_import_result {
	STORE_IMPORT_OK, /* every run imported or already present */
	STORE_IMPORT_REFUSED, /* some refused (each said) */
	STORE_IMPORT_NO_SOURCE, /* src cannot be read (said) */
};

/*
 * Import every run under src into s. Prints a line per run; *imported and
 * *skipped count the runs imported and those already present.
 */
enum store_import_result store_import(struct store *s, const char *src, unsigned int *imported,
				      unsigned int *skipped);

#endif
