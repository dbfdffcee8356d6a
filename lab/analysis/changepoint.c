// SPDX-License-Identifier: GPL-2.0
/*
 * changepoint.c - E-divisive means with a sequential Monte-Carlo
 * permutation test, the change points of `mmlab track` (changepoint.h,
 * docs/track.md, "DETECTION STATISTICS"), and R energy's edist and eqdist.etest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "analysis/changepoint.h"
#include "lib/util.h"

/*
 * A permuted statistic within this relative distance of the observed one
 * counts as reaching it: ties are exceedances (ecp's >=), and the same
 * value summed in another order must tie too.
 */
#define CP_TIE_REL 1e-12

void cp_opts_default(struct cp_opts *o)
{
	o->min_size = 2;
	o->min_rel = 0.02;
	o->level = 0.05;
	o->seed = 0;
	o->max_perm = 19999;
	o->h = 10;
	o->kappa_search = false;
}

size_t cp_max_changes(size_t n, unsigned int min_size)
{
	if (min_size < 2)
		min_size = 2;
	return 2 * (n / min_size) + 1;
}

/* GSL's MT19937 takes a 32-bit seed: fold the 64 bits of seed into it */
static gsl_rng *rng_new(unsigned long long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffULL));
	return r;
}

static void shuffle(gsl_rng *r, unsigned int *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = gsl_rng_uniform_int(r, i);
		unsigned int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ---- the split statistic ---- */

/* what the search of one series reuses: no allocation per permutation */
struct cp_ws {
	gsl_rng *rng;
	size_t ms; /* min_size */
	bool kappa_search; /* cp_opts.kappa_search */
	/* the segment being tested, permuted: kernel i has value vs[rank[i]] */
	unsigned int *rank;
	double *vs; /* its values sorted, less their median */
	double *rowall; /* per rank: the sum of |vs[r] - vs[i]| over all i */
	double *y; /* the values in order (kappa searched) */
	double *b, *ab; /* per tau or kappa: within and between sums */
	double *fcnt, *fsum; /* a Fenwick tree over ranks: counts, sums */
	size_t *idx;
	double *inv, *inv2; /* 1 / k and 2 / (k (k - 1)), k <= n */
	double *sorted; /* a segment sorted, for medians */
};

static void ws_init(struct cp_ws *w, size_t n, const struct cp_opts *o)
{
	w->rng = rng_new(o->seed);
	w->ms = o->min_size;
	w->kappa_search = o->kappa_search;
	w->rank = xmalloc((n + 2) * sizeof(*w->rank));
	w->vs = xmalloc((n + 2) * sizeof(double));
	w->rowall = xmalloc((n + 2) * sizeof(double));
	w->fcnt = xmalloc((n + 2) * sizeof(double));
	w->fsum = xmalloc((n + 2) * sizeof(double));
	w->idx = xmalloc((n + 2) * sizeof(*w->idx));
	w->y = xmalloc((n + 2) * sizeof(double));
	w->b = xmalloc((n + 2) * sizeof(double));
	w->ab = xmalloc((n + 2) * sizeof(double));
	w->inv = xmalloc((n + 2) * sizeof(double));
	w->inv2 = xmalloc((n + 2) * sizeof(double));
	w->sorted = xmalloc((n + 2) * sizeof(double));
	w->inv[0] = w->inv2[0] = w->inv2[1] = 0;
	for (size_t k = 1; k <= n; k++) {
		w->inv[k] = 1.0 / (double)k;
		if (k >= 2)
			w->inv2[k] = 2.0 / ((double)k * (double)(k - 1));
	}
}

static void ws_release(struct cp_ws *w)
{
	gsl_rng_free(w->rng);
	free(w->rank);
	free(w->vs);
	free(w->rowall);
	free(w->fcnt);
	free(w->fsum);
	free(w->idx);
	free(w->y);
	free(w->b);
	free(w->ab);
	free(w->inv);
	free(w->inv2);
	free(w->sorted);
}

/*
 * The scaled energy statistic of left = y[0..t1), right = y[t1..t2) from
 * the sums of |y_i - y_j| within left (a, pairs i < j), within right (b)
 * and between them (ab): as ecp's splitPointC, with U-statistics within,
 *   t1 n2 / t2 * (2 ab / (t1 n2) - 2 b / (n2 (n2 - 1)) - 2 a / (t1 (t1 - 1)))
 */
static inline double qstat(const struct cp_ws *w, size_t t1, size_t t2, double a, double b,
			   double ab)
{
	size_t n2 = t2 - t1;

	return 2 * ab * w->inv[t2] -
	       (double)t1 * (double)n2 * w->inv[t2] * (b * w->inv2[n2] + a * w->inv2[t1]);
}

/* sum of |v - y[i]| over i in [from, to) */
static inline double dsum(const double *y, size_t from, size_t to, double v)
{
	double s = 0;

	for (size_t i = from; i < to; i++)
		s += fabs(v - y[i]);
	return s;
}

/*
 * The segment x[0..m) as ranks: vs sorted and centred on its median (the
 * statistic does not move with the values; the sums below lose less to
 * rounding), rank[i] the rank of x[i], rowall[r] the sum of |vs[r] - vs[i]|
 * over the segment. A permutation of the segment is one of rank[].
 */
static void ranks_prepare(struct cp_ws *w, const double *x, size_t m)
{
	double centre, below = 0, total = 0;

	gsl_sort_index(w->idx, x, 1, m);
	centre = x[w->idx[(m - 1) / 2]];
	for (size_t k = 0; k < m; k++) {
		w->vs[k] = x[w->idx[k]] - centre;
		w->rank[w->idx[k]] = (unsigned int)k;
		total += w->vs[k];
	}
	for (size_t k = 0; k < m; k++) {
		double v = w->vs[k];

		w->rowall[k] =
			v * (double)k - below + (total - below - v) - v * (double)(m - k - 1);
		below += v;
	}
}

/*
 * kappa = the segment's end (as Apache Otava): max over tau (t1) of the
 * statistic of the kernels [0..t1) against [t1..m), each side at least ms
 * kernels. Kernel j's distances to the kernels before it come from a
 * Fenwick tree over ranks (the count and sum of the smaller values before
 * it), those to the kernels after it from rowall: O(m log m).
 */
static double split_end(struct cp_ws *w, size_t m, size_t *tau)
{
	double *pre = w->b, *suf = w->ab, best = -INFINITY, before = 0;

	memset(w->fcnt, 0, (m + 1) * sizeof(double));
	memset(w->fsum, 0, (m + 1) * sizeof(double));
	pre[0] = 0;
	for (size_t j = 0; j < m; j++) {
		size_t r = w->rank[j];
		double v = w->vs[r], c = 0, s = 0, left;

		for (size_t i = r; i > 0; i -= i & -i) {
			c += w->fcnt[i];
			s += w->fsum[i];
		}
		left = v * c - s + (before - s) - v * ((double)j - c);
		pre[j + 1] = pre[j] + left;
		suf[j] = w->rowall[r] - left;
		for (size_t i = r + 1; i <= m; i += i & -i) {
			w->fcnt[i] += 1;
			w->fsum[i] += v;
		}
		before += v;
	}
	/* pre[t]: pairs within [0..t); suf[t]: pairs within [t..m) */
	suf[m] = 0;
	for (size_t t = m; t-- > 0;)
		suf[t] += suf[t + 1];
	for (size_t t1 = w->ms; t1 + w->ms <= m; t1++) {
		double a = pre[t1], b = suf[t1];
		double q = qstat(w, t1, m, a, b, pre[m] - a - b);

		if (q > best) {
			best = q;
			*tau = t1;
		}
	}
	return best;
}

/* kappa searched, the first tau = ms: the sums built up kernel by kernel */
static double search_first(struct cp_ws *w, const double *y, size_t m, double *a, size_t *tau)
{
	size_t t1 = w->ms;
	double best = -INFINITY;

	*a = 0;
	for (size_t i = 1; i < t1; i++)
		*a += dsum(y, 0, i, y[i]);
	w->b[t1] = w->ab[t1] = 0;
	for (size_t t2 = t1 + 1; t2 <= m; t2++) {
		double v = y[t2 - 1], q;

		w->b[t2] = w->b[t2 - 1] + dsum(y, t1, t2 - 1, v);
		w->ab[t2] = w->ab[t2 - 1] + dsum(y, 0, t1, v);
		if (t2 < t1 + w->ms)
			continue;
		q = qstat(w, t1, t2, *a, w->b[t2], w->ab[t2]);
		if (q > best) {
			best = q;
			*tau = t1;
		}
	}
	return best;
}

/*
 * kappa searched (ecp's splitPointC): max over tau (t1) and kappa (t2) of
 * the statistic of y[0..t1) against y[t1..t2), each at least ms kernels,
 * the sums updated in O(m^2) in all as tau moves right.
 */
static double split_search(struct cp_ws *w, const double *y, size_t m, size_t *tau)
{
	size_t ms = w->ms;
	double a, best = search_first(w, y, m, &a, tau);

	for (size_t t1 = ms + 1; t1 + ms <= m; t1++) {
		double e = y[t1 - 1]; /* the kernel that moves to the left */
		double adda = dsum(y, 0, t1 - 1, e);
		double addb = dsum(y, t1, t1 + ms - 1, e);

		a += adda;
		for (size_t t2 = t1 + ms; t2 <= m; t2++) {
			double q;

			addb += fabs(e - y[t2 - 1]);
			w->b[t2] -= addb;
			w->ab[t2] += addb - adda;
			q = qstat(w, t1, t2, a, w->b[t2], w->ab[t2]);
			if (q > best) {
				best = q;
				*tau = t1;
			}
		}
	}
	return best;
}

/* the best split of the ranked segment (m >= 2 ms): its statistic, *tau its start */
static double split_max(struct cp_ws *w, size_t m, size_t *tau)
{
	if (!w->kappa_search)
		return split_end(w, m, tau);
	for (size_t i = 0; i < m; i++)
		w->y[i] = w->vs[w->rank[i]];
	return split_search(w, w->y, m, tau);
}

/*
 * The sequential Monte-Carlo p-value of the best split of the ranked
 * segment (ranks_prepare()) with statistic obs (Besag & Clifford 1991): permute within the segment until
 * h permuted maxima reach obs (p = h / L after L permutations) or max_perm
 * permutations (p = (k + 1) / (max_perm + 1), k reached).
 */
static double perm_p(struct cp_ws *w, size_t m, double obs, const struct cp_opts *o,
		     unsigned int *perms)
{
	double tol = CP_TIE_REL * fabs(obs);
	unsigned int k = 0;
	size_t tau;

	for (unsigned int l = 1; l <= o->max_perm; l++) {
		shuffle(w->rng, w->rank, m);
		if (split_max(w, m, &tau) >= obs - tol && ++k == o->h) {
			*perms = l;
			return (double)o->h / (double)l;
		}
	}
	*perms = o->max_perm;
	return (double)(k + 1) / ((double)o->max_perm + 1);
}

/* ---- medians and the segments' summaries ---- */

/* x[0..m) sorted into w->sorted */
static const double *sorted(struct cp_ws *w, const double *x, size_t m)
{
	memcpy(w->sorted, x, m * sizeof(*x));
	gsl_sort(w->sorted, 1, m);
	return w->sorted;
}

static double median_of(const double *v, size_t m)
{
	return (v[(m - 1) / 2] + v[m / 2]) / 2;
}

/*
 * Fewer than two kernels of x[0..m) differ from its median: no split can
 * pass the magnitude rule (a segment's conservative median moves only when
 * two kernels do), so the segment is not tested. Holds for a constant one.
 */
static bool flat(struct cp_ws *w, const double *x, size_t m)
{
	const double *v = sorted(w, x, m);
	double med = median_of(v, m);
	size_t differ = 0;

	for (size_t i = 0; i < m && differ < 2; i++)
		differ += x[i] != med;
	return differ < 2;
}

/* a segment of the final segmentation, summarised */
struct side {
	size_t n;
	double mean, median;
	double lo, hi; /* its lower and upper median */
};

/* the series' finite values, and where each came from */
struct series {
	const double *xs; /* the finite values of x */
	const size_t *map; /* xs[i] is x[map[i]] */
	size_t n;
	const double *const *iter;
	const size_t *niter;
};

/* the mean of the iteration samples of kernels xs[a..b); NaN if none */
static double iter_mean(const struct series *s, size_t a, size_t b)
{
	double sum = 0;
	size_t k = 0;

	if (!s->iter)
		return NAN;
	for (size_t i = a; i < b; i++) {
		size_t kern = s->map[i];

		for (size_t j = 0; j < s->niter[kern]; j++) {
			double v = s->iter[kern][j];

			if (isfinite(v)) {
				sum += v;
				k++;
			}
		}
	}
	return k ? sum / (double)k : NAN;
}

static void summarize(struct cp_ws *w, const struct series *s, size_t a, size_t b, struct side *d)
{
	size_t m = b - a;
	const double *v = sorted(w, s->xs + a, m);
	double sum = 0;

	d->n = m;
	d->median = median_of(v, m);
	d->lo = v[(m - 1) / 2];
	d->hi = v[m / 2];
	for (size_t i = 0; i < m; i++)
		sum += v[i];
	d->mean = iter_mean(s, a, b);
	if (isnan(d->mean))
		d->mean = sum / (double)m;
}

/*
 * The magnitude rule: the medians of the two sides, each taken on the
 * side nearer the other (a side's lower median when it is the higher
 * side, its upper one otherwise), differ, and by min_rel of the one
 * before unless that is 0. So a side of 2 kernels moves only when both
 * do, and no single kernel carries a change.
 */
static bool magnitude_ok(const struct side *bf, const struct side *af, double min_rel)
{
	double before, after;

	if (af->median > bf->median) {
		after = af->lo;
		before = bf->hi;
		if (!(after > before))
			return false;
	} else if (af->median < bf->median) {
		after = af->hi;
		before = bf->lo;
		if (!(after < before))
			return false;
	} else {
		return false;
	}
	if (before == 0)
		return true;
	return fabs(after - before) >= min_rel * fabs(before);
}

/* ---- the bisection ---- */

/* a candidate as the search finds it: c indexes the finite values */
struct cand {
	size_t c;
	double p, stat;
	unsigned int perms;
	bool sig; /* p <= level: a boundary of the final segmentation */
};

struct seg {
	size_t a, b;
};

/*
 * Bisect xs[0..n): a segment's best split is tested; a significant one
 * splits it in two, which are searched in turn (the left first); a segment
 * too short for two sides of min_size kernels, or flat(), is final. The
 * random stream is consumed in this fixed order: the same seed, the same
 * p-values.
 */
static size_t search(struct cp_ws *w, const struct series *s, const struct cp_opts *o,
		     struct cand *cands)
{
	size_t ms = o->min_size, top = 0, nc = 0;
	struct seg *stack = xmalloc((s->n / ms + 2) * sizeof(*stack));

	stack[top++] = (struct seg){ 0, s->n };
	while (top) {
		struct seg g = stack[--top];
		size_t m = g.b - g.a, tau = 0;
		const double *x = s->xs + g.a;
		struct cand *cd;

		if (m < 2 * ms || flat(w, x, m))
			continue;
		cd = &cands[nc++];
		ranks_prepare(w, x, m);
		cd->stat = split_max(w, m, &tau);
		cd->c = g.a + tau;
		cd->p = perm_p(w, m, cd->stat, o, &cd->perms);
		cd->sig = cd->p <= o->level;
		if (cd->sig) {
			stack[top++] = (struct seg){ cd->c, g.b };
			stack[top++] = (struct seg){ g.a, cd->c };
		}
	}
	free(stack);
	return nc;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return (x->c > y->c) - (x->c < y->c);
}

/*
 * cands[0..nc) sorted by index into out[]: each one's sides are the
 * segments of the final segmentation either side of it (its boundaries:
 * the significant candidates), which for a candidate that is not
 * significant are the two halves of the segment it would have split.
 */
static void report(struct cp_ws *w, const struct series *s, const struct cp_opts *o,
		   struct cand *cands, size_t nc, struct cp_change *out)
{
	qsort(cands, nc, sizeof(*cands), cand_cmp);
	for (size_t i = 0; i < nc; i++) {
		struct cp_change *c = &out[i];
		size_t a = 0, b = s->n;
		struct side bf, af;

		for (size_t j = i; j-- > 0;)
			if (cands[j].sig) {
				a = cands[j].c;
				break;
			}
		for (size_t j = i + 1; j < nc; j++)
			if (cands[j].sig) {
				b = cands[j].c;
				break;
			}
		summarize(w, s, a, cands[i].c, &bf);
		summarize(w, s, cands[i].c, b, &af);
		memset(c, 0, sizeof(*c));
		c->index = s->map[cands[i].c];
		c->p = cands[i].p;
		c->stat = cands[i].stat;
		c->perms = cands[i].perms;
		c->mean_before = bf.mean;
		c->mean_after = af.mean;
		c->median_before = bf.median;
		c->median_after = af.median;
		c->delta = af.median - bf.median;
		c->rel = bf.median != 0 ? af.median / bf.median - 1 : NAN;
		c->n_before = bf.n;
		c->n_after = af.n;
		c->kept = cands[i].sig && magnitude_ok(&bf, &af, o->min_rel);
	}
}

static int check_opts(const struct cp_opts *o, size_t n)
{
	if (o->min_size < 2 || o->min_size > CP_MAX_N) {
		lab_err("change points: min_size %u is not in [2, %d]", o->min_size, CP_MAX_N);
		return -1;
	}
	if (!(o->min_rel >= 0) || !isfinite(o->min_rel)) {
		lab_err("change points: min_rel %g is not a finite number >= 0", o->min_rel);
		return -1;
	}
	if (!(o->level > 0 && o->level <= 1)) {
		lab_err("change points: level %g is not in (0, 1]", o->level);
		return -1;
	}
	if (o->kappa_search && n > CP_MAX_N_SEARCH) {
		lab_err("change points: %zu kernels: kappa_search takes at most %d", n,
			CP_MAX_N_SEARCH);
		return -1;
	}
	if (o->max_perm < 1 || o->max_perm > CP_MAX_PERM || o->h < 1) {
		lab_err("change points: max_perm %u must be in [1, %u] and h %u at least 1",
			o->max_perm, CP_MAX_PERM, o->h);
		return -1;
	}
	return 0;
}

static int check_series(const double *x, const double *const *iter, const size_t *niter, size_t n)
{
	if (n > CP_MAX_N || (n && !x) || !iter != !niter) {
		lab_err("change points: %zu kernels (at most %d), or no values, or iteration "
			"samples without their counts",
			n, CP_MAX_N);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (isinf(x[i])) {
			lab_err("change points: kernel %zu has an infinite value", i);
			return -1;
		}
		if (iter && (niter[i] > CP_MAX_N || (niter[i] && !iter[i]))) {
			lab_err("change points: kernel %zu: %zu iteration samples (at most %d)", i,
				niter[i], CP_MAX_N);
			return -1;
		}
	}
	return 0;
}

int cp_edivisive(const double *x, const double *const *iter, const size_t *niter, size_t n,
		 const struct cp_opts *o, struct cp_change *out, size_t max, size_t *nout)
{
	struct cp_opts def;
	struct series s = { .iter = iter, .niter = niter };
	struct cp_ws w;
	struct cand *cands;
	double *xs;
	size_t *map, nc;

	*nout = 0;
	if (!o) {
		cp_opts_default(&def);
		o = &def;
	}
	if (check_opts(o, n) || check_series(x, iter, niter, n))
		return -1;
	xs = xmalloc((n + 1) * sizeof(*xs));
	map = xmalloc((n + 1) * sizeof(*map));
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i])) {
			xs[s.n] = x[i];
			map[s.n++] = i;
		}
	s.xs = xs;
	s.map = map;
	cands = xmalloc(cp_max_changes(s.n, o->min_size) * sizeof(*cands));
	ws_init(&w, s.n, o);
	nc = search(&w, &s, o, cands);
	if (nc > max) {
		lab_err("change points: %zu candidates and room for %zu (cp_max_changes())", nc,
			max);
	} else {
		report(&w, &s, o, cands, nc, out);
		*nout = nc;
	}
	ws_release(&w);
	free(cands);
	free(map);
	free(xs);
	return nc > max ? -1 : 0;
}

