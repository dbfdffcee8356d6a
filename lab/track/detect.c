// SPDX-License-Identifier: GPL-2.0
/*
 * detect.c - change points across the series (docs/track.md, "How it
 * decides"): each watched (job, metric) series, one value per measured
 * kernel (the mean of its ok iterations) in series order, goes through
 * E-divisive means with a permutation test (analysis/changepoint.h); then
 * Benjamini-Hochberg over every p-value of every series tested, so the
 * false alarms of a track of hundreds of series stay at q.
 *
 * A series contributes at least one p-value to the family: its first
 * split's, or 1 when the detector stopped before testing (a constant
 * series, a series too short): dropping it would make the family smaller
 * than the number of questions asked.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/changepoint.h"
#include "analysis/stats.h"
#include <gsl/gsl_cdf.h>
#include "lib/timefmt.h"
#include "track/internal.h"

/* the metrics a track watches by default: the workload's, vmstat and time */
static const char *const default_watch[] = { "vmstat.*", "time.*" };

static bool watched(const struct track *t, const char *workload, const char *m, double *min_rel)
{
	*min_rel = t->def.min_rel;
	if (!t->def.nwatch) {
		size_t wl = workload ? strlen(workload) : 0;

		for (size_t i = 0; i < ARRAY_SIZE(default_watch); i++)
			if (!fnmatch(default_watch[i], m, 0))
				return true;
		return wl && !strncmp(m, workload, wl) && m[wl] == '.';
	}
	for (size_t i = 0; i < t->def.nwatch; i++) {
		if (fnmatch(t->def.watch[i].glob, m, 0))
			continue;
		if (!isnan(t->def.watch[i].min_rel))
			*min_rel = t->def.watch[i].min_rel;
		return true;
	}
	return false;
}

/* the iterations of variant in a loaded run */
static json_t *iterations_of(json_t *run, const char *variant)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(run, "variants"), i, v) {
		if (!strcmp(json_string_value(json_object_get(v, "name")) ?: "", variant))
			return json_object_get(v, "iterations");
	}
	return NULL;
}

int track_samples(struct track *t, const char *run, const char *variant, const char *metric,
		  double *out, size_t max)
{
	json_t *r = store_load_run(t->store, run), *it;
	size_t i, n = 0;

	if (!r)
		return -1;
	json_array_foreach(iterations_of(r, variant), i, it) {
		json_t *v = json_object_get(json_object_get(it, "metrics"), metric);

		if (strcmp(json_string_value(json_object_get(it, "status")) ?: "", "ok") ||
		    !json_is_number(v) || n >= max)
			continue;
		out[n++] = json_number_value(v);
	}
	json_decref(r);
	return (int)n;
}

/* sums[m] = [sum, n, sum of squares] over the ok iterations of a run's variant */
static void add_sums(struct track *t, json_t *r, const char *label, json_t *sums)
{
	const char *wl = json_string_value(json_object_get(
		json_object_get(json_object_get(r, "job_resolved"), "workload"), "name"));
	json_t *it, *v;
	const char *m;
	size_t q;

	json_array_foreach(iterations_of(r, label), q, it) {
		if (strcmp(json_string_value(json_object_get(it, "status")) ?: "", "ok"))
			continue;
		json_object_foreach(json_object_get(it, "metrics"), m, v) {
			double min_rel, x = json_number_value(v);
			json_t *s;

			if (!json_is_number(v) || !isfinite(x) || !watched(t, wl, m, &min_rel))
				continue;
			s = json_object_get(sums, m);
			if (!s) {
				s = json_pack("[f, f, f]", 0.0, 0.0, 0.0);
				json_object_set_new(sums, m, s);
			}
			for (size_t k = 0; k < 3; k++)
				json_array_set_new(s, k,
						   json_real(json_real_value(json_array_get(s, k)) +
							     (k == 0 ? x :
							      k == 1 ? 1 :
								       x * x)));
		}
	}
}

