// SPDX-License-Identifier: GPL-2.0
/*
 * report_ts.c - the 1 Hz time series of the HTML report: one small panel
 * per series with every variant overlaid (thin lines: iterations, thick:
 * their mean; the measured phase shaded), and a chart of the memory each
 * variant took from each node. The agent samples /proc/vmstat and the
 * nodes' nr_free_pages once a second from the workload's "go" to its
 * "done" (collectors/collect.c), so every sample lies in the measured phase.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_ts.h"
#include "analysis/summary.h"
#include "analysis/report_xml.h"
#include "lib/strbuf.h"

#define TS_W 364
#define TS_H 170
#define TS_LEFT 58
#define TS_RIGHT 12
#define TS_TOP 24
#define TS_BOTTOM 22
#define TS_MAX_PANELS 12
#define TS_MAX_KEYS 64
#define TS_MAX_POINTS 3600 /* an hour at 1 Hz: more is not drawn */
#define MAX_NODES 16
#define PAGE_KIB 4 /* x86 guests */
#define NM_H 200
#define NM_LEFT 56
#define NM_BAR 26
#define NM_GAP 34

struct ts_key {
	const char *name; /* in the comparison's JSON */
	int rank; /* the four series first */
	bool gauge; /* nr_*: a level; else a counter: increase shown */
	double lo, hi, xmax; /* range of the plotted values; seconds */
};

struct ts_iter { /* one iteration's series of one key */
	const double *a; /* NaN: a sample that was not a number */
	size_t n;
	double interval;
};

static void ts_iter(const struct cmp_series *it, const char *key, struct ts_iter *t)
{
	const struct iter_series *s = NULL;

	for (size_t i = 0; i < it->ts.nseries && !s; i++)
		if (!strcmp(it->ts.series[i].name, key))
			s = &it->ts.series[i];
	t->a = s ? s->v : NULL;
	t->n = s ? s->n : 0;
	if (t->n > TS_MAX_POINTS)
		t->n = TS_MAX_POINTS;
	t->interval = it->ts.interval_s > 0 ? it->ts.interval_s : 1;
}

/* sample k as plotted: a level as read, a counter as the increase so far */
static double ts_value(const struct ts_iter *t, size_t k, bool gauge)
{
	if (k >= t->n || isnan(t->a[k]) || (!gauge && isnan(t->a[0])))
		return NAN;
	return t->a[k] - (gauge ? 0 : t->a[0]);
}

static int key_rank(const char *name)
{
	static const char *const first[] = { "vmstat.compact_stall", "vmstat.pgmigrate_success",
					     "vmstat.numa_pages_migrated" };

	if (!fnmatch("node[0-9]*.vmstat.nr_free_pages", name, 0))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		if (!strcmp(name, first[i]))
			return 1 + (int)i;
	return 10;
}

static int key_cmp(const void *a, const void *b)
{
	const struct ts_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (strlen(x->name) != strlen(y->name) && !x->rank)
		return strlen(x->name) < strlen(y->name) ? -1 : 1; /* node2 < node10 */
	return strcmp(x->name, y->name);
}

static void key_range(const struct comparison *c, struct ts_key *k)
{
	k->lo = INFINITY;
	k->hi = -INFINITY;
	k->xmax = 0;
	for (size_t j = 0; j < c->nvars; j++) {
		for (size_t i = 0; i < c->vars[j].nts; i++) {
			const struct cmp_series *it = &c->vars[j].ts[i];
			double el = it->elapsed_s;
			struct ts_iter t;

			ts_iter(it, k->name, &t);
			if (t.n)
				k->xmax = fmax(k->xmax, (double)(t.n - 1) * t.interval);
			if (el < 1e6)
				k->xmax = fmax(k->xmax, el);
			for (size_t s = 0; s < t.n; s++) {
				double v = ts_value(&t, s, k->gauge);

				if (isfinite(v)) {
					k->lo = fmin(k->lo, v);
					k->hi = fmax(k->hi, v);
				}
			}
		}
	}
	if (!(k->xmax > 0))
		k->xmax = 1;
}

