/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summary.h - what changed, for the first block of `mmlab compare` and
 * `mmlab report`: the significant rows (q < alpha) sorted by the size of
 * the change, and for a variant with none, the smallest change the run
 * could have detected at its n. Also the number formats the summary, the
 * grouped tables and the report share. docs/compare.md ("Summary").
 */
#ifndef MMLAB_SUMMARY_H
#define MMLAB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare.h"

/* power the detectable change is computed for */
#define SUMMARY_POWER 0.8

/* which way a significant change went */
enum cmp_verdict { VERDICT_BETTER, VERDICT_WORSE, VERDICT_MORE, VERDICT_LESS };

/* one significant (metric, variant) cell */
struct cmp_sig {
	size_t metric, variant; /* indices in the comparison */
	/*
	 * change of the mean in percent, 100 * (new - base) / |base| (NaN when
	 * the baseline mean is 0), and its 95 % CI (+-inf when unbounded)
	 */
	double change, lo, hi;
	enum cmp_verdict verdict;
};

/* a variant with no significant row */
struct cmp_quiet {
	size_t variant;
	size_t tested; /* rows with a test against the baseline */
	const char *untested; /* why the first row without one has none (static) */
	size_t metric; /* the metric with the smallest detectable change,
				   (size_t)-1 when none has one */
	double mde; /* that change in percent (power SUMMARY_POWER) */
	double cov; /* its coefficient of variation in percent */
	size_t n_base, n_new; /* its samples in the baseline and the variant */
};

struct cmp_summary {
	struct cmp_sig *sig; /* largest change first */
	size_t nsig;
	struct cmp_quiet *quiet; /* in variant order */
	size_t nquiet;
	size_t nconstant; /* metrics with one value everywhere */
};

/* fill s (cmp_summary_release() frees it); c must be computed */
void cmp_summarize(const struct comparison *c, struct cmp_summary *s);
void cmp_summary_release(struct cmp_summary *s);

const char *cmp_verdict_name(enum cmp_verdict v); /* "better", ... */
/* which way cell j of m moved against the baseline's mean */
enum cmp_verdict cmp_cell_verdict(const struct comparison *c, const struct cmp_metric *m, size_t j);

/*
 * v rounded to digits significant digits in fixed notation, never dropping
 * integer digits (64837.7 -> "64838", 0.0053333 -> "0.005333" with 4);
 * strip drops trailing zeros after the point. "n/a" for NaN.
 */
void cmp_fmt_sig(char *buf, size_t len, double v, int digits, bool strip);
/* a change in percent with its sign, about 3 significant digits: "+12.4%" */
void cmp_fmt_change(char *buf, size_t len, double pct);
/* "[-29.6%, -16.5%]", "unbounded" or "n/a" */
void cmp_fmt_ci(char *buf, size_t len, double lo, double hi);

/*
 * The sentence for a variant with no significant row (compare_out.c):
 * tested metrics, and the smallest detectable change at this n.
 */
char *cmp_quiet_sentence(const struct comparison *c, const struct cmp_quiet *q, bool capital);

/* the change of cell j of m against the baseline as in struct cmp_sig */
void cmp_cell_change(const struct cmp_metric *m, size_t j, double *change, double *lo, double *hi);

#endif
