// SPDX-License-Identifier: GPL-2.0
/*
 * result_json.c - a bisection's result to and from JSON; see
 * result_json.h. The result is read back from bisect.db, a file of the
 * user's: each field is checked and each array bounded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/result_json.h"

#define MAX_ROWS 100000 /* steps of one bisection */
#define MAX_CANDIDATES 100000

static char *opt_str(const json_t *o, const char *key, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (v && !json_is_string(v) && !json_is_null(v))
		*bad = true;
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static long long opt_int(const json_t *o, const char *key, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (v && (!json_is_integer(v) || json_integer_value(v) < 0))
		*bad = true;
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

static unsigned int opt_uint(const json_t *o, const char *key, bool *bad)
{
	long long v = opt_int(o, key, bad);

	if (v > UINT32_MAX)
		*bad = true;
	return (unsigned int)(v > UINT32_MAX ? 0 : v);
}

static int row_from_json(const json_t *j, struct bisect_row *r)
{
	const json_t *mean = json_object_get(j, "mean"), *ci = json_object_get(j, "ci95");
	bool bad = !json_is_object(j);

	r->role = opt_str(j, "role", &bad);
	r->commit = opt_str(j, "commit", &bad);
	r->short_id = opt_str(j, "short", &bad);
	r->subject = opt_str(j, "subject", &bad);
	r->verdict = opt_str(j, "verdict", &bad);
	r->why = opt_str(j, "why", &bad);
	r->iterations = opt_uint(j, "iterations", &bad);
	r->met = opt_uint(j, "met", &bad);
	r->has_mean = json_is_number(mean);
	r->mean = json_number_value(mean);
	r->ci95 = json_is_number(ci) ? json_number_value(ci) : NAN;
	if ((mean && !json_is_number(mean) && !json_is_null(mean)) ||
	    (ci && !json_is_number(ci) && !json_is_null(ci)))
		bad = true;
	return bad ? -1 : 0;
}

void bisect_rows_release(struct bisect_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].role);
		free(rows[i].commit);
		free(rows[i].short_id);
		free(rows[i].subject);
		free(rows[i].verdict);
		free(rows[i].why);
	}
	free(rows);
}

int bisect_rows_from_json(const json_t *rows, struct bisect_row **out, size_t *n)
{
	const json_t *o;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!rows)
		return 0;
	if (!json_is_array(rows) || json_array_size(rows) > MAX_ROWS)
		return -1;
	*out = xcalloc(json_array_size(rows) + 1, sizeof(**out));
	json_array_foreach(rows, i, o) {
		if (row_from_json(o, &(*out)[(*n)++])) {
			bisect_rows_release(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
	}
	return 0;
}

static int first_from_json(const json_t *first, struct bisect_result *r)
{
	bool bad = false;

	if (!json_is_object(first))
		return json_is_null(first) || !first ? 0 : -1;
	r->has_first = true;
	r->first_commit = opt_str(first, "commit", &bad);
	r->first_subject = opt_str(first, "subject", &bad);
	r->first_author = opt_str(first, "author", &bad);
	r->first_date = opt_str(first, "date", &bad);
	return bad ? -1 : 0;
}

static int candidates_from_json(const json_t *c, struct strlist *out)
{
	const json_t *v;
	size_t i;

	if (!c)
		return 0;
	if (!json_is_array(c) || json_array_size(c) > MAX_CANDIDATES)
		return -1;
	json_array_foreach(c, i, v) {
		if (!json_is_string(v))
			return -1;
		strlist_push(out, json_string_value(v));
	}
	return 0;
}

int bisect_result_from_json(const json_t *res, struct bisect_result *r)
{
	const char *mode = json_string_value(json_object_get(res, "mode"));
	const json_t *wall = json_object_get(res, "wall_s");
	bool bad = !json_is_object(res) || !mode || (wall && !json_is_number(wall));

	memset(r, 0, sizeof(*r));
	if (bad)
		return -1;
	r->signature = !strcmp(mode, "signature");
	r->looked_for = opt_str(res, "looked_for", &bad);
	r->term = opt_str(res, "term", &bad);
	r->confidence = opt_str(res, "confidence", &bad);
	r->builds = opt_int(res, "builds", &bad);
	r->vm_runs = opt_int(res, "vm_runs", &bad);
	r->range_commits = opt_int(res, "range_commits", &bad);
	r->log2_range = opt_int(res, "log2_range", &bad);
	r->wall_s = json_number_value(wall);
	if (bad || first_from_json(json_object_get(res, "first"), r) ||
	    candidates_from_json(json_object_get(res, "candidates"), &r->candidates) ||
	    bisect_rows_from_json(json_object_get(res, "steps"), &r->rows, &r->nrows)) {
		bisect_result_release(r);
		return -1;
	}
	return 0;
}

static void put_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

static json_t *row_json(const struct bisect_row *r, bool signature)
{
	json_t *o = json_object();

	put_str(o, "commit", r->commit);
	put_str(o, "short", r->short_id);
	put_str(o, "subject", r->subject);
	put_str(o, "role", r->role);
	put_str(o, "verdict", r->verdict);
	put_str(o, "why", r->why);
	json_object_set_new(o, "iterations", json_integer(r->iterations));
	if (signature) {
		json_object_set_new(o, "met", json_integer(r->met));
	} else {
		json_object_set_new(o, "mean", r->has_mean ? json_real(r->mean) : json_null());
		json_object_set_new(o, "ci95", isnan(r->ci95) ? json_null() : json_real(r->ci95));
	}
	return o;
}

json_t *bisect_result_to_json(const struct bisect_result *r)
{
	json_t *rows = json_array(), *cand = json_array(), *first = json_null(), *o;

	for (size_t i = 0; i < r->nrows; i++)
		json_array_append_new(rows, row_json(&r->rows[i], r->signature));
	for (size_t i = 0; i < r->candidates.n; i++)
		json_array_append_new(cand, json_string(r->candidates.v[i]));
	if (r->has_first) {
		first = json_object();
		put_str(first, "commit", r->first_commit);
		put_str(first, "subject", r->first_subject);
		put_str(first, "author", r->first_author);
		put_str(first, "date", r->first_date);
	}
	o = json_pack("{s:s, s:o, s:o, s:o, s:I, s:I, s:f, s:I, s:I}", "mode",
		      r->signature ? "signature" : "metric", "first", first, "candidates", cand,
		      "steps", rows, "builds", (json_int_t)r->builds, "vm_runs",
		      (json_int_t)r->vm_runs, "wall_s", r->wall_s, "range_commits",
		      (json_int_t)r->range_commits, "log2_range", (json_int_t)r->log2_range);
	put_str(o, "looked_for", r->looked_for);
	put_str(o, "confidence", r->confidence);
	put_str(o, "term", r->term);
	return o;
}

void bisect_result_release(struct bisect_result *r)
{
	free(r->looked_for);
	free(r->term);
	free(r->confidence);
	free(r->first_commit);
	free(r->first_subject);
	free(r->first_author);
	free(r->first_date);
	strlist_free(&r->candidates);
	bisect_rows_release(r->rows, r->nrows);
	memset(r, 0, sizeof(*r));
}

json_t *bisect_refusal_json(const char *why)
{
	return json_pack("{s:s}", "refused", why);
}

const char *bisect_refusal_why(const json_t *res)
{
	return json_string_value(json_object_get(res, "refused"));
}
