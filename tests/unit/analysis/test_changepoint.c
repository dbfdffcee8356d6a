// SPDX-License-Identifier: GPL-2.0
/*
 * test_changepoint.c - lab/analysis/changepoint.c: the energy distance and
 * test against R's energy package and the E-divisive split against its
 * definition in R (tests/unit/changepoint/energy_ref.txt, made by
 * energy_ref.R; MMLAB_CP_REF names another such file, as
 * check-against-r.sh does), then the change points: steps found where
 * they are, counters that must give none, determinism, the null p-values,
 * the options, bad input.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/changepoint.h"
#include "capture.h"
#include "lib/util.h"

#define REF_MAX 256 /* values in a sample of the reference file */
#define OUT_MAX 256

#define assert_near(a, b, eps)                                              \
	do {                                                                \
		double a_ = (a), b_ = (b);                                  \
		if (!(fabs(a_ - b_) <= (eps)))                              \
			fail_msg("%s = %.12g, expected %.12g", #a, a_, b_); \
	} while (0)

/* ---- the reference file ---- */

struct ref_pair {
	char name[32];
	double x[REF_MAX], y[REF_MAX];
	size_t nx, ny;
	double edist, p;
	unsigned int R;
};

struct ref_series {
	char name[32];
	unsigned int ms;
	double v[REF_MAX];
	size_t n;
	size_t tau_end, tau_search;
	double stat_end, stat_search;
};

struct ref {
	struct ref_pair pairs[16];
	struct ref_series series[16];
	size_t npairs, nseries;
};

/* the numbers after the first word of line into v[0..REF_MAX) */
static size_t numbers(char *line, double *v)
{
	char *save = NULL, *tok;
	size_t n = 0;

	strtok_r(line, " \n", &save); /* the line's kind */
	while ((tok = strtok_r(NULL, " \n", &save))) {
		char *end;

		assert_true(n < REF_MAX);
		v[n++] = strtod(tok, &end);
		assert_true(end != tok && !*end);
	}
	return n;
}

static void ref_line(struct ref *r, char *line)
{
	struct ref_pair *p = r->npairs ? &r->pairs[r->npairs - 1] : NULL;
	struct ref_series *s = r->nseries ? &r->series[r->nseries - 1] : NULL;
	double v[REF_MAX];

	if (!strncmp(line, "pair ", 5)) {
		assert_true(r->npairs < ARRAY_SIZE(r->pairs));
		p = &r->pairs[r->npairs++];
		assert_int_equal(sscanf(line, "pair %31s", p->name), 1);
	} else if (!strncmp(line, "series ", 7)) {
		assert_true(r->nseries < ARRAY_SIZE(r->series));
		s = &r->series[r->nseries++];
		assert_int_equal(sscanf(line, "series %31s %u", s->name, &s->ms), 2);
	} else if (line[0] == 'x' && line[1] == ' ') {
		p->nx = numbers(line, p->x);
	} else if (line[0] == 'y' && line[1] == ' ') {
		p->ny = numbers(line, p->y);
	} else if (!strncmp(line, "edist ", 6)) {
		assert_int_equal(numbers(line, v), 1);
		p->edist = v[0];
	} else if (!strncmp(line, "etest ", 6)) {
		assert_int_equal(numbers(line, v), 2);
		p->R = (unsigned int)v[0];
		p->p = v[1];
	} else if (line[0] == 'v' && line[1] == ' ') {
		s->n = numbers(line, s->v);
	} else if (!strncmp(line, "split_end ", 10)) {
		assert_int_equal(numbers(line, v), 2);
		s->tau_end = (size_t)v[0];
		s->stat_end = v[1];
	} else if (!strncmp(line, "split_search ", 13)) {
		assert_int_equal(numbers(line, v), 2);
		s->tau_search = (size_t)v[0];
		s->stat_search = v[1];
	} else if (line[0] != '#') {
		fail_msg("energy_ref: a line of unknown kind: %s", line);
	}
}

/* a line of values that no "pair" or "series" line comes before */
static bool orphan(const struct ref *r, const char *line)
{
	bool pair_line = strchr("xy", line[0]) || !strncmp(line, "edist", 5) ||
			 !strncmp(line, "etest", 5);
	bool series_line = line[0] == 'v' || !strncmp(line, "split_", 6);

	return (pair_line && !r->npairs) || (series_line && !r->nseries);
}

static struct ref *ref_load(void)
{
	const char *env = getenv("MMLAB_CP_REF");
	char *path = env ? xstrdup(env) :
			   xasprintf("%s/tests/unit/changepoint/energy_ref.txt", srcdir());
	struct ref *r = xcalloc(1, sizeof(*r));
	char line[16384];
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		assert_non_null(strchr(line, '\n'));
		if (orphan(r, line))
			fail_msg("%s: values before their pair or series: %s", path, line);
		ref_line(r, line);
	}
	fclose(f);
	free(path);
	assert_true(r->npairs >= 5 && r->nseries >= 4);
	return r;
}

