/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro_json.h - the JSON of repro (docs/repro.md, RESULTS) to and from
 * the typed records of verdict.h. Every json_t returned is a new
 * reference; every one passed in is borrowed.
 */
#ifndef MMLAB_REPRO_JSON_H
#define MMLAB_REPRO_JSON_H

#include <jansson.h>

#include "repro/verdict.h"

/* run: the shape of "mmlab results show --json"; 0, or -1 when it is not a run */
int repro_run_from_json(const json_t *run, struct repro_run *out);
/* iteration.json into it (its index given); 0, or -1 when it is not an object */
int repro_iter_from_json(const json_t *j, long long index, struct repro_iter *it);
/* job_resolved's "iterations" (0 when none) */
unsigned int repro_job_iterations(const json_t *job_resolved);
/* the release of a run.json kernel record (run_record.h), borrowed; or NULL */
struct run_kernel;
const char *repro_kernel_release(const struct run_kernel *k);
/* the "repro" document, a new reference */
json_t *repro_eval_to_json(const struct repro_eval *ev);
/* the "repro" document read back; 0, or -1 (ev empty) when it is not one */
int repro_eval_from_json(const json_t *j, struct repro_eval *ev);
/* {"run", "recipe", "repro"}, a new reference */
json_t *repro_report_to_json(const struct repro_report *rep);
/*
 * The report stored in a run's record (the "recipe" and "repro" keys of
 * run.json); 0, 1 when it has none, -1 when they do not read as a verdict.
 */
struct run_record;
int repro_report_from_record(const struct run_record *rec, struct repro_report *rep);

/*
 * "mmlab repro --list --json": [{"name", "file", "bug", "title",
 * "workload", "runnable": true} or {"name", "file", "runnable": false,
 * "why"}]
 * Returns a new reference.
 */
json_t *repro_entries_json(const struct repro_entries *l);

#endif
