// SPDX-License-Identifier: GPL-2.0
/*
 * step_data.c - reading a measured step's data (step_data.h), for the
 * verdict loop (measure.c) and the result (result.c).
 */
#include <string.h>

#include <jansson.h>

#include "bisect/bisect_store.h"
#include "bisect/step_data.h"
#include "lib/util.h"

double *step_values(json_t *data, size_t *n)
{
	json_t *a = json_object_get(data, "values"), *v;
	double *x = xcalloc(json_array_size(a) + 1, sizeof(*x));
	size_t i;

	*n = 0;
	json_array_foreach(a, i, v)
		x[(*n)++] = json_number_value(v);
	return x;
}

unsigned int step_count(json_t *data, const char *key)
{
	return (unsigned int)json_integer_value(json_object_get(data, key));
}

unsigned int step_iterations(json_t *data)
{
	return (unsigned int)json_array_size(json_object_get(data, "statuses"));
}

json_t *step_endpoint(const struct bstore_steps *steps, const char *role)
{
	for (size_t i = 0; i < steps->n; i++)
		if (bstore_step_is(&steps->v[i], role, "done"))
			return steps->v[i].data;
	return NULL;
}