/* ---- against R ---- */

static void test_edist_r(void **state)
{
	struct ref *r = ref_load();

	(void)state;
	for (size_t i = 0; i < r->npairs; i++) {
		const struct ref_pair *p = &r->pairs[i];
		double e = cp_edist(p->x, p->nx, p->y, p->ny);

		print_message("edist %-8s n %3zu/%3zu: mmlab %.15g, R %.15g, difference %.2g\n",
			      p->name, p->nx, p->ny, e, p->edist, e - p->edist);
		assert_near(e, p->edist, 1e-9 * fmax(1, fabs(p->edist)));
		/* symmetric in its samples */
		assert_near(cp_edist(p->y, p->ny, p->x, p->nx), e, 1e-9 * fmax(1, fabs(e)));
	}
	free(r);
}

/* both sides are Monte-Carlo estimates of the same p with R permutations */
static void test_etest_r(void **state)
{
	struct ref *r = ref_load();

	(void)state;
	for (size_t i = 0; i < r->npairs; i++) {
		const struct ref_pair *p = &r->pairs[i];
		double got = cp_etest(p->x, p->nx, p->y, p->ny, p->R, 1000 + i);
		double bound = 4 * sqrt(p->p * (1 - p->p) / p->R) + 1.0 / p->R;

		print_message("etest %-8s R %u: mmlab p %.4f, R p %.4f, |difference| %.4f, "
			      "bound %.4f\n",
			      p->name, p->R, got, p->p, fabs(got - p->p), bound);
		assert_true(fabs(got - p->p) < bound);
	}
	free(r);
}

/*
 * With one permutation p >= 1/2, so at level 0.01 the whole series' best
 * split is the only candidate: its index and statistic against R's brute
 * force from the definition.
 */
static void check_split(const struct ref_series *s, bool search, size_t tau, double stat)
{
	struct cp_opts o;
	struct cp_change out[OUT_MAX];
	size_t n;

	cp_opts_default(&o);
	o.min_size = s->ms;
	o.max_perm = 1;
	o.level = 0.01;
	o.kappa_search = search;
	assert_int_equal(cp_edivisive(s->v, NULL, NULL, s->n, &o, out, OUT_MAX, &n), 0);
	assert_int_equal(n, 1);
	print_message("split %-9s kappa %-6s: mmlab tau %zu stat %.15g, R tau %zu stat %.15g\n",
		      s->name, search ? "search" : "end", out[0].index, out[0].stat, tau, stat);
	assert_int_equal(out[0].index, tau);
	assert_near(out[0].stat, stat, 1e-9 * fmax(1, fabs(stat)));
	assert_false(out[0].kept);
}

static void test_split_r(void **state)
{
	struct ref *r = ref_load();

	(void)state;
	for (size_t i = 0; i < r->nseries; i++) {
		check_split(&r->series[i], false, r->series[i].tau_end, r->series[i].stat_end);
		check_split(&r->series[i], true, r->series[i].tau_search, r->series[i].stat_search);
	}
	free(r);
}

/* ---- change points ---- */

static gsl_rng *rng_seeded(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, seed);
	return r;
}

