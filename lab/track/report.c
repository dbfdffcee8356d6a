// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - "mmlab track report": one entry per confirmed change, in the
 * layout linux-mm reads a robot's mail in (docs/track.md, "The report"):
 * the subject "[mmlab] BRANCH SHA12: METRIC -12.3% regression", the first
 * bad commit, the job, topology and kernel config, the comparison of the
 * kernels around the change as "mmlab compare" prints it, the other
 * metrics that changed at the same commit, and the commands that
 * reproduce it. Text, JSON, one self-contained HTML file with a chart per
 * changed series, and mbox (one message per regression; mmlab sends none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/report.h"

static void write_header(struct track *t, FILE *f)
{
	const struct track_analysis *an = &t->state.analysis;

	fprintf(f,
		"track %s: %zu kernels, %zu job%s; %lld series tested (%lld p-values), "
		"E-divisive seed %lld, Benjamini-Hochberg q = %g, minimum change %g%%\n",
		t->def.name, t->state.npoints, t->def.njobs, t->def.njobs == 1 ? "" : "s",
		(long long)an->series_tested, (long long)an->family, (long long)an->seed, t->def.q,
		t->def.min_rel * 100);
}

static void write_not_confirmed(const struct track_confirmation *e, FILE *f)
{
	for (size_t k = 0; k < e->ntests; k++) {
		const struct track_test *x = &e->tests[k];

		fprintf(f, "  %s %s: %.6g -> %.6g, n = %lld/%lld, Welch p = %.3g%s\n", e->key,
			x->metric, track_or0(x->mean_before), track_or0(x->mean_after),
			(long long)x->n_before, (long long)x->n_after, track_or0(x->p),
			x->agrees ? "" : " (other direction)");
	}
}

static int report_text(struct track *t, FILE *f)
{
	struct track_entry_list es;

	track_entries(t, &es);
	write_header(t, f);
	fprintf(f, "%zu confirmed change%s, %zu not confirmed\n", es.n, es.n == 1 ? "" : "s",
		es.nnc);
	for (size_t i = 0; i < es.n; i++) {
		fputs("\n========================================================================"
		      "\n",
		      f);
		track_write_entry(t, &es.v[i], f);
	}
	if (es.nnc)
		fputs("\nnot confirmed (the change point was measured again and did not hold):\n",
		      f);
	for (size_t i = 0; i < es.nnc; i++)
		write_not_confirmed(es.nc[i], f);
	track_entries_release(&es);
	return 0;
}

/* an entry as the JSON report gives it (a new reference) */
static json_t *entry_json(const struct track_entry *e)
{
	json_t *o = json_pack("{s:s, s:o, s:o?}", "key", e->key, "confirm",
			      track_confirm_to_json(e->confirm), "bisect",
			      e->bisect ? track_bisect_to_json(e->bisect) : NULL);
	json_t *same = json_array();

	if (e->change_point)
		json_object_set_new(o, "change_point", track_cand_to_json(e->change_point));
	for (size_t i = 0; i < e->nsame; i++)
		json_array_append_new(same, track_cand_to_json(e->same[i]));
	json_object_set_new(o, "same_commit", same);
	if (e->primary)
		json_object_set_new(o, "primary", track_test_to_json(e->primary));
	json_object_set_new(o, "subject", json_string(e->subject));
	return o;
}

static int report_json(struct track *t, FILE *f)
{
	json_t *changes = json_array(), *nc = json_array(), *o;
	struct track_entry_list es;

	track_entries(t, &es);
	for (size_t i = 0; i < es.n; i++)
		json_array_append_new(changes, entry_json(&es.v[i]));
	for (size_t i = 0; i < es.nnc; i++)
		json_array_append_new(nc, json_pack("{s:s, s:o}", "key", es.nc[i]->key, "confirm",
						    track_confirm_to_json(es.nc[i])));
	o = json_pack("{s:s, s:o?, s:o, s:o, s:I}", "track", t->def.name, "analysis",
		      t->state.analysis.present ? track_analysis_to_json(&t->state.analysis) : NULL,
		      "changes", changes, "not_confirmed", nc, "kernels",
		      (json_int_t)t->state.npoints);
	json_dumpf(o, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(o);
	track_entries_release(&es);
	return 0;
}

int track_report(const struct track_env *env, const char *name, enum track_format fmt, FILE *f)
{
	struct track t;
	int ret;

	if (track_open(env, name, false, &t))
		return -1;
	if (!t.state.analysis.present) {
		lab_err("track %s has not been analysed yet; run 'mmlab track run %s' first", name,
			name);
		track_close(&t);
		return -1;
	}
	switch (fmt) {
	case TRACK_JSON:
		ret = report_json(&t, f);
		break;
	case TRACK_HTML:
		ret = track_report_html(&t, f);
		break;
	case TRACK_MBOX:
		ret = track_report_mbox(&t, f);
		break;
	default:
		ret = report_text(&t, f);
	}
	track_close(&t);
	return ret;
}
