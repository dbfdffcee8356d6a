// SPDX-License-Identifier: GPL-2.0
/*
 * precision.c - is every target metric measured precisely enough? The
 * stopping rule of `mmlab run --until-significant` (runner.c).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/precision.h"
#include "analysis/stats.h"
#include "store/iteration_record.h"
#include "lib/util.h"

static bool match_globs(const char *name, const char *globs)
{
	char *copy = xstrdup(globs), *save = NULL;
	bool hit = false;

	for (char *g = strtok_r(copy, ", ", &save); g && !hit; g = strtok_r(NULL, ", ", &save))
		hit = !fnmatch(g, name, 0);
	free(copy);
	return hit;
}

static void target_names(const struct precision_var *pv, size_t nv, const char *globs,
			 struct strlist *names)
{
	for (size_t i = 0; i < nv; i++)
		for (size_t k = 0; k < pv[i].n; k++) {
			const struct iteration_record *it = &pv[i].its[k];

			if (!iteration_ok(it))
				continue;
			for (size_t m = 0; m < it->nmetrics; m++) {
				const char *key = it->metrics[m].name;
				bool seen = false;

				if (!match_globs(key, globs))
					continue;
				for (size_t j = 0; j < names->n && !seen; j++)
					seen = !strcmp(names->v[j], key);
				if (!seen)
					strlist_push(names, key);
			}
		}
}

/* the relative CI half-width of metric in v; n and mean out */
static double halfwidth(const struct precision_var *v, const char *metric, double conf, size_t *n,
			double *mean)
{
	double *x = xcalloc(v->n + 1, sizeof(*x));
	bool same = true;
	double hw, sum = 0;

	*n = 0;
	for (size_t k = 0; k < v->n; k++) {
		double val = iteration_metric(&v->its[k], metric);

		if (!iteration_ok(&v->its[k]) || !isfinite(val))
			continue;
		x[*n] = val;
		same &= x[*n] == x[0];
		sum += x[(*n)++];
	}
	*mean = *n ? sum / (double)*n : NAN;
	/* a metric that never varies (e.g. always 0) is as precise as it gets */
	hw = *n >= 2 && same ? 0 : stats_ci_halfwidth_rel(x, *n, conf);
	free(x);
	return hw;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_entry(struct precision_result *res, const char *metric, const char *variant,
		      size_t n, double mean, double hw)
{
	struct precision_entry *e;

	res->e = xrealloc(res->e, (res->n + 1) * sizeof(*res->e));
	e = &res->e[res->n++];
	e->metric = xstrdup(metric);
	e->variant = xstrdup(variant ? variant : "?");
	e->n = n;
	e->mean = mean;
	e->halfwidth_rel = isfinite(hw) ? hw : NAN;
}

int precision_check(const struct precision_var *pv, size_t nv, const struct precision_opts *o,
		    struct precision_result *out)
{
	const char *globs = o->globs ? o->globs : PRECISION_DEFAULT_METRICS;
	struct precision_result res = { 0 };
	struct strlist sorted = { 0 };
	double worst_hw = -1;
	size_t worst = 0;
	int ret;

	target_names(pv, nv, globs, &sorted);
	ret = sorted.n ? 1 : -1;
	if (sorted.n)
		qsort(sorted.v, sorted.n, sizeof(*sorted.v), cmp_str);
	for (size_t m = 0; m < sorted.n; m++) {
		for (size_t i = 0; i < nv; i++) {
			size_t n;
			double mean, hw = halfwidth(&pv[i], sorted.v[m], o->conf, &n, &mean);

			if (!(hw < o->precision))
				ret = 0;
			if (!isfinite(hw) || hw > worst_hw) {
				worst_hw = isfinite(hw) ? hw : INFINITY;
				worst = res.n;
			}
			add_entry(&res, sorted.v[m], pv[i].name, n, mean, hw);
		}
	}
	res.worst = res.n ? worst : 0;
	strlist_free(&sorted);
	if (out)
		*out = res;
	else
		precision_result_release(&res);
	return ret;
}

void precision_result_release(struct precision_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		free(res->e[i].metric);
		free(res->e[i].variant);
	}
	free(res->e);
	memset(res, 0, sizeof(*res));
}
