/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro.h - the verdict of a recipe (recipe.h) on a stored run: for each
 * variant and expectation, whether it was met in each run (iteration), and
 * REPRODUCED / NOT REPRODUCED / INCONCLUSIVE. docs/repro.md has the rules.
 */
#ifndef MMLAB_REPRO_H
#define MMLAB_REPRO_H

#include <stdio.h>

#include <jansson.h>

#include "repro/recipe.h"

/* exit codes of "mmlab repro" */
#define REPRO_EXIT_REPRODUCED 0
#define REPRO_EXIT_NOT_REPRODUCED 1
#define REPRO_EXIT_BAD_RECIPE 2
#define REPRO_EXIT_INCONCLUSIVE 3

/*
 * Evaluate the recipe's expectations on run (the shape of "mmlab results
 * show --json"); run_dir is the run's directory, holding
 * <variant>/<i>/console.log for the dmesg expectations. Returns
 *
 *   {"verdict", "exit", "run", "notes": [..],
 *    "variants": [{"name", "kernel", "role": "good"|"test", "runs",
 *      "verdict", "expect": [{"index", "describe", "k", "met", "not_met",
 *      "unknown", "verdict"}],
 *      "runs": [{"index", "status", "results": [{"outcome": "met"|
 *        "not met"|"unknown", "value", "lines": [..], "why"}]}]}],
 *    "comparisons": [{"variant", "good", "expect", "describe", "test":
 *      "welch"|"fisher", ...}]}
 */
json_t *repro_evaluate(const struct recipe *r, json_t *run, const char *run_dir);

/*
 * One expectation on one run (iteration): its status ("ok", "crashed",
 * ...), metrics and console text (NULL when none). 1 met, 0 not met, -1
 * unknown (the run ended before it could be seen); *detail (when not NULL)
 * gets {"outcome", "value", "lines", "why"}.
 */
int repro_eval_run(const struct expectation *e, const char *status, json_t *metrics,
		   const char *console, json_t **detail);
/* <run_dir>/<variant>/<index>/console.log's text, or NULL */
char *repro_read_console(const char *run_dir, const char *variant, long long index);

/* the verdict and tables for a terminal or an email */
void repro_print(FILE *f, json_t *eval, json_t *recipe);

/*
 * Fisher's exact test, two-sided, of the 2x2 table [[a, b], [c, d]]
 * (rows: variants, columns: met / not met).
 */
double repro_fisher(unsigned int a, unsigned int b, unsigned int c, unsigned int d);

#endif
