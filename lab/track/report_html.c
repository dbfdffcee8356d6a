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
#define CH_L 72 /* left margin: the y axis labels */
#define CH_B 22

static const char css[] = "body{font-family:sans-serif;margin:1.5em;max-width:80em}"
			  "pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:85%}"
			  "h2{border-top:1px solid #ccc;padding-top:.5em}"
			  ".charts{display:flex;flex-wrap:wrap;gap:.8em}"
			  ".chart{border:1px solid #ddd;padding:.3em}"
			  ".chart p{margin:0;font-size:80%;font-family:monospace}"
			  ".folded{font-size:85%;color:#555}";

static char *entry_text(struct track *t, const struct track_entry *e)
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

/* a change point on a chart: the index of its kernel after, confirmed or not */
struct mark {
	size_t k;
	bool confirmed;
};

/* the significant candidates of (job, metric) as marks (*n of them) */
static struct mark *marks_of(struct track *t, const char *job, const char *metric,
			     const struct track_series_set *js, size_t *n)
{
	const struct track_analysis *an = &t->state.analysis;
	struct mark *marks = NULL;

	*n = 0;
	for (size_t i = 0; i < an->ncands; i++) {
		const struct track_cand *c = &an->cands[i];
		const struct track_confirmation *conf;
		char *key;

		if (!c->significant || strcmp(c->job, job) || strcmp(c->metric, metric))
			continue;
		key = track_change_key(job, c->before, c->after);
		conf = track_state_confirm(&t->state, key);
		free(key);
		for (size_t k = 0; k < js->nids; k++) {
			if (strcmp(js->ids[k], c->after))
				continue;
			marks = xrealloc(marks, (*n + 1) * sizeof(*marks));
			marks[(*n)++] = (struct mark){ k, conf && !strcmp(conf->status ?: "",
									  "confirmed") };
		}
	}
	return marks;
}

static bool constant(const struct track_series *s, size_t n)
{
	double first = NAN;

	for (size_t i = 0; i < n; i++) {
		if (!s->cells[i].has)
			continue;
		if (isnan(first))
			first = s->cells[i].mean;
		else if (s->cells[i].mean != first)
			return false;
	}
	return true;
}

/*
 * The y range: the means' with a margin (a 95 % interval of n = 2 spans
 * 25 standard deviations and would flatten every series); intervals
 * beyond it are cut at the edge.
 */
static void range_of(const struct track_series *s, size_t n, double *lo, double *hi)
{
	double pad;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!s->cells[i].has)
			continue;
		*lo = fmin(*lo, s->cells[i].mean);
		*hi = fmax(*hi, s->cells[i].mean);
	}
	pad = fmax((*hi - *lo) * 0.25, fabs(*hi) * 0.02);
	if (!(pad > 0))
		pad = 1;
	*lo -= pad;
	*hi += pad;
}

static double clamp(double y, double lo, double hi)
{
	return y < lo ? lo : y > hi ? hi : y;
}

