/* SPDX-License-Identifier: GPL-2.0 */
/*
 * step_json.h - a bisect step's data (step_data.h) from its JSON, and
 * what a step reads of the records of the results store (run.json's
 * kernel record, run_record.h) that the typed record does not hold; the
 * keys are read in step_json.c only.
 */
#ifndef MMLAB_BISECT_STEP_JSON_H
#define MMLAB_BISECT_STEP_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "bisect/step_data.h"

struct run_kernel;

/* the kernel was built for the run ("cache_hit": false), not found in the cache */
bool step_kernel_built(const struct run_kernel *k);

/*
 * data (borrowed; bisect.db is the user's file, so checked and bounded)
 * into d; 0, or -1 (d empty) when a field is of the wrong kind. JSON null
 * (no data yet) is an empty step.
 */
int step_data_from_json(const json_t *data, struct step_data *d);
/*
 * A step's row as bstore_steps() gives it and the log's "step" lines hold
 * it ({"seq", "commit", "role", "state", "data", "started", "finished"}),
 * for writing the log and replaying it; the fields borrow from the JSON.
 * Nothing is checked: a string is NULL and a time 0 when it is not one,
 * data NULL when absent (bstore_step_add_done() refuses what the table
 * does not take).
 */
struct step_row {
	const char *commit, *role, *state;
	json_t *data;
	double started, finished;
};
void step_row_from_json(const json_t *row, struct step_row *r);

/* d's "runs" as JSON, a new reference (NULL when it has none) */
json_t *step_runs_json(const struct step_data *d);
/* d as JSON, a new reference */
json_t *step_data_to_json(const struct step_data *d);

#endif
