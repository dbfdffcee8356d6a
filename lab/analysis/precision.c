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

static bool iteration_ok(const json_t *it)
{
	const char *st = json_string_value(json_object_get(it, "status"));

	return st && !strcmp(st, "ok");
}

/* the names of every target metric in any ok iteration, in a set */
static json_t *target_names(const json_t *run, const char *globs)
{
	json_t *names = json_object(), *v, *it, *val;
	const char *key;
	size_t i, k;

	json_array_foreach(json_object_get(run, "variants"), i, v)
		json_array_foreach(json_object_get(v, "iterations"), k, it) {
			if (!iteration_ok(it))
				continue;
			json_object_foreach(json_object_get(it, "metrics"), key, val)
				if (json_is_number(val) && match_globs(key, globs))
					json_object_set_new(names, key, json_true());
		}
	return names;
}

/* the relative CI half-width of metric in variant v; n and mean out */
static double halfwidth(const json_t *v, const char *metric, double conf, size_t *n, double *mean)
{
	json_t *its = json_object_get(v, "iterations"), *it;
	double *x = xcalloc(json_array_size(its) + 1, sizeof(*x));
	bool same = true;
	double hw, sum = 0;
	size_t k;

	*n = 0;
	json_array_foreach(its, k, it) {
		json_t *val = json_object_get(json_object_get(it, "metrics"), metric);

		if (!iteration_ok(it) || !json_is_number(val) || !isfinite(json_number_value(val)))
			continue;
		x[*n] = json_number_value(val);
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

int precision_check(const json_t *run, const struct precision_opts *o, json_t **detail)
{
	const char *globs = o->globs ? o->globs : PRECISION_DEFAULT_METRICS;
	json_t *names = target_names(run, globs), *list = json_array();
	json_t *worst = NULL, *v, *dummy;
	struct strlist sorted = { 0 };
	double worst_hw = -1;
	const char *key;
	int ret = json_object_size(names) ? 1 : -1;
	size_t i;

	json_object_foreach(names, key, dummy)
		strlist_push(&sorted, key);
	if (sorted.n)
		qsort(sorted.v, sorted.n, sizeof(*sorted.v), cmp_str);
	for (size_t m = 0; m < sorted.n; m++) {
		const char *metric = sorted.v[m];

		json_array_foreach(json_object_get(run, "variants"), i, v) {
			const char *vname = json_string_value(json_object_get(v, "name"));
			size_t n;
			double mean, hw = halfwidth(v, metric, o->conf, &n, &mean);
			json_t *e = json_pack("{s:s, s:s, s:I}", "metric", metric, "variant",
					      vname ? vname : "?", "n", (json_int_t)n);

			/* jansson refuses non-finite reals: null instead */
			json_object_set_new(e, "mean",
					    isfinite(mean) ? json_real(mean) : json_null());
			json_object_set_new(e, "halfwidth_rel",
					    isfinite(hw) ? json_real(hw) : json_null());
			if (!(hw < o->precision))
				ret = 0;
			if (!isfinite(hw) || hw > worst_hw) {
				worst_hw = isfinite(hw) ? hw : INFINITY;
				worst = e;
			}
			json_array_append_new(list, e);
		}
	}
	if (detail) {
		*detail = json_pack("{s:O}", "metrics", list);
		if (worst)
			json_object_set(*detail, "worst", worst);
	}
	json_decref(list);
	json_decref(names);
	strlist_free(&sorted);
	return ret;
}
