// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - "mmlab track status" for a terminal: the kernels and their
 * runs, the change points found, the confirmations and bisections.
 */
#include <stdio.h>
#include <string.h>

#include "track/track.h"

static const char *js(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "-";
}

static void print_kernels(FILE *f, json_t *st)
{
	json_t *pts = json_object_get(st, "points"), *runs = json_object_get(st, "runs"), *pt, *job;
	size_t i, k;

	fprintf(f, "%-4s %-20s %-50s %s\n", "#", "KERNEL", "SUBJECT / SETTINGS", "RUNS");
	json_array_foreach(pts, i, pt) {
		json_t *set = json_object_get(pt, "set");
		char *what = json_object_get(pt, "subject") ?
				     strdup(js(pt, "subject")) :
				     json_dumps(set, JSON_COMPACT | JSON_SORT_KEYS);

		fprintf(f, "%-4zu %-20.20s %-50.50s", i + 1, js(pt, "label"), what ? what : "");
		free(what);
		json_array_foreach(json_object_get(st, "jobs"), k, job) {
			json_t *r = json_object_get(json_object_get(runs, js(pt, "id")),
						    json_string_value(job));

			fprintf(f, " %s:%s", json_string_value(job), r ? js(r, "status") : "-");
		}
		fputc('\n', f);
	}
}

static void print_changes(FILE *f, json_t *st)
{
	json_t *an = json_object_get(st, "analysis"), *c;
	json_t *conf = json_object_get(st, "confirm"), *bis = json_object_get(st, "bisect");
	size_t i;

	if (!an) {
		fprintf(f, "\nno analysis yet: the kernels are still being measured\n");
		return;
	}
	fprintf(f, "\nanalysis %s: %lld series tested, %lld change point(s) at q = %g\n",
		js(an, "when"), (long long)json_integer_value(json_object_get(an, "series_tested")),
		(long long)json_integer_value(json_object_get(an, "significant")),
		json_number_value(json_object_get(an, "q")));
	json_array_foreach(json_object_get(an, "candidates"), i, c) {
		char key[512];
		json_t *ce, *be;

		if (!json_is_true(json_object_get(c, "significant")))
			continue;
		snprintf(key, sizeof(key), "%s/%s..%s", js(c, "job"), js(c, "before"),
			 js(c, "after"));
		ce = json_object_get(conf, key);
		be = json_object_get(bis, key);
		fprintf(f, "  %s %s: %.6g -> %.6g (p %.3g, q %.3g); confirmation: %s", key,
			js(c, "metric"), json_number_value(json_object_get(c, "mean_before")),
			json_number_value(json_object_get(c, "mean_after")),
			json_number_value(json_object_get(c, "p")),
			json_number_value(json_object_get(c, "q")),
			ce ? js(ce, "status") : "pending");
		if (be)
			fprintf(f, "; bisection: %s%s%s", js(be, "status"),
				json_object_get(be, "first") ? ", first bad " : "",
				json_object_get(be, "first") ?
					js(json_object_get(be, "first"), "short") :
					"");
		fputc('\n', f);
	}
}

void track_print_status(FILE *f, json_t *st)
{
	json_t *n = json_object_get(st, "counts");

	fprintf(f, "track %s: %lld kernels; runs: %lld measured, %lld queued, %lld failed\n",
		js(st, "name"), (long long)json_integer_value(json_object_get(n, "kernels")),
		(long long)json_integer_value(json_object_get(n, "measured")),
		(long long)json_integer_value(json_object_get(n, "queued")),
		(long long)json_integer_value(json_object_get(n, "failed")));
	print_kernels(f, st);
	print_changes(f, st);
}
