// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - "mmlab track status" for a terminal: the kernels and their
 * runs, the change points found, the confirmations and bisections.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "track/state.h"
#include "track/track.h"

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void print_kernels(FILE *f, struct track_state *st, char **jobs, size_t njobs)
{
	fprintf(f, "%-4s %-20s %-50s %s\n", "#", "KERNEL", "SUBJECT / SETTINGS", "RUNS");
	for (size_t i = 0; i < st->npoints; i++) {
		struct track_point *pt = &st->points[i];
		char *what = pt->subject ? strdup(pt->subject) :
					   json_dumps(pt->set, JSON_COMPACT | JSON_SORT_KEYS);

		fprintf(f, "%-4zu %-20.20s %-50.50s", i + 1, or_dash(pt->label), what ? what : "");
		free(what);
		for (size_t k = 0; k < njobs; k++) {
			const struct track_slot *r = track_point_slot(pt, jobs[k]);

			fprintf(f, " %s:%s", jobs[k], r ? or_dash(r->status) : "-");
		}
		fputc('\n', f);
	}
}

static void print_change(FILE *f, struct track_state *st, const struct track_cand *c)
{
	char key[512];
	const struct track_confirmation *ce;
	const struct track_bisection *be;

	snprintf(key, sizeof(key), "%s/%s..%s", c->job, c->before, c->after);
	ce = track_state_confirm(st, key);
	be = track_state_bisect(st, key);
	fprintf(f, "  %s %s: %.6g -> %.6g (p %.3g, q %.3g); confirmation: %s", key, c->metric,
		track_or0(c->mean_before), track_or0(c->mean_after), track_or0(c->p),
		track_or0(c->q), ce ? or_dash(ce->status) : "pending");
	if (be)
		fprintf(f, "; bisection: %s%s%s", or_dash(be->status),
			be->has_first ? ", first bad " : "",
			be->has_first ? or_dash(be->first.shortc) : "");
	fputc('\n', f);
}

static void print_changes(FILE *f, struct track_state *st)
{
	const struct track_analysis *an = &st->analysis;

	if (!an->present) {
		fprintf(f, "\nno analysis yet: the kernels are still being measured\n");
		return;
	}
	fprintf(f, "\nanalysis %s: %lld series tested, %lld change point(s) at q = %g\n",
		or_dash(an->when), (long long)an->series_tested, (long long)an->significant,
		track_or0(an->q));
	for (size_t i = 0; i < an->ncands; i++)
		if (an->cands[i].significant)
			print_change(f, st, &an->cands[i]);
}

void track_print_status(FILE *f, json_t *status)
{
	struct track_state st;
	unsigned int n[3] = { 0, 0, 0 };
	static const char *const names[] = { "measured", "queued", "failed" };
	char **jobs, err[256];
	size_t njobs;

	if (track_status_from_json(status, &st, &jobs, &njobs, err, sizeof(err))) {
		lab_err("track status: %s", err);
		return;
	}
	for (size_t i = 0; i < st.npoints; i++)
		for (size_t k = 0; k < st.points[i].nslots; k++)
			for (size_t s = 0; s < 3; s++)
				n[s] += !strcmp(st.points[i].slots[k].status ?: "", names[s]);
	fprintf(f, "track %s: %zu kernels; runs: %u measured, %u queued, %u failed\n",
		or_dash(st.name), st.npoints, n[0], n[1], n[2]);
	print_kernels(f, &st, jobs, njobs);
	print_changes(f, &st);
	for (size_t i = 0; i < njobs; i++)
		free(jobs[i]);
	free(jobs);
	track_state_release(&st);
}
