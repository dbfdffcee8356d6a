/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare_cli.h - what `mmlab compare` and `mmlab report` share
 * (compare_cli.c): their common options (struct cmp_cli and the callbacks
 * of their option-table entries, lib/parse-options.h), loading the runs and
 * computing the comparison, and the output file. `mmlab run` reuses
 * cmp_parse_pct().
 */
#ifndef MMLAB_COMPARE_CLI_H
#define MMLAB_COMPARE_CLI_H

#include <stdio.h>

#include "analysis/compare.h"
#include "lib/parse-options.h"

/* the options both commands take */
struct cmp_cli {
	const char *baseline, *metrics, *output;
	double alpha;
};

/*
 * Option callbacks: --alpha A into the double at o->value; --samples
 * FILE.csv and --derive NAME=EXPR into the comparison at o->value, in the
 * order given.
 */
int cmp_opt_alpha(const struct opt *o, const char *arg);
int cmp_opt_samples(const struct opt *o, const char *arg);
int cmp_opt_derive(const struct opt *o, const char *arg);

/* "2%" or "0.02" -> 0.02; -1 if not a positive number below 10 (1000 %) */
int cmp_parse_pct(const char *s, double *frac);
/* --alpha: a probability in (0, 1); -1 after a message */
int cmp_parse_alpha(const char *s, double *alpha);
/*
 * the run of the store at results_dir (an id, a part of one, NULL: the
 * latest) into *d (run_data_release() it after, either way): 0, or -1
 * after a message
 */
int cmp_load_run(const char *results_dir, const char *run, struct run_data *d);
/* load runs by id ("latest" = newest); 0, or an exit status after a message */
int cmp_load_runs(struct comparison *c, int nruns, char **runs);
/* the runs loaded, then the comparison computed; 0 or an exit status */
int cmp_cli_compute(struct comparison *c, const struct cmp_cli *cli, int nruns, char **runs);
/* --derive NAME=EXPR */
int cmp_add_derive_opt(struct comparison *c, const char *arg);
/* path NULL or "-" = stdout */
int cmp_open_output(const char *path, FILE **out);
int cmp_close_output(FILE *out, const char *path);

#endif