static void gauss(gsl_rng *r, double *x, size_t n, double mean, double sd)
{
	for (size_t i = 0; i < n; i++)
		x[i] = mean + gsl_ran_gaussian(r, sd);
}

static size_t run(const double *x, size_t n, const struct cp_opts *o, struct cp_change *out)
{
	size_t nout = 0;

	assert_int_equal(cp_edivisive(x, NULL, NULL, n, o, out, OUT_MAX, &nout), 0);
	assert_true(nout <= cp_max_changes(n, o ? o->min_size : 2));
	for (size_t i = 1; i < nout; i++)
		assert_true(out[i - 1].index < out[i].index);
	return nout;
}

/* the kept candidates' indices into idx[], how many */
static size_t kept(const struct cp_change *c, size_t n, size_t *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (c[i].kept)
			idx[k++] = c[i].index;
	return k;
}

static void test_step_exact(void **state)
{
	double x[40];
	struct cp_change out[OUT_MAX];
	size_t n, idx[OUT_MAX];
	gsl_rng *r = rng_seeded(7);
	const struct cp_change *c = NULL;

	(void)state;
	gauss(r, x, 25, 100, 0.5);
	gauss(r, x + 25, 15, 110, 0.5);
	n = run(x, 40, NULL, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 25);
	for (size_t i = 0; i < n; i++)
		if (out[i].kept)
			c = &out[i];
	/* no permutation reaches it: all 19999 used, p = 1 / 20000 */
	assert_int_equal(c->perms, 19999);
	assert_near(c->p, 1 / 20000.0, 1e-15);
	assert_int_equal(c->n_before, 25);
	assert_int_equal(c->n_after, 15);
	assert_near(c->median_before, 100, 0.5);
	assert_near(c->median_after, 110, 0.5);
	assert_near(c->rel, c->median_after / c->median_before - 1, 1e-12);
	assert_near(c->delta, c->median_after - c->median_before, 1e-12);
	assert_near(c->mean_before, 100, 0.5);
	assert_true(c->stat > 0);
	gsl_rng_free(r);
}

static void test_two_steps(void **state)
{
	double x[45];
	struct cp_change out[OUT_MAX];
	size_t n, idx[OUT_MAX];
	gsl_rng *r = rng_seeded(8);

	(void)state;
	gauss(r, x, 15, 50, 0.5);
	gauss(r, x + 15, 15, 45, 0.5);
	gauss(r, x + 30, 15, 53, 0.5);
	n = run(x, 45, NULL, out);
	assert_int_equal(kept(out, n, idx), 2);
	assert_int_equal(idx[0], 15);
	assert_int_equal(idx[1], 30);
	/* the sides are the final segments: 15 kernels each */
	for (size_t i = 0; i < n; i++)
		if (out[i].kept)
			assert_true(out[i].n_before == 15 && out[i].n_after == 15);
	gsl_rng_free(r);
}

/* n kernels of base but for value at each position of at[0..nat) */
static void spikes(double *x, size_t n, double base, const size_t *at, size_t nat, double value)
{
	for (size_t i = 0; i < n; i++)
		x[i] = base;
	for (size_t i = 0; i < nat; i++)
		x[at[i]] = value;
}

/*
 * Counters: a constant series, or one kernel away from it (middle, either
 * end), is not even tested; whatever the seed, nothing is kept.
 */
static void test_counter_flat(void **state)
{
	const size_t mid = 12, first = 0, last = 29;
	double x[30];
	struct cp_change out[OUT_MAX];
	struct cp_opts o;

	(void)state;
	cp_opts_default(&o);
	for (unsigned int seed = 0; seed < 20; seed++) {
		o.seed = seed;
		spikes(x, 30, 0, &mid, 1, 7);
		assert_int_equal(run(x, 30, &o, out), 0);
		spikes(x, 30, 0, &last, 1, 7);
		assert_int_equal(run(x, 30, &o, out), 0);
		spikes(x, 30, 0, &first, 1, 7);
		assert_int_equal(run(x, 30, &o, out), 0);
		spikes(x, 30, 5, NULL, 0, 0);
		assert_int_equal(run(x, 30, &o, out), 0);
		spikes(x, 30, 1e6, &last, 1, 1e9);
		assert_int_equal(run(x, 30, &o, out), 0);
	}
}

