/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extract.h - a command workload's metrics: the job's extractors
 * (job_own.h, struct own_metric) run on the host over the outputs of one
 * iteration (guest/outputs.h), after the boot.
 *
 * Here rather than in the guest or in lab/analysis: the guest is
 * untrusted and knows no YAML, and the outputs must be bounded before any
 * parsing; and the metrics belong in iteration.json with the rest of what
 * the boot collected, so that compare, report, bisect, repro and
 * --until-significant read them like any other metric. Every input is
 * bounded: texts by outputs.h, regexes by lib/regex_safe.h and matched one
 * line (at most EXTRACT_LINE_MAX bytes) at a time, documents by their size,
 * depth and node count, and each extractor yields at most
 * EXTRACT_MAX_VALUES metrics.
 */
#ifndef MMLAB_GUEST_EXTRACT_H
#define MMLAB_GUEST_EXTRACT_H

#include <stddef.h>

#include <jansson.h>

#include "guest/outputs.h"
#include "job/job.h"
#include "lib/util.h"

#define EXTRACT_LINE_MAX 4096
#define EXTRACT_MAX_VALUES 10000 /* metrics of one extractor */
#define EXTRACT_YAML_NODES 200000
#define EXTRACT_DEPTH_MAX 64

/*
 * Add the metrics "<workload>.<name>" the extractors of w find in it (may be
 * NULL: nothing found) to metrics, which already holds the iteration's
 * other metrics (never replaced). What an extractor could not do (a file
 * missing, a document that does not parse, a regex that never matched) is
 * said in notes, one line each.
 */
void extract_metrics(const struct job_workload *w, const struct guest_iter_out *it, json_t *metrics,
		     struct strlist *notes);

/* for tests and the YAML extractor: a YAML document as JSON (NULL after a note) */
/* a new reference */
json_t *extract_yaml_to_json(const char *text, size_t len, char *err, size_t errlen);

#endif
