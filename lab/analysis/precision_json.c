// SPDX-License-Identifier: GPL-2.0
/*
 * precision_json.c - what run.json records of the precision check
 * (until_significant."worst" and ."metrics_detail", precision.h).
 */
#include <math.h>

#include "analysis/precision.h"

/* jansson refuses non-finite reals: null instead */
static json_t *finite_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *precision_entry_json(const struct precision_entry *e)
{
	return json_pack("{s:s, s:s, s:I, s:o, s:o}", "metric", e->metric, "variant", e->variant,
			 "n", (json_int_t)e->n, "mean", finite_or_null(e->mean), "halfwidth_rel",
			 finite_or_null(e->halfwidth_rel));
}

json_t *precision_result_json(const struct precision_result *res)
{
	json_t *a = json_array();

	for (size_t i = 0; i < res->n; i++)
		json_array_append_new(a, precision_entry_json(&res->e[i]));
	return a;
}