/*
 * The guard itself, on series that are tested: isolated non-zero kernels
 * (at the ends too), a pair split across a boundary, one huge outlier in
 * noise far below min_rel (at the start, in the middle, at the end).
 * Kernel pairs at the end do make a change (both kernels moved).
 */
static void test_counter_guard(void **state)
{
	const size_t two[] = { 0, 29 }, three[] = { 3, 15, 28 }, apart[] = { 27, 30 };
	const size_t pair[] = { 28, 29 };
	double x[31];
	struct cp_change out[OUT_MAX];
	size_t n, idx[OUT_MAX];
	struct cp_opts o;

	(void)state;
	cp_opts_default(&o);
	for (unsigned int seed = 0; seed < 20; seed++) {
		gsl_rng *r = rng_seeded(100 + seed);

		o.seed = seed;
		spikes(x, 30, 0, two, 2, 7);
		assert_int_equal(kept(out, run(x, 30, &o, out), idx), 0);
		spikes(x, 30, 0, three, 3, 9);
		assert_int_equal(kept(out, run(x, 30, &o, out), idx), 0);
		spikes(x, 31, 0, apart, 2, 7);
		assert_int_equal(kept(out, run(x, 31, &o, out), idx), 0);
		gauss(r, x, 30, 20, 0.01);
		x[(seed % 3) * 29 / 2] = 60;
		assert_int_equal(kept(out, run(x, 30, &o, out), idx), 0);
		gsl_rng_free(r);
	}
	spikes(x, 30, 0, pair, 2, 7);
	n = run(x, 30, &o, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 28);
	for (size_t i = 0; i < n; i++)
		if (out[i].kept)
			assert_true(isnan(out[i].rel) && out[i].delta == 7);
}

/* the statistic of x's best split: one permutation, so p >= 1/2 > level */
static double best_stat(const double *x, size_t n)
{
	struct cp_change out[OUT_MAX];
	struct cp_opts o;

	cp_opts_default(&o);
	o.max_perm = 1;
	o.level = 0.01;
	assert_int_equal(run(x, n, &o, out), 1);
	return out[0].stat;
}

