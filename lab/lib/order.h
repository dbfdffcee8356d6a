/* SPDX-License-Identifier: GPL-2.0 */
/*
 * order.h - the run order of boots (docs/mmlab.md, "run"): a seeded
 * Fisher-Yates shuffle, so slow drift of the host spreads over all variants
 * instead of looking like a difference between kernels, and a recorded seed
 * reproduces the order.
 */
#ifndef MMLAB_ORDER_H
#define MMLAB_ORDER_H

#include <stddef.h>

/*
 * perm[0..n) = a permutation of 0..n-1: Fisher-Yates over the identity with
 * GSL's MT19937 seeded with seed (for i = n..2: swap i-1 with a uniform
 * j < i). The same seed always gives the same permutation; runs record the
 * seed, so changing this algorithm would change recorded orders.
 */
void order_permute(size_t *perm, size_t n, unsigned long seed);

#endif
