// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - a bisection's result and status for a terminal (docs/bisect.md,
 * "Result"); --json prints the same objects as they are.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/session.h"

static void print_table(FILE *f, json_t *rows, bool sig)
{
	json_t *r;
	size_t i;

	fprintf(f, "  %-5s %-12s %-40s %5s  %-22s %-7s %s\n", "role", "commit", "subject",
		sig ? "runs" : "n", sig ? "signature" : "mean ± 95% CI", "verdict", "why");
	json_array_foreach(rows, i, r) {
		char val[64] = "-";
		json_t *mean = json_object_get(r, "mean"), *ci = json_object_get(r, "ci95");

		if (sig)
			snprintf(val, sizeof(val), "in %lld",
				 (long long)json_integer_value(json_object_get(r, "met")));
		else if (json_is_number(mean))
			snprintf(val, sizeof(val), "%.6g ± %.3g", json_number_value(mean),
				 json_is_number(ci) ? json_number_value(ci) : 0.0);
		fprintf(f, "  %-5s %-12.12s %-40.40s %5lld  %-22s %-7s %s\n",
			json_string_value(json_object_get(r, "role")),
			json_string_value(json_object_get(r, "short")) ?:
				json_string_value(json_object_get(r, "commit")),
			json_string_value(json_object_get(r, "subject")) ?: "",
			(long long)json_integer_value(json_object_get(r, "iterations")), val,
			json_string_value(json_object_get(r, "verdict")) ?: "-",
			json_string_value(json_object_get(r, "why")) ?: "");
	}
}

static void print_first(FILE *f, json_t *res)
{
	json_t *first = json_object_get(res, "first"), *c;
	const char *term = json_string_value(json_object_get(res, "term"));
	size_t i;

	if (json_is_object(first)) {
		fprintf(f, "first %s commit: %s %s\n", term,
			json_string_value(json_object_get(first, "commit")),
			json_string_value(json_object_get(first, "subject")));
		fprintf(f, "  author %s, %s\n", json_string_value(json_object_get(first, "author")),
			json_string_value(json_object_get(first, "date")));
		return;
	}
	fprintf(f, "no single first %s commit: only skipped commits are left; it is one of:\n",
		term);
	json_array_foreach(json_object_get(res, "candidates"), i, c)
		fprintf(f, "  %s\n", json_string_value(c));
}

void bisect_print_result(FILE *f, json_t *res)
{
	double wall = json_number_value(json_object_get(res, "wall_s"));

	print_first(f, res);
	fprintf(f, "looked for: %s\n\n", json_string_value(json_object_get(res, "looked_for")));
	print_table(f, json_object_get(res, "steps"),
		    !strcmp(json_string_value(json_object_get(res, "mode")), "signature"));
	fprintf(f,
		"\n%lld kernel builds, %lld VM runs, %.0f min %.0f s building and running; "
		"%lld commits in the range, ceil(log2) = %lld\n",
		(long long)json_integer_value(json_object_get(res, "builds")),
		(long long)json_integer_value(json_object_get(res, "vm_runs")), floor(wall / 60),
		fmod(wall, 60),
		(long long)json_integer_value(json_object_get(res, "range_commits")),
		(long long)json_integer_value(json_object_get(res, "log2_range")));
	fprintf(f, "confidence: %s\n", json_string_value(json_object_get(res, "confidence")));
}

void bisect_print_status(FILE *f, const struct bisect_report *r)
{
	const struct bisect_params *p = &r->state.params;
	const char *progress = r->state.progress;
	json_t *st;
	size_t i;

	fprintf(f, "bisection of %s, %s: good %.12s, bad %.12s%s\n",
		p->metric ? p->metric : p->signature, p->tree ? p->tree : "a list of kernels",
		p->good, p->bad, p->reverse ? " (reverse: looking for the fix)" : "");
	fprintf(f, "status: %s\n", bisect_status_name(r->state.status));
	if (progress && strstr(progress, "Bisecting:")) {
		char *l = bisect_progress_line(progress);

		fprintf(f, "git: %s\n", l);
		free(l);
	}
	if (json_array_size(json_object_get(r->result, "steps"))) {
		fprintf(f, "\n");
		print_table(f, json_object_get(r->result, "steps"), p->signature != NULL);
	}
	json_array_foreach(r->steps, i, st) {
		json_t *statuses = json_object_get(json_object_get(st, "data"), "statuses");

		if (strcmp(json_string_value(json_object_get(st, "state")) ?: "", "done"))
			fprintf(f, "\nin progress: %s %.12s (%zu iterations so far)\n",
				json_string_value(json_object_get(st, "role")),
				json_string_value(json_object_get(st, "commit")),
				json_array_size(statuses));
	}
	if (r->state.status == BISECT_REFUSED)
		fprintf(f, "\nrefused: %s\n",
			json_string_value(json_object_get(r->state.result, "refused")));
}