/* how many of the n! orders of x (Heap's algorithm) reach stat obs */
static size_t orders_reaching(double *x, size_t n, double obs)
{
	size_t c[8] = { 0 }, reach = 0, i = 1;

	assert_true(n <= 8);
	reach += best_stat(x, n) >= obs - 1e-9 * fabs(obs);
	while (i < n) {
		if (c[i] < i) {
			size_t j = i % 2 ? c[i] : 0;
			double t = x[j];

			x[j] = x[i];
			x[i] = t;
			reach += best_stat(x, n) >= obs - 1e-9 * fabs(obs);
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return reach;
}

/*
 * The Monte-Carlo p-value against the exact permutation p (all 5040
 * orders of 7 kernels), ties included: 0 0 0 1 1 1 1 is reached by its
 * mirror image only (2/35 of the orders), 1 1 0 0 0 0 0 by 2/21 (a
 * permutation leaving the last kernel in place would give 1/15 for it);
 * counting only permutations strictly above would give 1/20000.
 */
static void test_exact_perm(void **state)
{
	double v[3][7] = { { 0, 0, 0, 1, 1, 1, 1 },
			   { 1, 1, 0, 0, 0, 0, 0 },
			   { 3.1, 2.2, 2.9, 7.5, 8.1, 6.6, 7.7 } };
	struct cp_change out[OUT_MAX];
	struct cp_opts o;

	(void)state;
	cp_opts_default(&o);
	o.h = 2000;
	for (size_t i = 0; i < 3; i++) {
		double x[7], exact, bound;
		size_t n;

		memcpy(x, v[i], sizeof(x));
		exact = (double)orders_reaching(x, 7, best_stat(v[i], 7)) / 5040;
		n = run(v[i], 7, &o, out);
		assert_true(n >= 1);
		bound = 4 * sqrt(exact * (1 - exact) / 20000) + 1 / 20000.0;
		print_message(
			"exact permutation p %.4f, Monte-Carlo p %.4f after %u permutations\n",
			exact, out[0].p, out[0].perms);
		assert_near(out[0].p, exact, bound + exact / sqrt(o.h));
	}
	assert_near((double)orders_reaching(v[0], 7, best_stat(v[0], 7)) / 5040, 2 / 35.0, 1e-12);
}

/* the same seed gives the same candidates, p-values and permutations */
static void test_deterministic(void **state)
{
	double x[50];
	struct cp_change a[OUT_MAX], b[OUT_MAX];
	struct cp_opts o;
	size_t na, nb;
	gsl_rng *r = rng_seeded(9);
	bool differ = false;

	(void)state;
	gauss(r, x, 30, 10, 1);
	gauss(r, x + 30, 20, 11.2, 1);
	cp_opts_default(&o);
	o.seed = 0x123456789abcdefULL;
	na = run(x, 50, &o, a);
	nb = run(x, 50, &o, b);
	assert_int_equal(na, nb);
	assert_true(na >= 1);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].index, b[i].index);
		assert_true(a[i].p == b[i].p && a[i].perms == b[i].perms && a[i].stat == b[i].stat);
	}
	/* another seed: other permutations (a null series stops early) */
	gauss(r, x, 50, 10, 1);
	for (unsigned long long s = 1; s < 6 && !differ; s++) {
		o.seed = 0;
		na = run(x, 50, &o, a);
		o.seed = s;
		nb = run(x, 50, &o, b);
		differ = a[0].perms != b[0].perms || a[0].p != b[0].p;
	}
	assert_true(differ);
	assert_true(cp_etest(x, 20, x + 20, 30, 499, 5) == cp_etest(x, 20, x + 20, 30, 499, 5));
	gsl_rng_free(r);
}

/*
 * Null series (Gaussian noise, 30 to 60 kernels): the whole series' test
 * gives p <= 0.05 in about 5 % of them (a candidate below 0.05 exists only
 * when that first one is), p <= 0.5 in about half. Seeded, so it cannot
 * flake; the bounds are 4 standard errors wide and more.
 */
static void test_null_uniform(void **state)
{
	double x[60];
	struct cp_change out[OUT_MAX];
	struct cp_opts o;
	size_t below05 = 0, below50 = 0, total = 400;
	gsl_rng *r = rng_seeded(10);

	(void)state;
	cp_opts_default(&o);
	o.max_perm = 999;
	for (size_t s = 0; s < total; s++) {
		size_t n = 30 + gsl_rng_uniform_int(r, 31), nout;
		double pmin = 1;

		gauss(r, x, n, 20, 1);
		o.seed = s;
		nout = run(x, n, &o, out);
		assert_true(nout >= 1);
		for (size_t i = 0; i < nout; i++)
			pmin = fmin(pmin, out[i].p);
		below05 += pmin <= 0.05;
		below50 += pmin <= 0.5;
	}
	print_message("null series: %zu of %zu with p <= 0.05, %zu with p <= 0.5\n", below05, total,
		      below50);
	assert_true(below05 >= 4 && below05 <= 40);
	assert_true(below50 >= 160 && below50 <= 240);
	gsl_rng_free(r);
}

/*
 * No segment shorter than min_size: a step in the last 3 kernels is found
 * with min_size 2; with 4, only as the last 4 kernels, of which 3 moved;
 * with 7 not at all.
 */