/* ---- R energy's two-sample statistic and test ---- */

/* the pooled sample of a two-sample test, sorted, each value's sample */
struct pooled {
	double *v; /* sorted */
	unsigned char *isx; /* v[k] is from x */
	size_t nx, ny;
	double wpool; /* sum of |v_i - v_j| over i < j */
};

static int check_sample(const double *x, size_t n, const char *name)
{
	if (!n || n > CP_MAX_N || !x) {
		lab_err("energy test: sample %s has %zu values (1 to %d)", name, n, CP_MAX_N);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i])) {
			lab_err("energy test: sample %s: value %zu is not finite", name, i);
			return -1;
		}
	return 0;
}

static int pooled_init(struct pooled *p, const double *x, size_t nx, const double *y, size_t ny)
{
	size_t n = nx + ny, *idx;
	double *raw;

	if (check_sample(x, nx, "x") || check_sample(y, ny, "y"))
		return -1;
	raw = xmalloc(n * sizeof(*raw));
	idx = xmalloc(n * sizeof(*idx));
	memcpy(raw, x, nx * sizeof(*x));
	memcpy(raw + nx, y, ny * sizeof(*y));
	gsl_sort_index(idx, raw, 1, n);
	p->v = xmalloc(n * sizeof(*p->v));
	p->isx = xmalloc(n);
	p->nx = nx;
	p->ny = ny;
	p->wpool = 0;
	for (size_t k = 0; k < n; k++) {
		p->v[k] = raw[idx[k]];
		p->isx[k] = idx[k] < nx;
		p->wpool += p->v[k] * (2 * (double)k - (double)n + 1);
	}
	free(idx);
	free(raw);
	return 0;
}

