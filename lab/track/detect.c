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

static const struct track_run_variant *variant_of(const struct track_stored_run *r,
						  const char *name)
{
	for (size_t i = 0; i < r->nvars; i++)
		if (!strcmp(r->vars[i].name ?: "", name))
			return &r->vars[i];
	return NULL;
}

/* the value of metric in an iteration, or NULL */
static const double *metric_of(const struct track_iter *it, const char *metric)
{
	for (size_t m = 0; m < it->nmetrics; m++)
		if (!strcmp(it->names[m], metric))
			return &it->values[m];
	return NULL;
}

int track_samples(struct track *t, const char *run, const char *variant, const char *metric,
		  double *out, size_t max)
{
	const struct track_run_variant *v;
	struct track_stored_run r;
	size_t n = 0;

	if (track_run_load(t->store, run, &r))
		return -1;
	v = variant_of(&r, variant);
	for (size_t i = 0; v && i < v->nits; i++) {
		const double *x = metric_of(&v->its[i], metric);

		if (!v->its[i].ok || !x || n >= max)
			continue;
		out[n++] = *x;
	}
	track_run_release(&r);
	return (int)n;
}

/* the sums of a metric over a kernel's ok iterations */
struct sums {
	const char *metric; /* borrowed from the run */
	double s, n, ss;
};

/* the sums of every watched metric over the ok iterations of a run's variant */
static struct sums *add_sums(struct track *t, const struct track_stored_run *r, const char *label,
			     size_t *nsums)
{
	const struct track_run_variant *v = variant_of(r, label);
	struct sums *sums = NULL;

	*nsums = 0;
	for (size_t q = 0; v && q < v->nits; q++) {
		const struct track_iter *it = &v->its[q];

		if (!it->ok)
			continue;
		for (size_t m = 0; m < it->nmetrics; m++) {
			double min_rel, x = it->values[m];
			size_t k;

			if (!watched(t, r->workload, it->names[m], &min_rel))
				continue;
			for (k = 0; k < *nsums && strcmp(sums[k].metric, it->names[m]); k++)
				;
			if (k == *nsums) {
				sums = xrealloc(sums, (*nsums + 1) * sizeof(*sums));
				sums[(*nsums)++] = (struct sums){ .metric = it->names[m] };
			}
			sums[k].s += x;
			sums[k].n += 1;
			sums[k].ss += x * x;
		}
	}
	return sums;
}

/* the mean, its 95 % CI half-width (NAN for n < 2) and n of the sums */
static struct track_cell cell_stats(const struct sums *sum)
{
	double n = sum->n, mean = sum->s / n;
	double var = n > 1 ? (sum->ss - n * mean * mean) / (n - 1) : NAN;
	double hw = n > 1 ? gsl_cdf_tdist_Qinv(0.025, n - 1) * sqrt(var > 0 ? var : 0) / sqrt(n) :
			    NAN;

	return (struct track_cell){ .has = true, .mean = mean, .hw = hw, .n = (unsigned long)n };
}

/* the series of metric in out, added (no cells yet) when there is none */
static struct track_series *series_of(struct track_series_set *out, const char *metric,
				      size_t npoints)
{
	struct track_series *s;

	for (size_t i = 0; i < out->nseries; i++)
		if (!strcmp(out->series[i].metric, metric))
			return &out->series[i];
	out->series = xrealloc(out->series, (out->nseries + 1) * sizeof(*out->series));
	s = &out->series[out->nseries++];
	s->metric = xstrdup(metric);
	s->cells = xcalloc(npoints + 1, sizeof(*s->cells));
	return s;
}

int track_job_series(struct track *t, size_t j, struct track_series_set *out)
{
	const char *job = t->def.jobs[j].name;
	size_t np = t->state.npoints;

	memset(out, 0, sizeof(*out));
	out->ids = xcalloc(np + 1, sizeof(*out->ids));
	for (size_t i = 0; i < np; i++) {
		struct track_point *pt = &t->state.points[i];
		struct track_slot *slot = track_point_slot(pt, job);
		struct track_stored_run r;
		struct sums *sums;
		size_t nsums;

		if (!slot || !slot->run || strcmp(slot->status ?: "", "measured"))
			continue;
		if (track_run_load(t->store, slot->run, &r))
			memset(&r, 0, sizeof(r));
		sums = add_sums(t, &r, pt->label, &nsums);
		for (size_t m = 0; m < nsums; m++)
			series_of(out, sums[m].metric, np)->cells[out->nids] = cell_stats(&sums[m]);
		free(sums);
		track_run_release(&r);
		out->ids[out->nids++] = pt->id;
	}
	return 0;
}

