/* SPDX-License-Identifier: GPL-2.0 */
/*
 * step_data.h - a measured bisect step's data, as stored in the state.
 */
#ifndef MMLAB_BISECT_STEP_DATA_H
#define MMLAB_BISECT_STEP_DATA_H

#include <stddef.h>

#include <jansson.h>

/*
 * A step's data: {"runs": [RUN..], "statuses": [..], "values":
 * [..] (metric mode), "met", "not_met", "unknown" (pass/fail mode),
 * "missing", "builds", "vm_runs", "build_failed", "build_log", "wall_s",
 * then "verdict", "why", "position", "p_wrong"}.
 */
double *step_values(json_t *data, size_t *n); /* malloc'd, n >= 0 */
unsigned int step_count(json_t *data, const char *key);
unsigned int step_iterations(json_t *data);
/* the done endpoint's data among the steps (role "good" or "bad"), borrowed; or NULL */
struct bstore_steps;
json_t *step_endpoint(const struct bstore_steps *steps, const char *role);

#endif
