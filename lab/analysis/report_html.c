// SPDX-License-Identifier: GPL-2.0
/*
 * report_html.c - the comparison as one self-contained HTML page: the
 * table with p-values and confidence intervals, an SVG box plot per metric
 * (one <svg class="box"> each) and the 1 Hz time series per variant when the
 * run has them (<svg class="ts">). Written with libxml2's xmlTextWriter so
 * every name and value is escaped. No external assets, no script.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <libxml/xmlwriter.h>

#include "analysis/compare.h"

#define SVG_NS "http://www.w3.org/2000/svg"
#define PLOT_W 640
#define PLOT_LEFT 170
#define PLOT_RIGHT 20
#define ROW_H 26
#define TS_H 180
#define TS_MAX_SERIES 16

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td.m,th.m{text-align:left;font-family:monospace}"
	"td.sig{background:#e6f4e6}td.sig div.v{font-weight:bold}"
	"div.v{white-space:nowrap}div.st{white-space:nowrap;font-size:11px;color:#666}"
	".warn{color:#a40}.plot{margin:1em 0}"
	"svg text{font-size:11px;font-family:sans-serif}";

static void el(xmlTextWriterPtr w, const char *name)
{
	xmlTextWriterStartElement(w, BAD_CAST name);
}

static void end(xmlTextWriterPtr w)
{
	xmlTextWriterFullEndElement(w);
}

static void attr(xmlTextWriterPtr w, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void attr(xmlTextWriterPtr w, const char *k, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	xmlTextWriterWriteAttribute(w, BAD_CAST k, BAD_CAST(s ? s : ""));
	free(s);
}

static void text_el(xmlTextWriterPtr w, const char *name, const char *cls,
		    const char *text)
{
	el(w, name);
	if (cls)
		attr(w, "class", "%s", cls);
	xmlTextWriterWriteString(w, BAD_CAST text);
	end(w);
}

static void svg_text(xmlTextWriterPtr w, double x, double y,
		     const char *anchor, const char *text)
{
	el(w, "text");
	attr(w, "x", "%.1f", x);
	attr(w, "y", "%.1f", y);
	attr(w, "text-anchor", "%s", anchor);
	xmlTextWriterWriteString(w, BAD_CAST text);
	end(w);
}

static void svg_line(xmlTextWriterPtr w, double x1, double y1, double x2,
		     double y2, const char *color)
{
	el(w, "line");
	attr(w, "x1", "%.1f", x1);
	attr(w, "y1", "%.1f", y1);
	attr(w, "x2", "%.1f", x2);
	attr(w, "y2", "%.1f", y2);
	attr(w, "stroke", "%s", color);
	end(w);
}

static void fmt_value(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.6g", v);
}

/* axis labels: four significant digits are plenty */
static void fmt_axis(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e4 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);	/* 72457, not 7.246e+04 */
	else
		snprintf(buf, len, "%.4g", v);
}

/* ---- table ---- */

/* one cell: "mean (n=N) pct% *" and below it, smaller, p, q and the CI */
static void table_cell(xmlTextWriterPtr w, const struct comparison *c,
		       const struct cmp_metric *m, size_t j)
{
	const struct cmp_cell *e = &m->cells[j];
	char num[64], *head, *stat = NULL;

	fmt_value(num, sizeof(num), cmp_mean_value(m, e));
	el(w, "td");
	if (e->significant)
		attr(w, "class", "sig");
	if (j == c->baseline || isnan(e->pct))
		head = xasprintf("%s (n=%zu)%s", num, e->s.n, e->significant ? " *" : "");
	else
		head = xasprintf("%s (n=%zu) %.2f%%%s", num, e->s.n, e->pct,
				 e->significant ? " *" : "");
	if (j == c->baseline)
		stat = NULL;
	else if (!e->t.valid)
		stat = xasprintf("no test: %s", e->t.why);
	else if (isnan(e->pct) || !isfinite(e->ci_low) || !isfinite(e->ci_high))
		stat = xasprintf("p=%.3g q=%.3g CI unbounded", e->t.p, e->q);
	else
		stat = xasprintf("p=%.3g q=%.3g CI [%.2f%%, %.2f%%]", e->t.p, e->q,
				 e->ci_low, e->ci_high);
	text_el(w, "div", "v", head);
	if (stat)
		text_el(w, "div", "st", stat);
	free(head);
	free(stat);
	end(w);
}