/* every series name with an array, the four the issue names first */
static size_t collect_keys(const struct comparison *c, struct ts_key *keys)
{
	size_t n = 0;

	for (size_t j = 0; j < c->nvars; j++) {
		for (size_t i = 0; i < c->vars[j].nts; i++) {
			const struct iter_timeseries *ts = &c->vars[j].ts[i].ts;

			for (size_t si = 0; si < ts->nseries; si++) {
				const char *key = ts->series[si].name;
				bool seen = false;
				const char *leaf = strrchr(key, '.');

				for (size_t k = 0; k < n && !seen; k++)
					seen = !strcmp(keys[k].name, key);
				if (seen || n == TS_MAX_KEYS)
					continue;
				keys[n].name = key;
				keys[n].rank = key_rank(key);
				keys[n].gauge = !strncmp(leaf ? leaf + 1 : key, "nr_", 3);
				key_range(c, &keys[n]);
				n++;
			}
		}
	}
	if (n)
		qsort(keys, n, sizeof(*keys), key_cmp);
	return n;
}

/* ---- one panel ---- */

static double tx(const struct ts_key *k, double t)
{
	return TS_LEFT + t / k->xmax * (TS_W - TS_LEFT - TS_RIGHT);
}

static double ty(const struct ts_key *k, double v)
{
	return TS_H - TS_BOTTOM - (v - k->lo) / (k->hi - k->lo) * (TS_H - TS_TOP - TS_BOTTOM);
}

static void polyline(xmlTextWriterPtr w, const char *pts, const char *color, const char *width,
		     const char *opacity)
{
	rep_el(w, "polyline");
	rep_attr(w, "points", "%s", pts);
	rep_attr(w, "fill", "none");
	rep_attr(w, "stroke", "%s", color);
	rep_attr(w, "stroke-width", "%s", width);
	rep_attr(w, "stroke-opacity", "%s", opacity);
	rep_end(w);
}

/* variant j: a thin line per iteration, a thick one for their mean */
static void ts_variant(xmlTextWriterPtr w, const struct comparison *c, size_t j,
		       const struct ts_key *k)
{
	size_t len = 0, niter = c->vars[j].nts;
	double *sum, interval = 0;
	size_t *cnt;
	struct strbuf pts = STRBUF_INIT;

	for (size_t i = 0; i < niter; i++) {
		struct ts_iter t;

		ts_iter(&c->vars[j].ts[i], k->name, &t);
		len = t.n > len ? t.n : len;
	}
	sum = xcalloc(len + 1, sizeof(*sum));
	cnt = xcalloc(len + 1, sizeof(*cnt));
	for (size_t i = 0; i < niter; i++) {
		struct ts_iter t;

		ts_iter(&c->vars[j].ts[i], k->name, &t);
		interval = interval ? interval : t.interval;
		strbuf_reset(&pts);
		for (size_t s = 0; s < t.n; s++) {
			double v = ts_value(&t, s, k->gauge);

			if (!isfinite(v))
				continue;
			strbuf_addf(&pts, "%.1f,%.1f ", tx(k, (double)s * t.interval), ty(k, v));
			sum[s] += v;
			cnt[s]++;
		}
		if (pts.len)
			polyline(w, pts.buf, rep_color(j), "1", "0.4");
	}
	strbuf_reset(&pts);
	/* the mean where at least half of the iterations still run */
	for (size_t s = 0; s < len; s++)
		if (cnt[s] && 2 * cnt[s] >= niter)
			strbuf_addf(&pts, "%.1f,%.1f ", tx(k, (double)s * interval),
				    ty(k, sum[s] / (double)cnt[s]));
	if (pts.len)
		polyline(w, pts.buf, rep_color(j), "2.2", "1");
	strbuf_release(&pts);
	free(sum);
	free(cnt);
}

