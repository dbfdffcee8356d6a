/* SPDX-License-Identifier: GPL-2.0 */
/*
 * result_json.h - a bisection's result (docs/bisect.md, "Result") as a
 * typed record, read from its JSON (result.c makes it; bisect.db keeps
 * it) for the text of 'mmlab bisect run', 'replay' and 'status' (print.c).
 * What the text does not show (runs, n, kernel) stays in the JSON that
 * --json prints.
 */
#ifndef MMLAB_BISECT_RESULT_JSON_H
#define MMLAB_BISECT_RESULT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/util.h"

/* a row of the table: an endpoint or a step */
struct bisect_row {
	char *role, *commit, *short_id, *subject; /* subject may be NULL */
	char *verdict, *why; /* NULL while undecided */
	unsigned int iterations;
	unsigned int met; /* signature mode */
	bool has_mean;
	double mean, ci95; /* metric mode; ci95 NaN when none */
};

struct bisect_result {
	bool signature; /* "mode": "signature" (else "metric") */
	char *looked_for, *term, *confidence;
	bool has_first;
	char *first_commit, *first_subject, *first_author, *first_date;
	struct strlist candidates; /* without a first: the commits left */
	struct bisect_row *rows; /* "steps" */
	size_t nrows;
	long long builds, vm_runs, range_commits, log2_range;
	double wall_s;
};

/* res (borrowed) into r; 0, or -1 (r empty) when it is not a result */
int bisect_result_from_json(const json_t *res, struct bisect_result *r);
/* the table's rows alone ("steps" of a result so far); 0 or -1 */
int bisect_rows_from_json(const json_t *rows, struct bisect_row **out, size_t *n);
/* r as JSON (the keys above), a new reference */
json_t *bisect_result_to_json(const struct bisect_result *r);
/*
 * A refusal, stored as the result when the endpoints do not differ as
 * asked: {"refused": why}, a new reference; and its why read back (NULL
 * when res is not one)
 */
json_t *bisect_refusal_json(const char *why);
const char *bisect_refusal_why(const json_t *res);
void bisect_rows_release(struct bisect_row *rows, size_t n);
void bisect_result_release(struct bisect_result *r);

#endif
