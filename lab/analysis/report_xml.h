/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_xml.h - the helpers every part of the HTML report writes with
 * (report_html.c, report_svg.c, report_ts.c). Every element and attribute
 * goes through libxml2's writer, so names and values from a run are
 * escaped.
 */
#ifndef MMLAB_REPORT_XML_H
#define MMLAB_REPORT_XML_H

#include <stddef.h>

#include <libxml/xmlwriter.h>

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
void rep_text_el(xmlTextWriterPtr w, const char *name, const char *cls, const char *text);
void rep_text(xmlTextWriterPtr w, const char *text);
/*
 * <svg> of the given class and size with a title for screen readers;
 * metric (or NULL) goes into data-metric
 */
void rep_svg_open(xmlTextWriterPtr w, const char *cls, int width, int height, const char *title,
		  const char *metric);
void rep_svg_text(xmlTextWriterPtr w, double x, double y, const char *anchor, const char *text);
void rep_svg_line(xmlTextWriterPtr w, double x1, double y1, double x2, double y2,
		  const char *color);
/* the anchor of metric name in the evidence table / its box plot */
char *rep_metric_id(const char *prefix, const char *name);

#endif
