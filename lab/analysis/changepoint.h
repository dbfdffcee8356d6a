/* SPDX-License-Identifier: GPL-2.0 */
/*
 * changepoint.h - the change points of `mmlab track`: where a metric
 * measured over a series of kernels in branch order changes level.
 *
 * E-divisive means (Matteson & James 2014, as R's ecp::e.divisive, exponent
 * alpha = 1): a segment is split where the scaled energy statistic of the
 * kernels before against the kernels after is largest (kappa = the
 * segment's end, as Apache Otava; ecp's search over kappa is an option),
 * and the halves are split in turn. Each candidate split gets a
 * permutation p-value (permuted within its segment), a sequential
 * Monte-Carlo p-value (Besag & Clifford 1991) from a seeded GSL MT19937.
 * A split is kept as a change point only when its p-value is at most
 * opts.level and the medians of the segments either side of it differ by
 * min_rel. docs/track.md, "DETECTION STATISTICS" has the formulas, the guards for
 * counters, the cost and the measured error rates.
 *
 * The caller applies Benjamini-Hochberg (stats_bh()) over the p-values of
 * every candidate of every series of a track: the candidates that were
 * not kept are part of that family, so cp_edivisive() returns them too.
 *
 * No global state: every function may run in several threads at once.
 */
#ifndef MMLAB_CHANGEPOINT_H
#define MMLAB_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The most kernels in a series and values in a cp_edist()/cp_etest()
 * sample. A permutation of n kernels costs O(n log n): 2 us for 50
 * kernels, 23 ms for 100000 (docs/track.md, "DETECTION STATISTICS").
 */
#define CP_MAX_N 100000
/* with kappa_search, whose permutations cost O(n^2) */
#define CP_MAX_N_SEARCH 10000
/* the most permutations of a candidate and of cp_etest() */
#define CP_MAX_PERM 10000000u

struct cp_opts {
	unsigned int min_size; /* fewest kernels in a segment, >= 2 (2) */
	double min_rel; /* smallest relative change of the medians kept (0.02) */
	double level; /* a candidate with p > level ends its segment's bisection (0.05) */
	unsigned long long seed; /* the permutations' seed (0) */
	unsigned int max_perm; /* most permutations per candidate (19999) */
	unsigned int h; /* exceedances that end a candidate's permutations (10) */
	bool kappa_search; /* ecp's search over kappa, not kappa = end (false) */
};

/* the defaults above */
void cp_opts_default(struct cp_opts *o);

/*
 * One candidate split: the best split of a segment, tested. index is the
 * first kernel of the new segment (an index into x); "before" is the
 * segment that ends at index, "after" the one that starts there, both as
 * the final segmentation has them (its boundaries are the candidates with
 * p <= level). kept: p <= level and the magnitude rule holds, i.e. a
 * change point; the others are reported for the Benjamini-Hochberg family.
 * The magnitude rule: the medians of the two sides, each side's taken on
 * the side nearer the other (the lower median of the higher side, the
 * upper median of the lower side), differ, by at least min_rel times the
 * one before unless that is 0. One kernel never carries a change.
 */
struct cp_change {
	size_t index; /* first kernel of the new segment (index into x) */
	bool kept; /* a change point: p <= level and the magnitude rule holds */
	double p; /* sequential Monte-Carlo permutation p-value */
	double stat; /* the scaled energy statistic of the split */
	double mean_before, mean_after; /* of the iteration samples if given, else of x */
	double median_before, median_after; /* of the kernels' values x */
	double rel; /* median_after / median_before - 1; NaN when median_before is 0 */
	double delta; /* median_after - median_before */
	size_t n_before, n_after; /* kernels (with a value) in the two segments */
	unsigned int perms; /* permutations used */
};

/*
 * The most candidates cp_edivisive() can return for n kernels and segments
 * of at least min_size kernels: size out[] with it.
 */
size_t cp_max_changes(size_t n, unsigned int min_size);

/*
 * The candidates of x[0..n) (kernels in branch order, x[i] the value of
 * kernel i, the mean of its iterations) in out[0..*nout), sorted by index.
 * NaN in x: a kernel without a value, skipped (indices stay those of x);
 * an infinite value is refused. iter and niter are NULL, or iter[i][0..
 * niter[i]) holds kernel i's iteration samples (NaN ones skipped): then
 * mean_before/mean_after are the means of the segments' samples. o NULL:
 * the defaults. Returns 0, or -1 on bad input or when max is too small
 * (cp_max_changes() is enough), with a message (lab_err()).
 */
int cp_edivisive(const double *x, const double *const *iter, const size_t *niter, size_t n,
		 const struct cp_opts *o, struct cp_change *out, size_t max, size_t *nout);

/*
 * The energy distance of R's energy::edist() between two samples, exponent
 * 1: nx ny / (nx + ny) * (2 mean|x - y| - mean|x - x'| - mean|y - y'|),
 * the within means over all nx^2 (ny^2) pairs, the zero diagonal included;
 * not square-rooted. NaN, with a message, on an empty, too large (CP_MAX_N)
 * or non-finite sample.
 */
double cp_edist(const double *x, size_t nx, const double *y, size_t ny);

/*
 * The p-value of R's energy::eqdist.etest() for two samples with R
 * permutations of the pooled sample: (k + 1) / (R + 1), k the number of
 * permutations whose statistic (cp_edist()) is strictly above the
 * observed one, as energy counts them. Seeded: the same seed gives the
 * same p. NaN, with a message, on bad samples (as cp_edist()) or R = 0 or
 * R > CP_MAX_PERM.
 */
double cp_etest(const double *x, size_t nx, const double *y, size_t ny, unsigned int R,
		unsigned long long seed);

#endif
