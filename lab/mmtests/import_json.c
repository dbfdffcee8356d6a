// SPDX-License-Identifier: GPL-2.0
/*
 * import_json.c - extract-mmtests.pl's JSON -> struct mmtests_extract
 * (import_json.h), and the directions read back from the import record
 * mmtests_import() stores with an iteration (mmtests.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "mmtests/import_json.h"
#include "mmtests/mmtests.h"

/* a sample: mmtests' JSON has numbers, and numbers as strings ("3490") */
static bool sample_value(const json_t *v, double *x)
{
	const char *s = json_string_value(v);
	char *end;

	if (json_is_number(v)) {
		*x = json_number_value(v);
		return isfinite(*x);
	}
	if (!s || !*s || strlen(s) > 64)
		return false;
	*x = strtod(s, &end);
	return !*end && isfinite(*x);
}

/* one element per mmtests iteration (MMTESTS_ITERATIONS): pooled */
static size_t op_samples(const json_t *iters, double *sum)
{
	size_t n = 0, i, k;
	json_t *one, *v;

	*sum = 0;
	json_array_foreach(iters, k, one) {
		json_array_foreach(json_object_get(one, "Values"), i, v) {
			double x;

			if (sample_value(v, &x)) {
				*sum += x;
				n++;
			}
		}
	}
	return n;
}

int mmtests_extract_read(const json_t *doc, struct mmtests_extract *x)
{
	json_t *data = json_object_get(doc, "_ResultData"), *iters;
	const char *pref = json_string_value(json_object_get(doc, "_PreferredVal"));
	const char *op;

	memset(x, 0, sizeof(*x));
	if (!json_is_object(data))
		return -1;
	x->higher = pref && !strcmp(pref, "Higher");
	x->ops = xcalloc(json_object_size(data) < MMTESTS_MAX_OPS ? json_object_size(data) + 1 :
								    MMTESTS_MAX_OPS,
			 sizeof(*x->ops));
	json_object_foreach(data, op, iters) {
		double sum;
		size_t n;

		if (x->nops >= MMTESTS_MAX_OPS)
			break;
		n = op_samples(iters, &sum);
		if (!n)
			continue;
		x->ops[x->nops++] = (struct mmtests_op){ .name = xstrdup(op),
							 .mean = sum / (double)n,
							 .samples = n };
		x->samples += n;
	}
	return 0;
}

void mmtests_extract_free(struct mmtests_extract *x)
{
	for (size_t i = 0; i < x->nops; i++)
		free(x->ops[i].name);
	free(x->ops);
	memset(x, 0, sizeof(*x));
}

const char *mmtests_direction(const json_t *import, const char *metric)
{
	json_t *b = json_object_get(import, "benchmarks"), *v;
	const char *bench;

	if (strncmp(metric, "mmtests.", 8))
		return NULL;
	json_object_foreach(b, bench, v) {
		size_t n = strlen(bench);

		if (!strncmp(metric + 8, bench, n) && metric[8 + n] == '.')
			return json_string_value(json_object_get(v, "preferred"));
	}
	return NULL;
}
