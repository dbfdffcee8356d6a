// SPDX-License-Identifier: GPL-2.0
/*
 * report_html.c - "track report --format html": one self-contained file,
 * readable offline. The confirmed changes (regressions first) as the text
 * report gives them, then one small chart per watched series over the
 * kernels: the mean and its 95 % confidence interval per kernel, the
 * change points marked (solid: confirmed, dashed: significant but not
 * confirmed). The series that changed come first; constant series are
 * folded into one line. Every element goes through libxml2's writer
 * (analysis/report_xml.h), so names from runs and commits are escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_xml.h"
#include "lib/strbuf.h"
#include "track/report.h"

#define CH_W 360
#define CH_H 140
#define CH_L 64 /* left margin: the y axis labels */
#define CH_B 22

static const char css[] = "body{font-family:sans-serif;margin:1.5em;max-width:80em}"
			  "pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:85%}"
			  "h2{border-top:1px solid #ccc;padding-top:.5em}"
			  ".charts{display:flex;flex-wrap:wrap;gap:.8em}"
			  ".chart{border:1px solid #ddd;padding:.3em}"
			  ".chart p{margin:0;font-size:80%;font-family:monospace}"
			  ".folded{font-size:85%;color:#555}";

static char *entry_text(struct track *t, json_t *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return xstrdup("");
	track_write_entry(t, e, m);
	fclose(m);
	return buf;
}

/* the candidates of (job, metric) into marks: [[index in ids, confirmed?]] */
static json_t *marks_of(struct track *t, const char *job, const char *metric, json_t *ids)
{
	json_t *cands = json_object_get(json_object_get(t->state, "analysis"), "candidates");
	json_t *marks = json_array(), *c, *id;
	size_t i, k;

	json_array_foreach(cands, i, c) {
		const char *after = json_string_value(json_object_get(c, "after"));
		char *key;
		json_t *conf;

		if (!json_is_true(json_object_get(c, "significant")) ||
		    strcmp(json_string_value(json_object_get(c, "job")), job) ||
		    strcmp(json_string_value(json_object_get(c, "metric")), metric))
			continue;
		key = track_change_key(job, json_string_value(json_object_get(c, "before")), after);
		conf = json_object_get(json_object_get(t->state, "confirm"), key);
		free(key);
		json_array_foreach(ids, k, id) {
			if (!strcmp(json_string_value(id), after))
				json_array_append_new(
					marks,
					json_pack(
						"[I, b]", (json_int_t)k,
						!strcmp(json_string_value(json_object_get(conf, "status")) ?:
								"",
							"confirmed")));
		}
	}
	return marks;
}

static bool constant(json_t *vals)
{
	double first = NAN;
	json_t *v;
	size_t i;

	json_array_foreach(vals, i, v) {
		double x = json_number_value(json_array_get(v, 0));

		if (!json_is_array(v))
			continue;
		if (isnan(first))
			first = x;
		else if (x != first)
			return false;
	}
	return true;
}

static void range_of(json_t *vals, double *lo, double *hi)
{
	json_t *v;
	size_t i;

	*lo = INFINITY;
	*hi = -INFINITY;
	json_array_foreach(vals, i, v) {
		double m = json_number_value(json_array_get(v, 0));
		double h = json_is_number(json_array_get(v, 1)) ?
				   json_number_value(json_array_get(v, 1)) :
				   0;

		if (!json_is_array(v))
			continue;
		*lo = fmin(*lo, m - h);
		*hi = fmax(*hi, m + h);
	}
	if (*hi <= *lo) {
		*hi += fabs(*hi) * 0.05 + 1;
		*lo -= fabs(*lo) * 0.05 + 1;
	}
}

static void chart(xmlTextWriterPtr w, const char *job, const char *metric, json_t *vals,
		  json_t *ids, json_t *marks)
{
	size_t n = json_array_size(ids), i;
	double lo, hi, dx = n > 1 ? (double)(CH_W - CH_L - 8) / (double)(n - 1) : 0;
	char lab[64], *title = xasprintf("%s: %s", job, metric);
	json_t *v, *mk;

#define X(k) (CH_L + dx * (double)(k))
#define Y(y) (CH_H - CH_B - ((y)-lo) / (hi - lo) * (CH_H - CH_B - 8))
	range_of(vals, &lo, &hi);
	rep_el(w, "div");
	rep_attr(w, "class", "chart");
	rep_text_el(w, "p", NULL, title);
	rep_svg_open(w, "series", CH_W, CH_H, title, metric);
	snprintf(lab, sizeof(lab), "%.4g", hi);
	rep_svg_text(w, CH_L - 4, 12, "end", lab);
	snprintf(lab, sizeof(lab), "%.4g", lo);
	rep_svg_text(w, CH_L - 4, CH_H - CH_B, "end", lab);
	rep_svg_line(w, CH_L, CH_H - CH_B, CH_W - 4, CH_H - CH_B, "#999");
	json_array_foreach(marks, i, mk) {
		double x = X((double)json_integer_value(json_array_get(mk, 0)) - 0.5);

		rep_el(w, "line");
		rep_attr(w, "x1", "%.1f", x);
		rep_attr(w, "x2", "%.1f", x);
		rep_attr(w, "y1", "4");
		rep_attr(w, "y2", "%d", CH_H - CH_B);
		rep_attr(w, "stroke", "%s", COLOR_WORSE);
		if (!json_is_true(json_array_get(mk, 1)))
			rep_attr(w, "stroke-dasharray", "4 3");
		rep_end(w);
	}
	json_array_foreach(vals, i, v) {
		double m = json_number_value(json_array_get(v, 0));
		json_t *h = json_array_get(v, 1);

		if (!json_is_array(v))
			continue;
		if (json_is_number(h))
			rep_svg_line(w, X(i), Y(m - json_number_value(h)), X(i),
				     Y(m + json_number_value(h)), COLOR_NEUTRAL);
		rep_el(w, "circle");
		rep_attr(w, "cx", "%.1f", X(i));
		rep_attr(w, "cy", "%.1f", Y(m));
		rep_attr(w, "r", "2.5");
		rep_attr(w, "fill", "%s", COLOR_NEUTRAL);
		rep_end(w);
	}
	snprintf(lab, sizeof(lab), "%zu kernels", n);
	rep_svg_text(w, CH_L, CH_H - 6, "start", lab);
	rep_end(w); /* svg */
	rep_end(w); /* div */
	free(title);
#undef X
#undef Y
}