/* [mean, 95 % CI half-width (null for n < 2), n] of [sum, n, sum of squares] */
static json_t *cell_stats(json_t *sum)
{
	double s = json_real_value(json_array_get(sum, 0)),
	       n = json_real_value(json_array_get(sum, 1));
	double ss = json_real_value(json_array_get(sum, 2)), mean = s / n;
	double var = n > 1 ? (ss - n * mean * mean) / (n - 1) : NAN;
	double hw = n > 1 ? gsl_cdf_tdist_Qinv(0.025, n - 1) * sqrt(var > 0 ? var : 0) / sqrt(n) :
			    NAN;

	return json_pack("[f, o, I]", mean, isfinite(hw) ? json_real(hw) : json_null(),
			 (json_int_t)n);
}

json_t *track_job_series(struct track *t, size_t j, json_t *ids, json_t *stats)
{
	json_t *series = json_object(), *pts = json_object_get(t->state, "points"), *pt;
	const char *job = t->def.jobs[j].name;
	size_t i, k = 0;

	json_array_foreach(pts, i, pt) {
		const char *id = json_string_value(json_object_get(pt, "id"));
		json_t *slot = json_object_get(
			json_object_get(json_object_get(t->state, "runs"), id), job);
		const char *run = json_string_value(json_object_get(slot, "run"));
		json_t *r, *sums = json_object(), *v;
		const char *m;

		if (!run ||
		    strcmp(json_string_value(json_object_get(slot, "status")) ?: "", "measured")) {
			json_decref(sums);
			continue;
		}
		r = store_load_run(t->store, run);
		add_sums(t, r, json_string_value(json_object_get(pt, "label")), sums);
		json_object_foreach(sums, m, v) {
			json_t *s = json_object_get(series, m), *st = NULL;

			if (!s) {
				s = json_array();
				json_object_set_new(series, m, s);
				if (stats)
					json_object_set_new(stats, m, json_array());
			}
			while (json_array_size(s) < k)
				json_array_append_new(s, json_null());
			json_array_append_new(s, json_real(json_real_value(json_array_get(v, 0)) /
							   json_real_value(json_array_get(v, 1))));
			if (stats && (st = json_object_get(stats, m))) {
				while (json_array_size(st) < k)
					json_array_append_new(st, json_null());
				json_array_append_new(st, cell_stats(v));
			}
		}
		json_decref(sums);
		json_decref(r);
		json_array_append_new(ids, json_string(id));
		k++;
	}
	return series;
}

