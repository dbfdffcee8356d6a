/* SPDX-License-Identifier: GPL-2.0 */
/*
 * step_json.h - what a bisect step reads of the records of the results
 * store (run.json's kernel record, run_record.h) that the typed record
 * does not hold; the keys are read in step_json.c only.
 */
#ifndef MMLAB_BISECT_STEP_JSON_H
#define MMLAB_BISECT_STEP_JSON_H

#include <stdbool.h>

struct run_kernel;

/* the kernel was built for the run ("cache_hit": false), not found in the cache */
bool step_kernel_built(const struct run_kernel *k);

#endif
