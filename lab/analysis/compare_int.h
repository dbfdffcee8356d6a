/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare_int.h - what the files of the comparison (compare.c,
 * compare_load.c, compare_out.c, compare_json.c) share and nothing else
 * uses: growing the variant and metric tables, the machine forms.
 */
#ifndef MMLAB_COMPARE_INT_H
#define MMLAB_COMPARE_INT_H

#include "analysis/compare.h"

/*
 * A new variant (label made unique with ".r<k>"); its index, or
 * (size_t)-1 when the comparison is full (compare.h): the caller says so
 * with cmp_full_err().
 */
size_t cmp_variant_add(struct comparison *c, const char *name, const char *run);
/* the index of the variant labelled name, or (size_t)-1 */
size_t cmp_variant_find(const struct comparison *c, const char *name);
/*
 * The metric called name, added (no samples yet) when new; NULL when the
 * comparison is full (compare.h): the caller says so with cmp_full_err().
 */
struct cmp_metric *cmp_metric_get(struct comparison *c, const char *name);
/* the one message for a full comparison, where = the input that filled it */
void cmp_full_err(const struct comparison *c, const char *where);
/* sample i of a cell; the samples before it that are not set are NaN */
void cmp_cell_set(struct cmp_cell *cell, size_t i, double v);
/* the csv and json forms (compare_json.c) */
int cmp_write_csv(const struct comparison *c, FILE *out);
int cmp_write_json(const struct comparison *c, FILE *out);
/* s without leading and trailing blanks (in place) */
char *cmp_trim(char *s);

#endif