static void test_min_size(void **state)
{
	double x[30];
	struct cp_change out[OUT_MAX];
	struct cp_opts o;
	size_t n, idx[OUT_MAX];
	gsl_rng *r = rng_seeded(11);

	(void)state;
	gauss(r, x, 27, 100, 0.3);
	gauss(r, x + 27, 3, 110, 0.3);
	cp_opts_default(&o);
	n = run(x, 30, &o, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 27);
	o.min_size = 4;
	n = run(x, 30, &o, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 26);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].n_before >= 4 && out[i].n_after >= 4);
	o.min_size = 7;
	n = run(x, 30, &o, out);
	assert_int_equal(kept(out, n, idx), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(out[i].n_before >= 7 && out[i].n_after >= 7);
	/* too short to split at all: no candidate */
	assert_int_equal(run(x, 7, &o, out), 0);
	o.min_size = 2;
	assert_int_equal(run(x, 3, &o, out), 0);
	gsl_rng_free(r);
}

/* a 1 % step, significant (low noise): a change only when min_rel <= 1 % */
static void test_min_rel(void **state)
{
	double x[40];
	struct cp_change out[OUT_MAX];
	struct cp_opts o;
	size_t n, idx[OUT_MAX];
	gsl_rng *r = rng_seeded(12);

	(void)state;
	gauss(r, x, 20, 100, 0.1);
	gauss(r, x + 20, 20, 101, 0.1);
	cp_opts_default(&o);
	n = run(x, 40, &o, out);
	assert_int_equal(kept(out, n, idx), 0);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++)
		if (out[i].index == 20)
			assert_true(out[i].p <= 0.05 && fabs(out[i].rel - 0.01) < 0.002);
	o.min_rel = 0.008;
	n = run(x, 40, &o, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 20);
	/* downwards the same: 1 % of the value before */
	for (size_t i = 0; i < 40; i++)
		x[i] = 201 - x[i];
	o.min_rel = 0.02;
	assert_int_equal(kept(out, run(x, 40, &o, out), idx), 0);
	o.min_rel = 0.008;
	assert_int_equal(kept(out, run(x, 40, &o, out), idx), 1);
	gsl_rng_free(r);
}

/* kernels without a value are skipped; indices stay those of x */
static void test_nan_skipped(void **state)
{
	double x[40];
	struct cp_change out[OUT_MAX];
	size_t n, idx[OUT_MAX];
	gsl_rng *r = rng_seeded(13);

	(void)state;
	gauss(r, x, 20, 100, 0.5);
	gauss(r, x + 20, 20, 90, 0.5);
	x[3] = x[20] = x[21] = x[39] = NAN;
	n = run(x, 40, NULL, out);
	assert_int_equal(kept(out, n, idx), 1);
	assert_int_equal(idx[0], 22);
	for (size_t i = 0; i < n; i++)
		if (out[i].kept)
			assert_true(out[i].n_before == 19 && out[i].n_after == 17);
	for (size_t i = 0; i < 40; i++)
		x[i] = NAN;
	assert_int_equal(run(x, 40, NULL, out), 0);
	gsl_rng_free(r);
}

/* with iteration samples the means are theirs; the medians stay x's */
static void test_iterations(void **state)
{
	double x[20], it[20][3];
	const double *iter[20];
	size_t niter[20], n, idx[OUT_MAX];
	struct cp_change out[OUT_MAX], *c = NULL;

	(void)state;
	for (size_t i = 0; i < 20; i++) {
		double base = i < 12 ? 50 : 60;

		it[i][0] = base - 1;
		it[i][1] = base + 1 + (double)(i % 3) * 0.1;
		it[i][2] = i == 5 ? NAN : base;
		niter[i] = i == 7 ? 2 : 3;
		iter[i] = it[i];
		x[i] = base + (double)(i % 3) * 0.1 / 3;
	}
	assert_int_equal(cp_edivisive(x, iter, niter, 20, NULL, out, OUT_MAX, &n), 0);
	assert_int_equal(kept(out, n, idx), 1);
	for (size_t i = 0; i < n; i++)
		if (out[i].kept)
			c = &out[i];
	assert_int_equal(c->index, 12);
	/* before: kernels 0..11, 34 finite samples */
	{
		double sum = 0;
		size_t k = 0;

		for (size_t i = 0; i < 12; i++)
			for (size_t j = 0; j < niter[i]; j++)
				if (isfinite(it[i][j])) {
					sum += it[i][j];
					k++;
				}
		assert_int_equal(k, 34);
		assert_near(c->mean_before, sum / (double)k, 1e-12);
	}
	assert_near(c->median_after, 60 + 0.1 / 3, 1e-12);
}

