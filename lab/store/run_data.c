// SPDX-License-Identifier: GPL-2.0
/*
 * run_data.c - a stored run loaded whole (run_data.h); store_run_load()
 * is in store.c, beside the files it reads.
 */
#include <stdlib.h>
#include <string.h>

#include "store/run_data.h"

void run_data_release(struct run_data *d)
{
	for (size_t i = 0; d->vars && i < d->rec.nvariants; i++)
		iteration_records_free(d->vars[i].its, d->vars[i].n);
	free(d->vars);
	run_record_release(&d->rec);
	free(d->import.imported);
	free(d->import.from_store);
	free(d->import.from_host);
	free(d->import.imported_by);
	json_decref(d->import.doc);
	memset(d, 0, sizeof(*d));
}
