// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.c - the decisions of "mmlab bisect"; see bisect.h and
 * docs/bisect.md ("How a commit is judged").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "bisect/bisect.h"
#include "job/rewrite.h"
#include "lib/util.h"

const char *bisect_call_name(enum bisect_call c)
{
	switch (c) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_UNSURE:
		return "unsure";
	}
	return "?";
}

static void summarize(const double *x, size_t n, struct stats_summary *s)
{
	stats_summarize(x, n, false, s);
}

bool bisect_endpoints_ok(const double *good, size_t ng, const double *bad, size_t nb,
			 const struct bisect_rule *r, struct stats_test *t, char *why, size_t len)
{
	struct stats_summary g, b;
	double change;
	bool worse;
	char rel[64];

	summarize(good, ng, &g);
	summarize(bad, nb, &b);
	stats_welch(&g, &b, 1 - r->alpha, t);
	change = g.mean != 0 ? b.mean / g.mean - 1 : (b.mean != 0 ? INFINITY : 0);
	if (isfinite(change))
		snprintf(rel, sizeof(rel), "%+.1f %%", 100 * change);
	else
		snprintf(rel, sizeof(rel), "from 0");
	if (g.n < 2 || b.n < 2) {
		snprintf(why, len, "too few values to compare: %zu good, %zu bad (2 each needed)",
			 g.n, b.n);
		return false;
	}
	worse = !r->better || (r->better < 0 ? b.mean > g.mean : b.mean < g.mean);
	snprintf(why, len, "good %.6g ± %.3g (n=%zu), bad %.6g ± %.3g (n=%zu): %s, Welch p = %.3g",
		 g.mean, isnan(g.stddev) ? 0 : g.stddev, g.n, b.mean,
		 isnan(b.stddev) ? 0 : b.stddev, b.n, rel, t->p);
	if (!(t->p < r->alpha)) {
		snprintf(why + strlen(why), len - strlen(why),
			 "; not a significant difference at alpha = %g", r->alpha);
		return false;
	}
	if (fabs(change) < r->min_change) {
		snprintf(why + strlen(why), len - strlen(why), "; smaller than --min-change %g %%",
			 100 * r->min_change);
		return false;
	}
	if (!worse) {
		snprintf(why + strlen(why), len - strlen(why),
			 "; the bad endpoint is better (%s is better), not worse",
			 r->better < 0 ? "lower" : "higher");
		return false;
	}
	return true;
}

enum bisect_call bisect_call_metric(const double *good, size_t ng, const double *bad, size_t nb,
				    const double *step, size_t ns, const struct bisect_rule *r,
				    double *pos, double *p_wrong, char *why, size_t len)
{
	struct stats_summary g, b, s;
	struct stats_test tg, tb;
	double gap;

	summarize(good, ng, &g);
	summarize(bad, nb, &b);
	summarize(step, ns, &s);
	*p_wrong = NAN;
	*pos = NAN;
	gap = b.mean - g.mean;
	if (s.n < 2) {
		snprintf(why, len, "%zu value%s (2 needed)", s.n, s.n == 1 ? "" : "s");
		return BISECT_UNSURE;
	}
	if (gap == 0 || !isfinite(gap)) {
		snprintf(why, len, "the endpoints have the same mean");
		return BISECT_UNSURE;
	}
	stats_welch(&g, &s, 1 - r->alpha, &tg);
	stats_welch(&b, &s, 1 - r->alpha, &tb);
	*pos = (s.mean - g.mean) / gap;
	snprintf(why, len,
		 "mean %.6g at %.0f %% of the way from good to bad; "
		 "p = %.3g vs good, %.3g vs bad",
		 s.mean, 100 * *pos, tg.p, tb.p);
	if (*pos <= r->near && tb.p < r->alpha) {
		*p_wrong = tb.p;
		return BISECT_GOOD;
	}
	if (*pos >= 1 - r->near && tg.p < r->alpha) {
		*p_wrong = tg.p;
		return BISECT_BAD;
	}
	snprintf(why + strlen(why), len - strlen(why), "%s",
		 *pos > r->near && *pos < 1 - r->near ?
			 ": in between" :
			 ": not significantly different from the other endpoint");
	return BISECT_UNSURE;
}

enum bisect_call bisect_call_signature(unsigned int met, unsigned int unknown, unsigned int n,
				       unsigned int k, char *why, size_t len)
{
	snprintf(why, len, "signature in %u of %u runs", met, n);
	if (unknown)
		snprintf(why + strlen(why), len - strlen(why),
			 " (%u ended before it could be seen)", unknown);
	if (met >= k)
		return BISECT_BAD;
	if (!met && !unknown)
		return BISECT_GOOD;
	snprintf(why + strlen(why), len - strlen(why), "; %u needed for bad, none for good", k);
	return BISECT_UNSURE;
}

double bisect_miss_prob(double rate, unsigned int n)
{
	if (!(rate > 0))
		return 1;
	if (rate >= 1)
		return 0;
	return pow(1 - rate, n);
}

void bisect_sample(const double *x, size_t n, struct bisect_sample *out)
{
	struct stats_summary s;

	summarize(x, n, &s);
	out->n = s.n;
	out->mean = s.mean;
	out->ci95 = NAN;
	if (s.n >= 2)
		out->ci95 =
			gsl_cdf_tdist_Qinv(0.025, (double)(s.n - 1)) * s.stddev / sqrt((double)s.n);
}

/* the step job's YAML: job/rewrite.h ------------------------------------------ */

char *bisect_step_yaml_set(const char *text, size_t len, size_t variant, const char *name,
			   const char *vname, const json_t *set, const char *tree,
			   unsigned int iterations, unsigned int per_boot, char *err, size_t errlen)
{
	struct job_rewrite_variant v = { .name = vname, .from = variant, .set = set };
	struct job_rewrite rw = { .name = name,
				  .variants = &v,
				  .nvariants = 1,
				  .tree = tree,
				  .iterations = iterations,
				  .per_boot = per_boot };

	return job_rewrite_yaml(text, len, &rw, err, errlen);
}

char *bisect_step_yaml(const char *text, size_t len, size_t variant, const char *name,
		       const char *vname, const char *commit, const char *tree,
		       unsigned int iterations, unsigned int per_boot, char *err, size_t errlen)
{
	json_t *set = json_pack("{s:s}", "ref", commit);
	char *out = bisect_step_yaml_set(text, len, variant, name, vname, set, tree, iterations,
					 per_boot, err, errlen);

	json_decref(set);
	return out;
}
