// SPDX-License-Identifier: GPL-2.0
/*
 * order.c - seeded random run order (order.h).
 */
#include <gsl/gsl_rng.h>

#include "lib/order.h"

void order_permute(size_t *perm, size_t n, unsigned long seed)
{
	gsl_rng *rng;

	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	if (n < 2)
		return;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	for (size_t i = n; i > 1; i--) {
		size_t j = gsl_rng_uniform_int(rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	gsl_rng_free(rng);
}
