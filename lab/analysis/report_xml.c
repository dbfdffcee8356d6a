// SPDX-License-Identifier: GPL-2.0
/*
 * report_xml.c - the xmlTextWriter helpers of the HTML report and its SVG
 * plots (report_xml.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/report_xml.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

const char *rep_color(size_t j)
{
	return palette[j % ARRAY_SIZE(palette)];
}

void rep_el(xmlTextWriterPtr w, const char *name)
{
	xmlTextWriterStartElement(w, BAD_CAST name);
}

void rep_end(xmlTextWriterPtr w)
{
	xmlTextWriterFullEndElement(w);
}

void rep_attr(xmlTextWriterPtr w, const char *k, const char *fmt, ...)
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

void rep_text(xmlTextWriterPtr w, const char *text)
{
	xmlTextWriterWriteString(w, BAD_CAST text);
}

void rep_text_el(xmlTextWriterPtr w, const char *name, const char *cls, const char *text)
{
	rep_el(w, name);
	if (cls)
		rep_attr(w, "class", "%s", cls);
	rep_text(w, text);
	rep_end(w);
}

void rep_svg_open(xmlTextWriterPtr w, const char *cls, int width, int height, const char *title,
		  const char *metric)
{
	rep_el(w, "svg");
	rep_attr(w, "xmlns", SVG_NS);
	rep_attr(w, "class", "%s", cls);
	rep_attr(w, "width", "%d", width);
	rep_attr(w, "height", "%d", height);
	rep_attr(w, "viewBox", "0 0 %d %d", width, height);
	rep_attr(w, "role", "img");
	if (metric)
		rep_attr(w, "data-metric", "%s", metric);
	rep_text_el(w, "title", NULL, title);
}

void rep_svg_text(xmlTextWriterPtr w, double x, double y, const char *anchor, const char *text)
{
	rep_el(w, "text");
	rep_attr(w, "x", "%.1f", x);
	rep_attr(w, "y", "%.1f", y);
	rep_attr(w, "text-anchor", "%s", anchor);
	rep_text(w, text);
	rep_end(w);
}

void rep_svg_line(xmlTextWriterPtr w, double x1, double y1, double x2, double y2, const char *color)
{
	rep_el(w, "line");
	rep_attr(w, "x1", "%.1f", x1);
	rep_attr(w, "y1", "%.1f", y1);
	rep_attr(w, "x2", "%.1f", x2);
	rep_attr(w, "y2", "%.1f", y2);
	rep_attr(w, "stroke", "%s", color);
	rep_end(w);
}

char *rep_metric_id(const char *prefix, const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, prefix);
	/* ids and fragments: keep the name readable, no blanks */
	for (const char *p = name; *p; p++)
		strbuf_addch(&sb, *p == ' ' ? '_' : *p);
	return strbuf_detach(&sb);
}
