/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare_cli.h - pieces of `mmlab compare` that `mmlab report` reuses
 * (cmd-compare.c).
 */
#ifndef MMLAB_COMPARE_CLI_H
#define MMLAB_COMPARE_CLI_H

#include <stdio.h>

#include "analysis/compare.h"

/* "2%" or "0.02" -> 0.02; -1 if not a positive number below 10 (1000 %) */
int cmp_parse_pct(const char *s, double *frac);
/* --alpha: a probability in (0, 1); -1 after a message */
int cmp_parse_alpha(const char *s, double *alpha);
/* load runs by id ("latest" = newest); 0, or an exit status after a message */
int cmp_load_runs(struct comparison *c, int nruns, char **runs);
/* --derive NAME=EXPR */
int cmp_add_derive_opt(struct comparison *c, const char *arg);
/* path NULL or "-" = stdout */
int cmp_open_output(const char *path, FILE **out);
int cmp_close_output(FILE *out, const char *path);

#endif
