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

/* a variant of the run: its name and its iterations, typed */
struct pvar {
	const char *name;
	struct iteration_record *its;
	size_t n;
};

/* the variants of run; a variant whose iterations cannot be read has none (after a message) */
static struct pvar *read_variants(const json_t *run, size_t *nv)
{
	const json_t *vars = json_object_get(run, "variants");
	struct pvar *pv = xcalloc(json_array_size(vars) + 1, sizeof(*pv));
	size_t i;
	json_t *v;

	json_array_foreach(vars, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		char *where = xasprintf("variant %s", name ? name : "?");

		pv[i].name = name;
		iteration_records_from_json(json_object_get(v, "iterations"), &pv[i].its, &pv[i].n,
					    where);
		free(where);
	}
	*nv = json_array_size(vars);
	return pv;
}

static void free_variants(struct pvar *pv, size_t nv)
{
	for (size_t i = 0; i < nv; i++)
		iteration_records_free(pv[i].its, pv[i].n);
	free(pv);
}

/* the names of every target metric in any ok iteration, sorted */
static void target_names(const struct pvar *pv, size_t nv, const char *globs, struct strlist *names)
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
static double halfwidth(const struct pvar *v, const char *metric, double conf, size_t *n,
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

int precision_check(const json_t *run, const struct precision_opts *o, struct precision_result *out)
{
	const char *globs = o->globs ? o->globs : PRECISION_DEFAULT_METRICS;
	struct precision_result res = { 0 };
	struct strlist sorted = { 0 };
	double worst_hw = -1;
	size_t nv, worst = 0;
	struct pvar *pv = read_variants(run, &nv);
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
	free_variants(pv, nv);
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