static void write_table(xmlTextWriterPtr w, const struct comparison *c)
{
	el(w, "table");
	el(w, "tr");
	text_el(w, "th", "m", "metric");
	text_el(w, "th", NULL, "");
	for (size_t j = 0; j < c->nvars; j++)
		text_el(w, "th", NULL, c->vars[j].name);
	end(w);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		el(w, "tr");
		text_el(w, "td", "m", m->name);
		text_el(w, "td", NULL, cmp_mean_label(m));
		for (size_t j = 0; j < c->nvars; j++)
			table_cell(w, c, m, j);
		end(w);
	}
	end(w);
}

/* ---- box plots ---- */

static double xpos(double v, double lo, double hi)
{
	return PLOT_LEFT + (v - lo) / (hi - lo) * (PLOT_W - PLOT_LEFT - PLOT_RIGHT);
}

static void range_of(const struct cmp_metric *m, size_t nvars, double *lo,
		     double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t j = 0; j < nvars; j++) {
		if (!m->cells[j].s.n)
			continue;
		*lo = fmin(*lo, m->cells[j].s.min);
		*hi = fmax(*hi, m->cells[j].s.max);
	}
	if (*hi <= *lo) {
		double pad = *lo != 0 ? fabs(*lo) * 0.05 : 1;

		*lo -= pad;
		*hi += pad;
	}
}

static void box_row(xmlTextWriterPtr w, const struct cmp_cell *e, size_t j,
		    double lo, double hi, double y)
{
	const char *col = palette[j % ARRAY_SIZE(palette)];
	double *v = xmalloc((e->n ? e->n : 1) * sizeof(*v));
	double q1, med, q3;
	size_t k = 0;

	for (size_t i = 0; i < e->n; i++)
		if (isfinite(e->v[i]))
			v[k++] = e->v[i];
	gsl_sort(v, 1, k);
	q1 = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.25);
	med = gsl_stats_median_from_sorted_data(v, 1, k);
	q3 = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.75);
	svg_line(w, xpos(v[0], lo, hi), y, xpos(v[k - 1], lo, hi), y, col);
	el(w, "rect");
	attr(w, "x", "%.1f", xpos(q1, lo, hi));
	attr(w, "y", "%.1f", y - 8);
	attr(w, "width", "%.1f", fmax(xpos(q3, lo, hi) - xpos(q1, lo, hi), 1));
	attr(w, "height", "16");
	attr(w, "fill", "%s", col);
	attr(w, "fill-opacity", "0.25");
	attr(w, "stroke", "%s", col);
	end(w);
	svg_line(w, xpos(med, lo, hi), y - 8, xpos(med, lo, hi), y + 8, col);
	for (size_t i = 0; i < k; i++) {
		el(w, "circle");
		attr(w, "cx", "%.1f", xpos(v[i], lo, hi));
		attr(w, "cy", "%.1f", y);
		attr(w, "r", "2");
		attr(w, "fill", "%s", col);
		end(w);
	}
	free(v);
}

