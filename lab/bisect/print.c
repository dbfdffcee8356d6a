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

static void print_table(FILE *f, const struct bisect_row *rows, size_t n, bool sig)
{
	fprintf(f, "  %-5s %-12s %-40s %5s  %-22s %-7s %s\n", "role", "commit", "subject",
		sig ? "runs" : "n", sig ? "signature" : "mean ± 95% CI", "verdict", "why");
	for (size_t i = 0; i < n; i++) {
		const struct bisect_row *r = &rows[i];
		char val[64] = "-";

		if (sig)
			snprintf(val, sizeof(val), "in %u", r->met);
		else if (r->has_mean)
			snprintf(val, sizeof(val), "%.6g ± %.3g", r->mean,
				 isnan(r->ci95) ? 0.0 : r->ci95);
		fprintf(f, "  %-5s %-12.12s %-40.40s %5u  %-22s %-7s %s\n", r->role ?: "(null)",
			r->short_id	  ?:
				r->commit ?:
					    "(null)",
			r->subject ?: "", r->iterations, val, r->verdict ?: "-", r->why ?: "");
	}
}

static void print_first(FILE *f, const struct bisect_result *r)
{
	const char *term = r->term ?: "(null)";

	if (r->has_first) {
		fprintf(f, "first %s commit: %s %s\n", term, r->first_commit ?: "(null)",
			r->first_subject ?: "(null)");
		fprintf(f, "  author %s, %s\n", r->first_author ?: "(null)",
			r->first_date ?: "(null)");
		return;
	}
	fprintf(f, "no single first %s commit: only skipped commits are left; it is one of:\n",
		term);
	for (size_t i = 0; i < r->candidates.n; i++)
		fprintf(f, "  %s\n", r->candidates.v[i]);
}

void bisect_print_result(FILE *f, const struct bisect_result *r)
{
	double wall = r->wall_s;

	print_first(f, r);
	fprintf(f, "looked for: %s\n\n", r->looked_for ?: "(null)");
	print_table(f, r->rows, r->nrows, r->signature);
	fprintf(f,
		"\n%lld kernel builds, %lld VM runs, %.0f min %.0f s building and running; "
		"%lld commits in the range, ceil(log2) = %lld\n",
		r->builds, r->vm_runs, floor(wall / 60), fmod(wall, 60), r->range_commits,
		r->log2_range);
	fprintf(f, "confidence: %s\n", r->confidence ?: "(null)");
}

void bisect_print_status(FILE *f, const struct bisect_report *r)
{
	const struct bisect_params *p = &r->state.params;
	const char *progress = r->state.progress;

	fprintf(f, "bisection of %s, %s: good %.12s, bad %.12s%s\n",
		p->metric ? p->metric : p->signature, p->tree ? p->tree : "a list of kernels",
		p->good, p->bad, p->reverse ? " (reverse: looking for the fix)" : "");
	fprintf(f, "status: %s\n", bisect_status_name(r->state.status));
	if (progress && strstr(progress, "Bisecting:")) {
		char *l = bisect_progress_line(progress);

		fprintf(f, "git: %s\n", l);
		free(l);
	}
	if (r->has_result && r->result.nrows) {
		fprintf(f, "\n");
		print_table(f, r->result.rows, r->result.nrows, p->signature != NULL);
	}
	for (size_t i = 0; i < r->rows.n; i++) {
		const struct bstore_step *st = &r->rows.v[i];

		if (!bstore_step_is(st, NULL, "done"))
			fprintf(f, "\nin progress: %s %.12s (%zu iterations so far)\n",
				st->role ?: "(null)", st->commit ?: "(null)", st->d.statuses.n);
	}
	if (r->state.status == BISECT_REFUSED)
		fprintf(f, "\nrefused: %s\n", bisect_refusal_why(r->state.result));
}