static void chart(xmlTextWriterPtr w, const char *job, const struct track_series *s,
		  const struct track_series_set *js, const struct mark *marks, size_t nmarks)
{
	size_t n = js->nids;
	double lo, hi, dx = n > 1 ? (double)(CH_W - CH_L - 8) / (double)(n - 1) : 0;
	char lab[64], *title = xasprintf("%s: %s", job, s->metric);

#define X(k) (CH_L + dx * (double)(k))
#define Y(y) (CH_H - CH_B - ((y)-lo) / (hi - lo) * (CH_H - CH_B - 8))
	range_of(s, n, &lo, &hi);
	rep_el(w, "div");
	rep_attr(w, "class", "chart");
	rep_text_el(w, "p", NULL, title);
	rep_svg_open(w, "series", CH_W, CH_H, title, s->metric);
	snprintf(lab, sizeof(lab), "%.3g", hi);
	rep_svg_text(w, CH_L - 4, 12, "end", lab);
	snprintf(lab, sizeof(lab), "%.3g", lo);
	rep_svg_text(w, CH_L - 4, CH_H - CH_B, "end", lab);
	rep_svg_line(w, CH_L, CH_H - CH_B, CH_W - 4, CH_H - CH_B, "#999");
	for (size_t i = 0; i < nmarks; i++) {
		double x = X((double)marks[i].k - 0.5);

		rep_el(w, "line");
		rep_attr(w, "x1", "%.1f", x);
		rep_attr(w, "x2", "%.1f", x);
		rep_attr(w, "y1", "4");
		rep_attr(w, "y2", "%d", CH_H - CH_B);
		rep_attr(w, "stroke", "%s", COLOR_WORSE);
		if (!marks[i].confirmed)
			rep_attr(w, "stroke-dasharray", "4 3");
		rep_end(w);
	}
	for (size_t i = 0; i < n; i++) {
		const struct track_cell *c = &s->cells[i];

		if (!c->has)
			continue;
		if (isfinite(c->hw))
			rep_svg_line(w, X(i), Y(clamp(c->mean - c->hw, lo, hi)), X(i),
				     Y(clamp(c->mean + c->hw, lo, hi)), COLOR_NEUTRAL);
		rep_el(w, "circle");
		rep_attr(w, "cx", "%.1f", X(i));
		rep_attr(w, "cy", "%.1f", Y(c->mean));
		rep_attr(w, "r", "2.5");
		rep_attr(w, "fill", "%s", COLOR_NEUTRAL);
		rep_end(w);
	}
	rep_svg_text(w, CH_L, CH_H - 6, "start", n ? js->ids[0] : NULL);
	snprintf(lab, sizeof(lab), "%zu kernels", n);
	rep_svg_text(w, (CH_L + CH_W) / 2.0, CH_H - 6, "middle", lab);
	rep_svg_text(w, CH_W - 4, CH_H - 6, "end", n ? js->ids[n - 1] : NULL);
	rep_end(w); /* svg */
	rep_end(w); /* div */
	free(title);
#undef X
#undef Y
}

/* the charts of job j's series: pass 0 those with a change, 1 the others */
static void job_charts(struct track *t, xmlTextWriterPtr w, size_t j, int pass,
		       struct strbuf *folded, size_t *nfolded)
{
	const char *job = t->def.jobs[j].name;
	struct track_series_set js;

	track_job_series(t, j, &js);
	for (size_t m = 0; m < js.nseries; m++) {
		const struct track_series *s = &js.series[m];
		size_t nmarks;
		struct mark *marks = marks_of(t, job, s->metric, &js, &nmarks);

		if (pass == 0 && nmarks)
			chart(w, job, s, &js, marks, nmarks);
		else if (pass == 1 && !nmarks && !constant(s, js.nids))
			chart(w, job, s, &js, marks, nmarks);
		else if (pass == 1 && constant(s, js.nids))
			strbuf_addf(folded, "%s%s: %s", (*nfolded)++ ? ", " : "", job, s->metric);
		free(marks);
	}
	track_job_series_release(&js);
}

static void series_section(struct track *t, xmlTextWriterPtr w)
{
	struct strbuf folded = STRBUF_INIT;
	size_t nfolded = 0;

	rep_text_el(w, "h2", NULL, "Series");
	for (int pass = 0; pass < 2; pass++) {
		rep_el(w, "div");
		rep_attr(w, "class", "charts");
		for (size_t j = 0; j < t->def.njobs; j++)
			job_charts(t, w, j, pass, &folded, &nfolded);
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
	const struct track_analysis *an = &t->state.analysis;
	struct track_entry_list es;
	char *head;

	track_entries(t, &es);
	head = xasprintf("%zu kernels, %zu jobs; %lld series tested; E-divisive seed %lld; "
			 "Benjamini-Hochberg q = %g; %zu confirmed changes, %zu not confirmed",
			 t->state.npoints, t->def.njobs, (long long)an->series_tested,
			 (long long)an->seed, t->def.q, es.n, es.nnc);
	rep_text_el(w, "p", NULL, head);
	free(head);
	for (size_t i = 0; i < es.n; i++) {
		char *text = entry_text(t, &es.v[i]);

		rep_text_el(w, "h2", NULL, es.v[i].subject);
		rep_text_el(w, "pre", NULL, text);
		free(text);
	}
	if (es.nnc) {
		rep_text_el(w, "h2", NULL, "Not confirmed");
		rep_el(w, "ul");
		for (size_t i = 0; i < es.nnc; i++)
			rep_text_el(w, "li", NULL, es.nc[i]->key);
		rep_end(w);
	}
	series_section(t, w);
	track_entries_release(&es);
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
