// SPDX-License-Identifier: GPL-2.0
/*
 * run_row_json.c - the store's listing (struct run_row, store.h) as
 * `mmlab results list --json` prints it: an array, newest first, of
 * {"run", "job", "status", "created", "variants", "iterations",
 * "iterations_ok"}.
 */
#include "store/store.h"

json_t *run_rows_to_json(const struct run_row *rows, size_t n)
{
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(
			out, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "run", rows[i].run,
				       "job", rows[i].job, "status", rows[i].status, "created",
				       rows[i].created, "variants", (json_int_t)rows[i].variants,
				       "iterations", (json_int_t)rows[i].iterations,
				       "iterations_ok", (json_int_t)rows[i].iterations_ok));
	return out;
}
