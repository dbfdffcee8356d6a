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
	json_t *an = json_object_get(t->state, "analysis");

	fprintf(f,
		"track %s: %zu kernels, %zu job%s; %lld series tested (%lld p-values), "
		"E-divisive seed %lld, Benjamini-Hochberg q = %g, minimum change %g%%\n",
		t->def.name, json_array_size(json_object_get(t->state, "points")), t->def.njobs,
		t->def.njobs == 1 ? "" : "s",
		(long long)json_integer_value(json_object_get(an, "series_tested")),
		(long long)json_integer_value(json_object_get(an, "family")),
		(long long)json_integer_value(json_object_get(an, "seed")), t->def.q,
		t->def.min_rel * 100);
}

static int report_text(struct track *t, FILE *f)
{
	json_t *nc, *entries = track_entries(t, &nc), *e;
	size_t i;

	write_header(t, f);
	fprintf(f, "%zu confirmed change%s, %zu not confirmed\n", json_array_size(entries),
		json_array_size(entries) == 1 ? "" : "s", json_array_size(nc));
	json_array_foreach(entries, i, e) {
		fputs("\n========================================================================"
		      "\n",
		      f);
		track_write_entry(t, e, f);
	}
	if (json_array_size(nc))
		fputs("\nnot confirmed (the change point was measured again and did not hold):\n",
		      f);
	json_array_foreach(nc, i, e) {
		json_t *x;
		size_t k;

		json_array_foreach(json_object_get(json_object_get(e, "confirm"), "tests"), k, x) {
			fprintf(f, "  %s %s: %.6g -> %.6g, n = %lld/%lld, Welch p = %.3g%s\n",
				json_string_value(json_object_get(e, "key")),
				json_string_value(json_object_get(x, "metric")),
				json_number_value(json_object_get(x, "mean_before")),
				json_number_value(json_object_get(x, "mean_after")),
				(long long)json_integer_value(json_object_get(x, "n_before")),
				(long long)json_integer_value(json_object_get(x, "n_after")),
				json_number_value(json_object_get(x, "p")),
				json_is_true(json_object_get(x, "agrees")) ? "" :
									     " (other direction)");
		}
	}
	json_decref(entries);
	json_decref(nc);
	return 0;
}

static int report_json(struct track *t, FILE *f)
{
	json_t *nc, *entries = track_entries(t, &nc);
	json_t *o = json_pack("{s:s, s:O?, s:o, s:o, s:I}", "track", t->def.name, "analysis",
			      json_object_get(t->state, "analysis"), "changes", entries,
			      "not_confirmed", nc, "kernels",
			      (json_int_t)json_array_size(json_object_get(t->state, "points")));

	json_dumpf(o, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(o);
	return 0;
}

int track_report(const struct track_env *env, const char *name, enum track_format fmt, FILE *f)
{
	struct track t;
	int ret;

	if (track_open(env, name, false, &t))
		return -1;
	if (!json_object_get(t.state, "analysis")) {
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
