/* SPDX-License-Identifier: GPL-2.0 */
/*
 * step_data.h - a measured bisect step's data, as stored in the state,
 * typed. Stored as JSON (bisect.db, bisect.log): {"runs": [RUN..],
 * "statuses": [..], "values": [..] (metric mode), "met", "not_met",
 * "unknown" (pass/fail mode), "missing", "builds", "vm_runs",
 * "build_failed", "build_log", "wall_s", then "verdict", "why",
 * "position", "p_wrong"}; step_json.c converts it.
 */
#ifndef MMLAB_BISECT_STEP_DATA_H
#define MMLAB_BISECT_STEP_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

struct step_data {
	bool has_runs;
	struct strlist runs; /* the runs of the store measuring it, one per round */
	struct strlist statuses; /* each iteration's: its count is the iterations */
	double *values; /* metric mode: the metric per ok iteration */
	size_t nvalues;
	unsigned int met, not_met, unknown; /* pass/fail mode */
	unsigned int missing, builds, vm_runs;
	bool build_failed;
	char *build_log; /* or NULL */
	double wall_s;
	char *verdict, *why; /* NULL until decided */
	bool has_p_wrong;
	double p_wrong;
};

void step_data_release(struct step_data *d);

#endif
