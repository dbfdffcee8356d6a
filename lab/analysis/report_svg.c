// SPDX-License-Identifier: GPL-2.0
/*
 * report_svg.c - the plots of the HTML report, as inline SVG: the forest
 * plot of the summary (one CI bar per metric and variant), box plots with
 * the samples of each variant, the 1 Hz time series as small multiples
 * with the variants overlaid, and where each variant's memory went per
 * node. Written through report_xml.h's xmlTextWriter helpers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/report_svg.h"
#include "analysis/report_xml.h"

#define FOREST_W 760
#define FOREST_LABEL 330
#define FOREST_RIGHT 24
#define FOREST_ROW 20
#define FOREST_MAX_ROWS 60
#define BOX_W 540
#define BOX_LEFT 130
#define BOX_RIGHT 16
#define BOX_ROW 24

/* axis labels: four significant digits, no exponent for counters */
static void fmt_axis(char *buf, size_t len, double v)
{
	cmp_fmt_sig(buf, len, v, 4, true);
}

/* a step of 1, 2 or 5 times a power of ten giving 3..8 ticks over span */
static double nice_step(double span)
{
	double p = pow(10, floor(log10(span / 4)));

	if (span / p <= 8)
		return p;
	if (span / (2 * p) <= 8)
		return 2 * p;
	return 5 * p;
}

/* ---- forest plot ---- */

struct axis {
	double lo, hi; /* values at the left and right edge */
	double x0, x1; /* their pixels */
};

static double ax(const struct axis *a, double v)
{
	return a->x0 + (v - a->lo) / (a->hi - a->lo) * (a->x1 - a->x0);
}

/*
 * The change axis: 0, every estimate and the finite CI bounds, but no
 * further than three times the largest estimate so that one wide interval
 * does not squash the others (its bar then ends in an arrow).
 */
static void forest_axis(const struct cmp_sig *rows, size_t n, struct axis *a)
{
	double emax = 0, lo = 0, hi = 0, cap, pad;

	for (size_t k = 0; k < n; k++)
		if (isfinite(rows[k].change))
			emax = fmax(emax, fabs(rows[k].change));
	cap = emax > 0 ? 3 * emax : INFINITY;
	for (size_t k = 0; k < n; k++) {
		const double v[] = { rows[k].change, rows[k].lo, rows[k].hi };

		for (size_t i = 0; i < 3; i++) {
			if (!isfinite(v[i]))
				continue;
			lo = fmin(lo, fmax(v[i], -cap));
			hi = fmax(hi, fmin(v[i], cap));
		}
	}
	if (!(hi - lo > 1e-9)) {
		lo -= 1;
		hi += 1;
	}
	pad = 0.05 * (hi - lo);
	a->lo = lo - pad;
	a->hi = hi + pad;
	a->x0 = FOREST_LABEL;
	a->x1 = FOREST_W - FOREST_RIGHT;
}

static void arrow(xmlTextWriterPtr w, double x, double y, int dir, const char *color)
{
	rep_el(w, "polygon");
	rep_attr(w, "points", "%.1f,%.1f %.1f,%.1f %.1f,%.1f", x + 6 * dir, y, x, y - 4, x, y + 4);
	rep_attr(w, "fill", "%s", color);
	rep_end(w);
}

static void bar(xmlTextWriterPtr w, double x1, double x2, double y, const char *color, bool dashed)
{
	rep_el(w, "line");
	rep_attr(w, "x1", "%.1f", x1);
	rep_attr(w, "y1", "%.1f", y);
	rep_attr(w, "x2", "%.1f", x2);
	rep_attr(w, "y2", "%.1f", y);
	rep_attr(w, "stroke", "%s", color);
	rep_attr(w, "stroke-width", dashed ? "1.5" : "3");
	if (dashed)
		rep_attr(w, "stroke-dasharray", "5 4");
	rep_end(w);
}

static void forest_row(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_sig *r,
		       const struct axis *a, double y, bool significant)
{
	static const char *const colors[] = { COLOR_BETTER, COLOR_WORSE, COLOR_NEUTRAL,
					      COLOR_NEUTRAL };
	const char *col = significant ? colors[r->verdict] : "#8a8a8a";
	const char *metric = c->metrics[r->metric].name;
	char chg[32], ci[64], *label, *tip;
	double lo = r->lo, hi = r->hi;

	cmp_fmt_change(chg, sizeof(chg), r->change);
	cmp_fmt_ci(ci, sizeof(ci), r->lo, r->hi);
	label = c->nvars > 2 ? xasprintf("%s \xc2\xb7 %.40s", c->vars[r->variant].name, metric) :
			       xasprintf("%.52s", metric);
	tip = xasprintf("%s, %s against %s: %s, 95%% CI %s", metric, c->vars[r->variant].name,
			c->vars[c->baseline].name, chg, ci);
	rep_el(w, "g");
	rep_text_el(w, "title", NULL, tip);
	rep_svg_text(w, FOREST_LABEL - 8, y + 4, "end", label);
	if (isnan(r->change)) {
		rep_svg_text(w, ax(a, 0) + 6, y + 4, "start", "from 0");
	} else {
		/* an unbounded interval: dashed across the whole axis */
		bar(w, ax(a, fmax(isfinite(lo) ? lo : a->lo, a->lo)),
		    ax(a, fmin(isfinite(hi) ? hi : a->hi, a->hi)), y, col,
		    !isfinite(lo) && !isfinite(hi));
		if (!isfinite(lo) || lo < a->lo)
			arrow(w, a->x0, y, -1, col);
		if (!isfinite(hi) || hi > a->hi)
			arrow(w, a->x1, y, 1, col);
		rep_el(w, "circle");
		rep_attr(w, "cx", "%.1f", ax(a, fmin(fmax(r->change, a->lo), a->hi)));
		rep_attr(w, "cy", "%.1f", y);
		rep_attr(w, "r", "4");
		rep_attr(w, "fill", "%s", col);
		rep_end(w);
	}
	rep_end(w);
	free(label);
	free(tip);
}