void track_job_series_release(struct track_series_set *s)
{
	for (size_t i = 0; i < s->nseries; i++) {
		free(s->series[i].metric);
		free(s->series[i].cells);
	}
	free(s->series);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

/* the candidates of one (job, metric) series */
struct cands {
	struct track_cand *v;
	size_t n;
};

/* a candidate of a change; false when a number of it is not one (it is left out) */
static bool cand_of(const struct cp_change *ch, double min_rel, struct track_cand *c)
{
	const double must[] = { ch->p,		ch->stat,	   ch->mean_before,
				ch->mean_after, ch->median_before, ch->median_after,
				min_rel };

	for (size_t i = 0; i < ARRAY_SIZE(must); i++)
		if (!isfinite(must[i]))
			return false;
	*c = (struct track_cand){
		.p = ch->p,
		.q = NAN,
		.stat = ch->stat,
		.mean_before = ch->mean_before,
		.mean_after = ch->mean_after,
		.median_before = ch->median_before,
		.median_after = ch->median_after,
		.rel = isfinite(ch->rel) ? ch->rel : 0.0,
		.perms = (json_int_t)ch->perms,
		.min_change = min_rel,
		.kernels_before = (json_int_t)ch->n_before,
		.kernels_after = (json_int_t)ch->n_after,
		.kept = ch->kept,
	};
	return true;
}

/* the cells of a series up to its last value: the kernels it is tested over */
static size_t series_len(const struct track_series *s, size_t nids)
{
	size_t n = 0;

	for (size_t i = 0; i < nids; i++)
		if (s->cells[i].has)
			n = i + 1;
	return n;
}

/* the candidates of one series into cands; how many p-values it adds to the family */
static size_t test_series(struct track *t, const char *job, const struct track_series *s,
			  const char *const *ids, size_t nids, double min_rel,
			  unsigned int max_perm, struct cands *cands)
{
	size_t n = series_len(s, nids), max, nch = 0;
	double *x = xcalloc(n + 1, sizeof(*x));
	struct cp_change *ch;
	struct cp_opts o;

	for (size_t i = 0; i < n; i++)
		x[i] = s->cells[i].has ? s->cells[i].mean : NAN;
	cp_opts_default(&o);
	o.min_size = t->def.min_segment;
	o.min_rel = min_rel;
	o.seed = t->def.seed ^ track_hash(job, s->metric);
	if (max_perm > o.max_perm)
		o.max_perm = max_perm;
	max = cp_max_changes(n, o.min_size) + 1;
	ch = xcalloc(max, sizeof(*ch));
	if (cp_edivisive(x, NULL, NULL, n, &o, ch, max, &nch))
		nch = 0;
	for (size_t c = 0; c < nch; c++) {
		size_t k = ch[c].index, before = k ? k - 1 : 0;
		struct track_cand cand;

		if (!cand_of(&ch[c], min_rel, &cand))
			continue;
		/* the point before the change is the last measured one before it */
		for (size_t b = k; b-- > 0;)
			if (!isnan(x[b])) {
				before = b;
				break;
			}
		cand.job = xstrdup(job);
		cand.metric = xstrdup(s->metric);
		cand.before = xstrdup(ids[before]);
		cand.after = xstrdup(ids[k]);
		cand.kernels = (json_int_t)n;
		cands->v = xrealloc(cands->v, (cands->n + 1) * sizeof(*cands->v));
		cands->v[cands->n++] = cand;
	}
	free(ch);
	free(x);
	return nch ? nch : 1;
}

/* Benjamini-Hochberg over the family: each candidate's q and "significant" */
static size_t adjust(struct track_cand *cands, size_t n, size_t family, double q)
{
	size_t sig = 0, i;
	double *p = xcalloc(family + 1, sizeof(*p)), *qa = xcalloc(family + 1, sizeof(*qa));

	for (i = 0; i < family; i++)
		p[i] = 1.0;
	for (i = 0; i < n; i++)
		p[i] = cands[i].p;
	stats_bh(p, family, q, qa);
	for (i = 0; i < n; i++) {
		cands[i].q = qa[i];
		cands[i].significant = qa[i] <= q && cands[i].kept;
		sig += cands[i].significant;
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
	struct track_series_set *all = xcalloc(t->def.njobs + 1, sizeof(*all));
	struct track_analysis *an = &t->state.analysis;
	size_t family = 0, tested = 0, nseries = 0, sig;
	struct cands cands = { 0 };
	unsigned int max_perm;
	char now[TIME_STR_LEN];

	for (size_t j = 0; j < t->def.njobs; j++) {
		track_job_series(t, j, &all[j]);
		nseries += all[j].nseries;
	}
	max_perm = perms_for(nseries, t->def.q);
	for (size_t j = 0; j < t->def.njobs; j++) {
		for (size_t m = 0; m < all[j].nseries; m++) {
			double min_rel;

			watched(t, NULL, all[j].series[m].metric, &min_rel);
			family += test_series(t, t->def.jobs[j].name, &all[j].series[m], all[j].ids,
					      all[j].nids, min_rel, max_perm, &cands);
			tested++;
		}
		track_job_series_release(&all[j]);
	}
	free(all);
	sig = adjust(cands.v, cands.n, family, t->def.q);
	track_analysis_release(an);
	*an = (struct track_analysis){
		.present = true,
		.when = xstrdup(time_iso_now(now)),
		.method =
			xstrdup("E-divisive means (alpha 1), permutation test, Benjamini-Hochberg"),
		.seed = (json_int_t)t->def.seed,
		.series_tested = (json_int_t)tested,
		.family = (json_int_t)family,
		.significant = (json_int_t)sig,
		.q = t->def.q,
		.min_change = t->def.min_rel,
		.cands = cands.v,
		.ncands = cands.n,
	};
	lab_info("track %s: %zu series tested, %zu change point%s at q = %g", t->def.name, tested,
		 sig, sig == 1 ? "" : "s", t->def.q);
	return 0;
}