/* the candidates of one series into cands; how many p-values it adds to the family */
static size_t test_series(struct track *t, const char *job, const char *metric, json_t *vals,
			  json_t *ids, double min_rel, unsigned int max_perm, json_t *cands)
{
	size_t n = json_array_size(vals), max, nch = 0, i;
	double *x = xcalloc(n + 1, sizeof(*x));
	struct cp_change *ch;
	struct cp_opts o;
	json_t *v;

	json_array_foreach(vals, i, v) {
		x[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	cp_opts_default(&o);
	o.min_size = t->def.min_segment;
	o.min_rel = min_rel;
	o.seed = t->def.seed ^ track_hash(job, metric);
	if (max_perm > o.max_perm)
		o.max_perm = max_perm;
	max = cp_max_changes(n, o.min_size) + 1;
	ch = xcalloc(max, sizeof(*ch));
	if (cp_edivisive(x, NULL, NULL, n, &o, ch, max, &nch))
		nch = 0;
	for (size_t c = 0; c < nch; c++) {
		size_t k = ch[c].index;
		json_t *cand = json_pack(
			"{s:s, s:s, s:O, s:O, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:I, s:I, "
			"s:b}",
			"job", job, "metric", metric, "before", json_array_get(ids, k ? k - 1 : 0),
			"after", json_array_get(ids, k), "p", ch[c].p, "stat", ch[c].stat,
			"mean_before", ch[c].mean_before, "mean_after", ch[c].mean_after,
			"median_before", ch[c].median_before, "median_after", ch[c].median_after,
			"rel", isfinite(ch[c].rel) ? ch[c].rel : 0.0, "perms",
			(json_int_t)ch[c].perms, "min_change", min_rel, "kernels_before",
			(json_int_t)ch[c].n_before, "kernels_after", (json_int_t)ch[c].n_after,
			"kept", ch[c].kept);

		/* the point before the change is the last measured one before it */
		for (size_t b = k; b-- > 0;)
			if (!isnan(x[b])) {
				json_object_set(cand, "before", json_array_get(ids, b));
				break;
			}
		json_object_set_new(cand, "kernels", json_integer((json_int_t)n));
		json_array_append_new(cands, cand);
	}
	free(ch);
	free(x);
	return nch ? nch : 1;
}

/* Benjamini-Hochberg over the family: each candidate's q and "significant" */
static size_t adjust(json_t *cands, size_t family, double q)
{
	size_t n = json_array_size(cands), sig = 0, i;
	double *p = xcalloc(family + 1, sizeof(*p)), *qa = xcalloc(family + 1, sizeof(*qa));
	json_t *c;

	for (i = 0; i < family; i++)
		p[i] = 1.0;
	json_array_foreach(cands, i, c) {
		p[i] = json_number_value(json_object_get(c, "p"));
	}
	stats_bh(p, family, q, qa);
	for (i = 0; i < n; i++) {
		c = json_array_get(cands, i);
		json_object_set_new(c, "q", json_real(qa[i]));
		bool yes = qa[i] <= q && json_is_true(json_object_get(c, "kept"));

		json_object_set_new(c, "significant", json_boolean(yes));
		sig += yes;
	}
	free(p);
	free(qa);
	return sig;
}

/*
 * The permutations a candidate may need: a lone real change among S series
 * survives Benjamini-Hochberg only with p <= q / (the family, about 1.1 S),
 * and the smallest p of N permutations is 1 / (N + 1); twice that, and at
 * least the detector's default.
 */
static unsigned int perms_for(size_t nseries, double q)
{
	double n = 2.0 * 1.1 * (double)nseries / q;

	return n > 1e7 ? 10000000u : (unsigned int)n;
}

int track_detect(struct track *t)
{
	json_t *cands = json_array(), *an, *all = json_array(), *js;
	size_t family = 0, tested = 0, nseries = 0, sig, k;
	unsigned int max_perm;
	char now[TIME_STR_LEN];

	for (size_t j = 0; j < t->def.njobs; j++) {
		json_t *ids = json_array(), *series = track_job_series(t, j, ids, NULL);

		nseries += json_object_size(series);
		json_array_append_new(all, json_pack("{s:o, s:o}", "ids", ids, "series", series));
	}
	max_perm = perms_for(nseries, t->def.q);
	json_array_foreach(all, k, js) {
		json_t *vals, *ids = json_object_get(js, "ids");
		const char *m;

		json_object_foreach(json_object_get(js, "series"), m, vals) {
			double min_rel;

			watched(t, NULL, m, &min_rel);
			family += test_series(t, t->def.jobs[k].name, m, vals, ids, min_rel,
					      max_perm, cands);
			tested++;
		}
	}
	json_decref(all);
	sig = adjust(cands, family, t->def.q);
	an = json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:I, s:s, s:o}", "when", time_iso_now(now),
		       "seed", (json_int_t)t->def.seed, "series_tested", (json_int_t)tested,
		       "family", (json_int_t)family, "q", t->def.q, "min_change", t->def.min_rel,
		       "significant", (json_int_t)sig, "method",
		       "E-divisive means (alpha 1), permutation test, Benjamini-Hochberg",
		       "candidates", cands);
	json_object_set_new(t->state, "analysis", an);
	lab_info("track %s: %zu series tested, %zu change point%s at q = %g", t->def.name, tested,
		 sig, sig == 1 ? "" : "s", t->def.q);
	return 0;
}