/* call, expect -1 (or NaN) and one message on stderr */
#define REFUSED(call)                                     \
	do {                                              \
		struct capture cap_;                      \
		char *msg_;                               \
		capture_start(&cap_);                     \
		assert_true(call);                        \
		msg_ = capture_end(&cap_);                \
		assert_non_null(strstr(msg_, "error: ")); \
		free(msg_);                               \
	} while (0)

static void test_bad_input(void **state)
{
	static double big[CP_MAX_N + 1];
	double x[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const double *iter[10] = { 0 };
	size_t niter[10] = { 0 }, n = 99;
	struct cp_change out[OUT_MAX];
	struct cp_opts o;

	(void)state;
	REFUSED(cp_edivisive(big, NULL, NULL, CP_MAX_N + 1, NULL, out, OUT_MAX, &n) == -1);
	assert_int_equal(n, 0);
	REFUSED(cp_edivisive(NULL, NULL, NULL, 3, NULL, out, OUT_MAX, &n) == -1);
	REFUSED(cp_edivisive(x, iter, NULL, 10, NULL, out, OUT_MAX, &n) == -1);
	niter[4] = 2;
	REFUSED(cp_edivisive(x, iter, niter, 10, NULL, out, OUT_MAX, &n) == -1);
	x[4] = -INFINITY;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, NULL, out, OUT_MAX, &n) == -1);
	x[4] = 5;
	cp_opts_default(&o);
	o.min_size = 1;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	cp_opts_default(&o);
	o.level = 0;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	o.level = NAN;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	cp_opts_default(&o);
	o.min_rel = -0.1;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	cp_opts_default(&o);
	o.max_perm = 0;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	cp_opts_default(&o);
	o.h = 0;
	REFUSED(cp_edivisive(x, NULL, NULL, 10, &o, out, OUT_MAX, &n) == -1);
	cp_opts_default(&o);
	o.kappa_search = true;
	REFUSED(cp_edivisive(big, NULL, NULL, CP_MAX_N_SEARCH + 1, &o, out, OUT_MAX, &n) == -1);
	/* no room for the one candidate */
	REFUSED(cp_edivisive(x, NULL, NULL, 10, NULL, out, 0, &n) == -1);
	assert_int_equal(n, 0);
	assert_int_equal(cp_edivisive(x, NULL, NULL, 0, NULL, out, 0, &n), 0);
	assert_int_equal(n, 0);

	REFUSED(isnan(cp_edist(x, 0, x, 3)));
	REFUSED(isnan(cp_edist(x, 3, NULL, 3)));
	REFUSED(isnan(cp_edist(big, CP_MAX_N + 1, x, 3)));
	x[2] = NAN;
	REFUSED(isnan(cp_edist(x, 3, x + 5, 3)));
	REFUSED(isnan(cp_etest(x, 3, x + 5, 3, 99, 1)));
	x[2] = 3;
	REFUSED(isnan(cp_etest(x, 3, x + 5, 3, 0, 1)));
	REFUSED(isnan(cp_etest(x, 3, x + 5, 3, CP_MAX_PERM + 1, 1)));
	/* one value each side: |x - y| */
	assert_near(cp_edist(x, 1, x + 3, 1), 0.5 * 2 * 3, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edist_r),	      cmocka_unit_test(test_etest_r),
		cmocka_unit_test(test_split_r),	      cmocka_unit_test(test_step_exact),
		cmocka_unit_test(test_two_steps),     cmocka_unit_test(test_counter_flat),
		cmocka_unit_test(test_counter_guard), cmocka_unit_test(test_exact_perm),
		cmocka_unit_test(test_deterministic), cmocka_unit_test(test_null_uniform),
		cmocka_unit_test(test_min_size),      cmocka_unit_test(test_min_rel),
		cmocka_unit_test(test_nan_skipped),   cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
