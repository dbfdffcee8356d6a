/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_data.h - a stored run loaded whole, typed: its record (run.json),
 * each variant's iterations (iteration.json) and an imported run's
 * provenance (import.json). What `mmlab results show --json`, compare,
 * report and the track read of a run; run_data_json.c converts it to and
 * from the JSON document `mmlab results show --json` prints.
 */
#ifndef MMLAB_RUN_DATA_H
#define MMLAB_RUN_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "store/iteration_record.h"
#include "store/run_record.h"

struct store;

/* <run>/import.json: where an imported run came from (store/import.c writes it) */
struct run_import {
	bool present;
	char *imported; /* when, ISO 8601; NULL if not a string */
	char *from_store, *from_host, *imported_by; /* NULL if not a string */
	json_t *doc; /* the document as read (owned), printed back unchanged */
};

/* a variant's stored iterations, in index order */
struct run_data_variant {
	struct iteration_record *its;
	size_t n;
};

struct run_data {
	struct run_record rec; /* its status as run_record_status() says */
	struct run_data_variant *vars; /* one per rec.variants[] */
	struct run_import import;
};

/*
 * Load run (an id, a unique part of one, "latest" or NULL: the latest)
 * into *d: 0, or -1 after a message (no such run, run.json unreadable, an
 * iteration document refused by iteration_record_from_json()). A
 * "running" run whose process is gone is "incomplete"; a variant whose
 * name is no path component has no iterations; an iteration.json that is
 * missing or not JSON is left out, one that is not an object is a record
 * with no status (its document kept in rest). run_data_release() after,
 * either way.
 */
int store_run_load(struct store *s, const char *run, struct run_data *d);
void run_data_release(struct run_data *d);

/* ---- run_data_json.c ---- */

/*
 * The document `mmlab results show --json` prints: run.json with each
 * variant's "iterations" (their documents as read) and "imported". A new
 * reference.
 */
json_t *run_data_to_json(const struct run_data *d);
/*
 * *d from such a document (borrowed; untrusted: a run JSON file, a fuzzer's
 * input): 0, or -1 (after a message, except when j is not an object).
 * run_data_release() after, either way.
 */
int run_data_from_json(const json_t *j, struct run_data *d);
/*
 * A variant's iterations from an array of iteration documents (borrowed),
 * as store_run_load() keeps them; where names the variant in a message.
 * 0, or -1 after a message (v emptied).
 */
int run_data_variant_from_json(const json_t *its, struct run_data_variant *v, const char *where);
/* an import.json document (borrowed) into *imp; -1 (no message) if not an object */
int run_import_from_json(const json_t *j, struct run_import *imp);

#endif