static void pooled_release(struct pooled *p)
{
	free(p->v);
	free(p->isx);
}

/*
 * energy's statistic for the split of the pooled sample that isx gives:
 * the sum over a sorted sample of |v_i - v_j|, i < j, is
 * sum_k v_k (2 k - n + 1); the between sum is the pooled one minus both.
 */
static double pooled_stat(const struct pooled *p)
{
	double nx = (double)p->nx, ny = (double)p->ny, wx = 0, wy = 0, between;
	size_t rx = 0, ry = 0;

	for (size_t k = 0; k < p->nx + p->ny; k++) {
		if (p->isx[k])
			wx += p->v[k] * (2 * (double)rx++ - nx + 1);
		else
			wy += p->v[k] * (2 * (double)ry++ - ny + 1);
	}
	between = p->wpool - wx - wy;
	return nx * ny / (nx + ny) *
	       (2 * between / (nx * ny) - 2 * wx / (nx * nx) - 2 * wy / (ny * ny));
}

double cp_edist(const double *x, size_t nx, const double *y, size_t ny)
{
	struct pooled p;
	double e;

	if (pooled_init(&p, x, nx, y, ny))
		return NAN;
	e = pooled_stat(&p);
	pooled_release(&p);
	return e;
}

double cp_etest(const double *x, size_t nx, const double *y, size_t ny, unsigned int R,
		unsigned long long seed)
{
	struct pooled p;
	gsl_rng *rng;
	double e0;
	unsigned int k = 0;

	if (R < 1 || R > CP_MAX_PERM) {
		lab_err("energy test: %u permutations (1 to %u)", R, CP_MAX_PERM);
		return NAN;
	}
	if (pooled_init(&p, x, nx, y, ny))
		return NAN;
	e0 = pooled_stat(&p);
	rng = rng_new(seed);
	for (unsigned int r = 0; r < R; r++) {
		for (size_t i = nx + ny; i > 1; i--) {
			size_t j = gsl_rng_uniform_int(rng, i);
			unsigned char t = p.isx[i - 1];

			p.isx[i - 1] = p.isx[j];
			p.isx[j] = t;
		}
		k += pooled_stat(&p) > e0;
	}
	gsl_rng_free(rng);
	pooled_release(&p);
	return (double)(k + 1) / ((double)R + 1);
}