/* the mean time.elapsed_s of variant j's iterations, NaN if unknown */
static double mean_elapsed(const struct comparison *c, size_t j)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < c->vars[j].nts; i++) {
		double el = c->vars[j].ts[i].elapsed_s;

		if (el >= 0 && el < 1e6) {
			sum += el;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

/* the longest time.elapsed_s of any iteration, 0 if none is known */
static double max_elapsed(const struct comparison *c)
{
	double end = 0;

	for (size_t j = 0; j < c->nvars; j++) {
		for (size_t i = 0; i < c->vars[j].nts; i++) {
			double el = c->vars[j].ts[i].elapsed_s;

			if (el < 1e6)
				end = fmax(end, el);
		}
	}
	return end;
}

static void ts_phase(xmlTextWriterPtr w, const struct comparison *c, const struct ts_key *k)
{
	double end = max_elapsed(c);

	rep_el(w, "rect");
	rep_attr(w, "x", "%.1f", tx(k, 0));
	rep_attr(w, "y", "%d", TS_TOP);
	rep_attr(w, "width", "%.1f", tx(k, end > 0 ? end : k->xmax) - tx(k, 0));
	rep_attr(w, "height", "%d", TS_H - TS_TOP - TS_BOTTOM);
	rep_attr(w, "fill", "#f1f1f1");
	rep_end(w);
	for (size_t j = 0; j < c->nvars; j++) {
		double e = mean_elapsed(c, j);

		if (!isfinite(e) || !c->vars[j].nts)
			continue;
		rep_el(w, "line");
		rep_attr(w, "x1", "%.1f", tx(k, e));
		rep_attr(w, "x2", "%.1f", tx(k, e));
		rep_attr(w, "y1", "%d", TS_TOP);
		rep_attr(w, "y2", "%d", TS_H - TS_BOTTOM);
		rep_attr(w, "stroke", "%s", rep_color(j));
		rep_attr(w, "stroke-dasharray", "4 3");
		rep_end(w);
	}
}

static void ts_panel(xmlTextWriterPtr w, const struct comparison *c, const struct ts_key *k)
{
	char lo[48], hi[48], xs[48];
	char *title = xasprintf("%s%s", k->name, k->gauge ? "" : " (increase)");

	rep_svg_open(w, "ts", TS_W, TS_H, title, k->name);
	rep_svg_text(w, TS_LEFT, 14, "start", title);
	ts_phase(w, c, k);
	for (size_t j = 0; j < c->nvars; j++)
		ts_variant(w, c, j, k);
	cmp_fmt_sig(lo, sizeof(lo), k->lo, 4, true);
	cmp_fmt_sig(hi, sizeof(hi), k->hi, 4, true);
	snprintf(xs, sizeof(xs), "%.3g s", k->xmax);
	rep_svg_text(w, TS_LEFT - 4, TS_H - TS_BOTTOM, "end", lo);
	rep_svg_text(w, TS_LEFT - 4, TS_TOP + 8, "end", hi);
	rep_svg_line(w, TS_LEFT, TS_H - TS_BOTTOM, TS_W - TS_RIGHT, TS_H - TS_BOTTOM, "#888");
	rep_svg_text(w, TS_LEFT, TS_H - 6, "start", "0");
	rep_svg_text(w, TS_W - TS_RIGHT, TS_H - 6, "end", xs);
	rep_end(w);
	free(title);
}

/* ---- memory per node ---- */

struct node_mem {
	int node;
	double mean, min, max; /* MiB over the variant's iterations */
	size_t n;
};

/*
 * Memory variant j took from the node of series key: per iteration the
 * largest drop of nr_free_pages below its first sample, in MiB.
 */
static void node_taken(const struct comparison *c, size_t j, const char *key, struct node_mem *nm)
{
	double sum = 0;

	nm->n = 0;
	nm->min = INFINITY;
	nm->max = -INFINITY;
	for (size_t i = 0; i < c->vars[j].nts; i++) {
		struct ts_iter t;
		double low = INFINITY, mib;

		ts_iter(&c->vars[j].ts[i], key, &t);
		for (size_t s = 0; s < t.n; s++)
			low = fmin(low, ts_value(&t, s, true));
		if (!t.n || !isfinite(low) || !isfinite(ts_value(&t, 0, true)))
			continue;
		mib = (ts_value(&t, 0, true) - low) * PAGE_KIB / 1024.0;
		sum += mib;
		nm->min = fmin(nm->min, mib);
		nm->max = fmax(nm->max, mib);
		nm->n++;
	}
	nm->mean = nm->n ? sum / (double)nm->n : NAN;
}

static void nm_bar(xmlTextWriterPtr w, const struct node_mem *nm, size_t j, double x, double top,
		   double scale)
{
	double base = NM_H - 26;
	char v[48];

	if (!nm->n)
		return;
	rep_el(w, "rect");
	rep_attr(w, "x", "%.1f", x);
	rep_attr(w, "y", "%.1f", base - nm->mean * scale);
	rep_attr(w, "width", "%d", NM_BAR - 6);
	rep_attr(w, "height", "%.1f", fmax(nm->mean * scale, 0.5));
	rep_attr(w, "fill", "%s", rep_color(j));
	rep_attr(w, "fill-opacity", "0.75");
	rep_end(w);
	rep_svg_line(w, x + (NM_BAR - 6) / 2.0, base - nm->min * scale, x + (NM_BAR - 6) / 2.0,
		     base - nm->max * scale, "#222");
	cmp_fmt_sig(v, sizeof(v), nm->mean, 3, true);
	rep_svg_text(w, x + (NM_BAR - 6) / 2.0, fmax(base - nm->max * scale - 4, top), "middle", v);
}

/* grouped bars: one group per node, one bar per variant */
static void node_chart(xmlTextWriterPtr w, const struct comparison *c, const struct ts_key *keys,
		       size_t nkeys)
{
	struct node_mem nm[MAX_NODES][8];
	int node_id[MAX_NODES];
	size_t nn = 0, nv = c->nvars < 8 ? c->nvars : 8;
	double top = 0, scale;
	int width;

	for (size_t k = 0; k < nkeys && nn < MAX_NODES; k++) {
		if (keys[k].rank)
			continue;
		node_id[nn] = atoi(keys[k].name + 4);
		for (size_t j = 0; j < nv; j++) {
			node_taken(c, j, keys[k].name, &nm[nn][j]);
			nm[nn][j].node = node_id[nn];
			if (nm[nn][j].n)
				top = fmax(top, nm[nn][j].max);
		}
		nn++;
	}
	if (!nn || !(top > 0))
		return;
	width = NM_LEFT + (int)nn * ((int)nv * NM_BAR + NM_GAP);
	scale = (NM_H - 50) / top;
	rep_text_el(w, "h3", NULL, "Memory taken from each node");
	rep_text_el(w, "p", "small",
		    "Per variant and node: the largest drop of the "
		    "node's free memory below its level at the start of the "
		    "measured phase, in MiB (bar: mean over iterations; line: "
		    "smallest to largest). 1 Hz samples can miss a short peak.");
	rep_svg_open(w, "nodemem", width, NM_H, "memory taken from each node", NULL);
	rep_svg_line(w, NM_LEFT - 6, NM_H - 26, width, NM_H - 26, "#888");
	rep_svg_text(w, NM_LEFT - 10, NM_H - 26, "end", "0");
	rep_svg_text(w, NM_LEFT - 10, 24, "end", "MiB");
	for (size_t n = 0; n < nn; n++) {
		double x = NM_LEFT + (double)n * (double)(nv * NM_BAR + NM_GAP);
		char label[32];

		for (size_t j = 0; j < nv; j++)
			nm_bar(w, &nm[n][j], j, x + (double)j * NM_BAR, 12, scale);
		snprintf(label, sizeof(label), "node%d", node_id[n]);
		rep_svg_text(w, x + (double)(nv * NM_BAR) / 2.0, NM_H - 8, "middle", label);
	}
	rep_end(w);
}

/* ---- the section ---- */

static void legend(xmlTextWriterPtr w, const struct comparison *c)
{
	rep_el(w, "p");
	rep_attr(w, "class", "legend");
	for (size_t j = 0; j < c->nvars; j++) {
		rep_el(w, "span");
		rep_attr(w, "style", "color:%s", rep_color(j));
		xmlTextWriterWriteFormatString(w, "\xe2\x96\xa0 %s  ", c->vars[j].name);
		rep_end(w);
	}
	rep_end(w);
}

void rep_time_series(xmlTextWriterPtr w, const struct comparison *c)
{
	struct ts_key keys[TS_MAX_KEYS];
	struct strbuf flat = STRBUF_INIT;
	size_t n = collect_keys(c, keys), panels = 0, more = 0;

	if (!n)
		return;
	rep_el(w, "h2");
	rep_attr(w, "id", "timeseries");
	rep_text(w, "Over time");
	rep_end(w);
	rep_text_el(w, "p", "small",
		    "Sampled once a second during the measured "
		    "phase (the workload's go to its done, shaded); dashed: each "
		    "variant's mean time.elapsed_s. Counters show their increase "
		    "since the phase began. Thin lines are iterations, thick lines "
		    "their mean.");
	legend(w, c);
	rep_el(w, "div");
	rep_attr(w, "class", "grid");
	for (size_t k = 0; k < n; k++) {
		char v[48];

		if (keys[k].hi > keys[k].lo && panels < TS_MAX_PANELS) {
			ts_panel(w, c, &keys[k]);
			panels++;
		} else if (keys[k].hi > keys[k].lo) {
			more++;
		} else {
			cmp_fmt_sig(v, sizeof(v), keys[k].lo, 4, true);
			strbuf_addf(&flat, "%s%s %s", flat.len ? ", " : "", keys[k].name, v);
		}
	}
	rep_end(w);
	if (flat.len) {
		char *s = xasprintf("Flat in every iteration (not drawn): %s.", flat.buf);

		rep_text_el(w, "p", "small", s);
		free(s);
	}
	strbuf_release(&flat);
	if (more) {
		char *s = xasprintf("%zu more series are not drawn (at most %d panels).", more,
				    TS_MAX_PANELS);

		rep_text_el(w, "p", "small", s);
		free(s);
	}
	node_chart(w, c, keys, n);
}
