/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iteration.h - an iteration of the store read as a typed record: the way
 * into DIR/<run>/<variant>/<i>/iteration.json for its readers (the writer
 * is store_iteration_write(), store.h).
 */
#ifndef MMLAB_ITERATION_H
#define MMLAB_ITERATION_H

#include "store/iteration_record.h"

struct store;

/*
 * The iteration index of variant in run into rec (iteration_record_release()
 * it). 0, or -1 after a message: a bad name, a missing, unreadable or
 * oversized file (ITER_MAX_FILE), or one that is not an iteration.
 */
int store_iteration_read(struct store *s, const char *run, const char *variant, unsigned int index,
			 struct iteration_record *rec);
/*
 * Every stored iteration of variant in run (the resolved id), in index
 * order, as store_run_load() has them (run_data.h): a file that is
 * missing or not JSON is left out, one that is not an object is a record
 * with no status.
 * 0, or -1 after a message (naming "variant <variant>"); free them with
 * iteration_records_free().
 */
int store_variant_iterations(struct store *s, const char *run, const char *variant,
			     struct iteration_record **recs, size_t *n);

#endif