static void box_plot(xmlTextWriterPtr w, const struct comparison *c,
		     const struct cmp_metric *m)
{
	int h = (int)c->nvars * ROW_H + 30;
	double lo, hi;
	char a[64], b[64];

	range_of(m, c->nvars, &lo, &hi);
	el(w, "div");
	attr(w, "class", "plot");
	text_el(w, "h3", NULL, m->name);
	el(w, "svg");
	attr(w, "xmlns", SVG_NS);
	attr(w, "class", "box");
	attr(w, "data-metric", "%s", m->name);
	attr(w, "width", "%d", PLOT_W);
	attr(w, "height", "%d", h);
	attr(w, "viewBox", "0 0 %d %d", PLOT_W, h);
	for (size_t j = 0; j < c->nvars; j++) {
		double y = 14 + (double)j * ROW_H;

		svg_text(w, PLOT_LEFT - 8, y + 4, "end", c->vars[j].name);
		if (m->cells[j].s.n)
			box_row(w, &m->cells[j], j, lo, hi, y);
		else
			svg_text(w, PLOT_LEFT, y + 4, "start", "no samples");
	}
	svg_line(w, PLOT_LEFT, h - 22, PLOT_W - PLOT_RIGHT, h - 22, "#888");
	fmt_axis(a, sizeof(a), lo);
	fmt_axis(b, sizeof(b), hi);
	svg_text(w, PLOT_LEFT, h - 6, "start", a);
	svg_text(w, PLOT_W - PLOT_RIGHT, h - 6, "end", b);
	fmt_axis(a, sizeof(a), (lo + hi) / 2);
	svg_line(w, (PLOT_LEFT + PLOT_W - PLOT_RIGHT) / 2.0, h - 22,
		 (PLOT_LEFT + PLOT_W - PLOT_RIGHT) / 2.0, h - 18, "#888");
	svg_text(w, (PLOT_LEFT + PLOT_W - PLOT_RIGHT) / 2.0, h - 6, "middle", a);
	end(w);
	end(w);
}

/* ---- time series ---- */

static json_t *series_obj(json_t *ts)
{
	json_t *s = json_object_get(ts, "series");

	return json_is_object(s) ? s : ts;
}

static void ts_range(const struct comparison *c, const char *key, double *lo,
		     double *hi, size_t *len)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	*len = 1;
	for (size_t j = 0; j < c->nvars; j++) {
		size_t i, k;
		json_t *ts, *v;

		json_array_foreach(c->vars[j].timeseries, i, ts) {
			json_t *arr = json_object_get(series_obj(ts), key);

			if (json_array_size(arr) > *len)
				*len = json_array_size(arr);
			json_array_foreach(arr, k, v) {
				*lo = fmin(*lo, json_number_value(v));
				*hi = fmax(*hi, json_number_value(v));
			}
		}
	}
	if (!(*hi > *lo)) {
		*lo = isfinite(*lo) ? *lo - 1 : 0;
		*hi = *lo + 2;
	}
}

static void ts_plot(xmlTextWriterPtr w, const struct comparison *c,
		    const char *key)
{
	double lo, hi, xw = PLOT_W - 60 - PLOT_RIGHT;
	size_t len;
	char a[64], b[64];

	ts_range(c, key, &lo, &hi, &len);
	el(w, "div");
	attr(w, "class", "plot");
	text_el(w, "h3", NULL, key);
	el(w, "svg");
	attr(w, "xmlns", SVG_NS);
	attr(w, "class", "ts");
	attr(w, "data-metric", "%s", key);
	attr(w, "width", "%d", PLOT_W);
	attr(w, "height", "%d", TS_H);
	for (size_t j = 0; j < c->nvars; j++) {
		size_t i, k;
		json_t *ts, *v;

		json_array_foreach(c->vars[j].timeseries, i, ts) {
			json_t *arr = json_object_get(series_obj(ts), key);
			char *pts = xstrdup("");

			json_array_foreach(arr, k, v) {
				double x = 60 + xw * (double)k / (double)(len > 1 ? len - 1 : 1);
				double y = TS_H - 20 - (json_number_value(v) - lo) /
					   (hi - lo) * (TS_H - 30);
				char *n = xasprintf("%s%.1f,%.1f ", pts, x, y);

				free(pts);
				pts = n;
			}
			el(w, "polyline");
			attr(w, "points", "%s", pts);
			attr(w, "fill", "none");
			attr(w, "stroke", "%s", palette[j % ARRAY_SIZE(palette)]);
			el(w, "title");
			xmlTextWriterWriteString(w, BAD_CAST c->vars[j].name);
			end(w);
			end(w);
			free(pts);
		}
	}
	fmt_axis(a, sizeof(a), lo);
	fmt_axis(b, sizeof(b), hi);
	svg_text(w, 56, TS_H - 20, "end", a);
	svg_text(w, 56, 14, "end", b);
	svg_text(w, PLOT_W - PLOT_RIGHT, TS_H - 4, "end", "seconds");
	end(w);
	end(w);
}

