/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_html.h - what the two files of the HTML report share: the
 * xmlTextWriter helpers (report_html.c) and the SVG plots (report_svg.c).
 * Every element and attribute goes through libxml2's writer, so names and
 * values from a run are escaped.
 */
#ifndef MMLAB_REPORT_HTML_H
#define MMLAB_REPORT_HTML_H

#include <libxml/xmlwriter.h>

#include "analysis/compare.h"
#include "analysis/summary.h"

#define SVG_NS "http://www.w3.org/2000/svg"

/* variant j's colour in every plot */
const char *rep_color(size_t j);
/* colours of better, worse and "more or less" (no direction) */
#define COLOR_BETTER "#1a7f37"
#define COLOR_WORSE "#c62828"
#define COLOR_NEUTRAL "#1f5fa8"

void rep_el(xmlTextWriterPtr w, const char *name);
void rep_end(xmlTextWriterPtr w);
void rep_attr(xmlTextWriterPtr w, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* <name class="cls">text</name>; cls may be NULL */
void rep_text_el(xmlTextWriterPtr w, const char *name, const char *cls,
		 const char *text);
void rep_text(xmlTextWriterPtr w, const char *text);
/*
 * <svg> of the given class and size with a title for screen readers;
 * metric (or NULL) goes into data-metric
 */
void rep_svg_open(xmlTextWriterPtr w, const char *cls, int width, int height,
		  const char *title, const char *metric);
void rep_svg_text(xmlTextWriterPtr w, double x, double y, const char *anchor,
		  const char *text);
void rep_svg_line(xmlTextWriterPtr w, double x1, double y1, double x2,
		  double y2, const char *color);
/* the anchor of metric name in the evidence table / its box plot */
char *rep_metric_id(const char *prefix, const char *name);

/* ---- report_svg.c ---- */

/*
 * A forest plot: one CI bar per (metric, variant) row of rows[0..n), the
 * change in percent against the baseline, coloured by verdict
 * (significant rows) or grey.
 */
void rep_forest(xmlTextWriterPtr w, const struct comparison *c,
		const struct cmp_sig *rows, size_t n, bool significant);
/* a box plot with the samples of every variant (one row each) */
void rep_box_plot(xmlTextWriterPtr w, const struct comparison *c,
		  const struct cmp_metric *m);

/* ---- report_ts.c ---- */

/*
 * The 1 Hz series as small multiples (<svg class="ts">, variants overlaid,
 * the measured phase marked) and the memory taken per node
 * (<svg class="nodemem">); nothing when no variant has a time series.
 */
void rep_time_series(xmlTextWriterPtr w, const struct comparison *c);

#endif