static void series_section(struct track *t, xmlTextWriterPtr w)
{
	struct strbuf folded = STRBUF_INIT;
	size_t nfolded = 0;

	rep_text_el(w, "h2", NULL, "Series");
	for (int pass = 0; pass < 2; pass++) {
		rep_el(w, "div");
		rep_attr(w, "class", "charts");
		for (size_t j = 0; j < t->def.njobs; j++) {
			json_t *ids = json_array(), *stats = json_object(), *vals, *marks;
			json_t *means = track_job_series(t, j, ids, stats);
			const char *m;

			json_object_foreach(stats, m, vals) {
				marks = marks_of(t, t->def.jobs[j].name, m, ids);
				if (pass == 0 && json_array_size(marks))
					chart(w, t->def.jobs[j].name, m, vals, ids, marks);
				else if (pass == 1 && !json_array_size(marks) && !constant(vals))
					chart(w, t->def.jobs[j].name, m, vals, ids, marks);
				else if (pass == 1 && constant(vals))
					strbuf_addf(&folded, "%s%s: %s", nfolded++ ? ", " : "",
						    t->def.jobs[j].name, m);
				json_decref(marks);
			}
			json_decref(means);
			json_decref(stats);
			json_decref(ids);
		}
		rep_end(w);
	}
	if (nfolded) {
		char *line = xasprintf("%zu constant series: %s", nfolded, folded.buf);

		rep_text_el(w, "p", "folded", line);
		free(line);
	}
	strbuf_release(&folded);
}

static void body(struct track *t, xmlTextWriterPtr w)
{
	json_t *nc, *entries = track_entries(t, &nc), *e;
	json_t *an = json_object_get(t->state, "analysis");
	char *head =
		xasprintf("%zu kernels, %zu jobs; %lld series tested; E-divisive seed %lld; "
			  "Benjamini-Hochberg q = %g; %zu confirmed changes, %zu not confirmed",
			  json_array_size(json_object_get(t->state, "points")), t->def.njobs,
			  (long long)json_integer_value(json_object_get(an, "series_tested")),
			  (long long)json_integer_value(json_object_get(an, "seed")), t->def.q,
			  json_array_size(entries), json_array_size(nc));
	size_t i;

	rep_text_el(w, "p", NULL, head);
	free(head);
	json_array_foreach(entries, i, e) {
		char *text = entry_text(t, e);

		rep_text_el(w, "h2", NULL, json_string_value(json_object_get(e, "subject")));
		rep_text_el(w, "pre", NULL, text);
		free(text);
	}
	if (json_array_size(nc)) {
		rep_text_el(w, "h2", NULL, "Not confirmed");
		rep_el(w, "ul");
		json_array_foreach(nc, i, e) {
			rep_text_el(w, "li", NULL, json_string_value(json_object_get(e, "key")));
		}
		rep_end(w);
	}
	series_section(t, w);
	json_decref(entries);
	json_decref(nc);
}

int track_report_html(struct track *t, FILE *f)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	char *title = xasprintf("mmlab track %s", t->def.name);

	if (!w) {
		if (buf)
			xmlBufferFree(buf);
		free(title);
		lab_err("out of memory writing the HTML report");
		return -1;
	}
	rep_el(w, "html");
	rep_el(w, "head");
	rep_el(w, "meta");
	rep_attr(w, "charset", "utf-8");
	rep_end(w);
	rep_text_el(w, "title", NULL, title);
	rep_text_el(w, "style", NULL, css);
	rep_end(w);
	rep_el(w, "body");
	rep_text_el(w, "h1", NULL, title);
	body(t, w);
	rep_end(w);
	rep_end(w);
	xmlTextWriterEndDocument(w);
	xmlFreeTextWriter(w);
	fputs("<!DOCTYPE html>\n", f);
	fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), f);
	fputc('\n', f);
	xmlBufferFree(buf);
	free(title);
	return 0;
}