static void time_series(xmlTextWriterPtr w, const struct comparison *c)
{
	struct strlist keys = { 0 };

	for (size_t j = 0; j < c->nvars; j++) {
		json_t *s = series_obj(json_array_get(c->vars[j].timeseries, 0));
		const char *key;
		json_t *val;

		json_object_foreach(s, key, val) {
			bool seen = false;

			for (size_t k = 0; k < keys.n; k++)
				seen |= !strcmp(keys.v[k], key);
			if (!seen && json_is_array(val) && keys.n < TS_MAX_SERIES)
				strlist_push(&keys, key);
		}
	}
	if (keys.n) {
		text_el(w, "h2", NULL, "Time series (1 Hz)");
		for (size_t j = 0; j < c->nvars; j++) {
			el(w, "span");
			attr(w, "style", "color:%s", palette[j % ARRAY_SIZE(palette)]);
			xmlTextWriterWriteFormatString(w, "\xe2\x96\xa0 %s  ",
						       c->vars[j].name);
			end(w);
		}
	}
	for (size_t k = 0; k < keys.n; k++)
		ts_plot(w, c, keys.v[k]);
	strlist_free(&keys);
}

/* ---- page ---- */

static void write_body(xmlTextWriterPtr w, const struct comparison *c)
{
	char *s;

	text_el(w, "h1", NULL, "mmlab comparison");
	for (size_t i = 0; i < c->runs.n; i++)
		text_el(w, "p", NULL, c->runs.v[i]);
	s = xasprintf("Baseline %s. Percentages are changes against it, "
		      "positive when better; * = significant at alpha %.3g "
		      "(Welch's t-test, Benjamini-Hochberg q); CI = 95%% "
		      "confidence interval of the change (Fieller).",
		      c->vars[c->baseline].name, c->alpha);
	text_el(w, "p", NULL, s);
	free(s);
	for (size_t i = 0; i < c->warnings.n; i++)
		text_el(w, "p", "warn", c->warnings.v[i]);
	for (size_t i = 0; i < c->notes.n; i++)
		text_el(w, "p", NULL, c->notes.v[i]);
	write_table(w, c);
	text_el(w, "h2", NULL, "Distributions");
	for (size_t i = 0; i < c->nmetrics; i++)
		box_plot(w, c, &c->metrics[i]);
	time_series(w, c);
}

int cmp_write_html(const struct comparison *c, FILE *out)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	int rc = 0;

	if (!w) {
		lab_err("cannot create an XML writer (out of memory?)");
		xmlBufferFree(buf);
		return -1;
	}
	el(w, "html");
	attr(w, "lang", "en");
	el(w, "head");
	el(w, "meta");
	attr(w, "charset", "utf-8");
	xmlTextWriterEndElement(w);
	text_el(w, "title", NULL, "mmlab comparison");
	text_el(w, "style", NULL, css);
	end(w);
	el(w, "body");
	write_body(w, c);
	end(w);
	end(w);
	if (xmlTextWriterEndDocument(w) < 0)
		rc = -1;
	xmlFreeTextWriter(w);
	if (!rc) {
		fputs("<!DOCTYPE html>\n", out);
		fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), out);
		fputc('\n', out);
	} else {
		lab_err("cannot write the HTML report (out of memory?)");
	}
	xmlBufferFree(buf);
	return rc;
}