static void forest_ticks(xmlTextWriterPtr w, const struct axis *a, double top, double bottom)
{
	double step = nice_step(a->hi - a->lo);

	for (long i = lround(ceil(a->lo / step)); (double)i * step <= a->hi; i++) {
		double t = (double)i * step;
		char buf[48];

		if (fabs(t) < step / 1e6)
			t = 0;
		rep_svg_line(w, ax(a, t), top, ax(a, t), bottom, t == 0 ? "#444" : "#e3e3e3");
		snprintf(buf, sizeof(buf), "%+g%%", t);
		rep_svg_text(w, ax(a, t), bottom + 14, "middle", t == 0 ? "0" : buf);
	}
}

void rep_forest(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_sig *rows,
		size_t n, bool significant)
{
	size_t nr = n < FOREST_MAX_ROWS ? n : FOREST_MAX_ROWS;
	int h = (int)nr * FOREST_ROW + 54;
	struct axis a;

	forest_axis(rows, nr, &a);
	rep_svg_open(w, "forest", FOREST_W, h,
		     "change against the baseline with "
		     "its 95% confidence interval",
		     NULL);
	forest_ticks(w, &a, 4, h - 38);
	for (size_t k = 0; k < nr; k++)
		forest_row(w, c, &rows[k], &a, 14 + (double)k * FOREST_ROW, significant);
	rep_svg_text(w, (a.x0 + a.x1) / 2, h - 4, "middle",
		     "change of the mean against the baseline (dashed: CI unbounded)");
	rep_end(w);
	if (nr < n) {
		char *s = xasprintf("%zu more rows are in the table above.", n - nr);

		rep_text_el(w, "p", "small", s);
		free(s);
	}
}

/* ---- box plots ---- */

static double bx(double v, double lo, double hi)
{
	return BOX_LEFT + (v - lo) / (hi - lo) * (BOX_W - BOX_LEFT - BOX_RIGHT);
}

static void range_of(const struct cmp_metric *m, size_t nvars, double *lo, double *hi)
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

static void box_row(xmlTextWriterPtr w, const struct cmp_cell *e, size_t j, double lo, double hi,
		    double y)
{
	const char *col = rep_color(j);
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
	rep_svg_line(w, bx(v[0], lo, hi), y, bx(v[k - 1], lo, hi), y, col);
	rep_el(w, "rect");
	rep_attr(w, "x", "%.1f", bx(q1, lo, hi));
	rep_attr(w, "y", "%.1f", y - 7);
	rep_attr(w, "width", "%.1f", fmax(bx(q3, lo, hi) - bx(q1, lo, hi), 1));
	rep_attr(w, "height", "14");
	rep_attr(w, "fill", "%s", col);
	rep_attr(w, "fill-opacity", "0.25");
	rep_attr(w, "stroke", "%s", col);
	rep_end(w);
	rep_svg_line(w, bx(med, lo, hi), y - 7, bx(med, lo, hi), y + 7, col);
	for (size_t i = 0; i < k; i++) {
		rep_el(w, "circle");
		rep_attr(w, "cx", "%.1f", bx(v[i], lo, hi));
		rep_attr(w, "cy", "%.1f", y);
		rep_attr(w, "r", "2.5");
		rep_attr(w, "fill", "%s", col);
		rep_end(w);
	}
	free(v);
}

void rep_box_plot(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_metric *m)
{
	int h = (int)c->nvars * BOX_ROW + 30;
	double lo, hi, mid = (BOX_LEFT + BOX_W - BOX_RIGHT) / 2.0;
	char a[64], b[64], *id = rep_metric_id("box-", m->name);
	char *href = rep_metric_id("#m-", m->name);

	range_of(m, c->nvars, &lo, &hi);
	rep_el(w, "div");
	rep_attr(w, "class", "plot");
	rep_attr(w, "id", "%s", id);
	rep_el(w, "h4");
	rep_el(w, "a");
	rep_attr(w, "href", "%s", href);
	rep_text(w, m->name);
	rep_end(w);
	rep_end(w);
	rep_svg_open(w, "box", BOX_W, h, m->name, m->name);
	for (size_t j = 0; j < c->nvars; j++) {
		double y = 14 + (double)j * BOX_ROW;

		rep_svg_text(w, BOX_LEFT - 8, y + 4, "end", c->vars[j].name);
		if (m->cells[j].s.n)
			box_row(w, &m->cells[j], j, lo, hi, y);
		else
			rep_svg_text(w, BOX_LEFT, y + 4, "start", "no samples");
	}
	rep_svg_line(w, BOX_LEFT, h - 22, BOX_W - BOX_RIGHT, h - 22, "#888");
	fmt_axis(a, sizeof(a), lo);
	fmt_axis(b, sizeof(b), hi);
	rep_svg_text(w, BOX_LEFT, h - 6, "start", a);
	rep_svg_text(w, BOX_W - BOX_RIGHT, h - 6, "end", b);
	fmt_axis(a, sizeof(a), (lo + hi) / 2);
	rep_svg_line(w, mid, h - 22, mid, h - 18, "#888");
	rep_svg_text(w, mid, h - 6, "middle", a);
	rep_end(w);
	rep_end(w);
	free(id);
	free(href);
}
