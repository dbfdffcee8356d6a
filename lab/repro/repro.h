/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repro.h - the verdict of a recipe (recipe.h) on a stored run: for each
 * variant and expectation, whether it was met in each run (iteration), and
 * REPRODUCED / NOT REPRODUCED / INCONCLUSIVE. docs/repro.md has the rules.
 */
#ifndef MMLAB_REPRO_H
#define MMLAB_REPRO_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "repro/recipe.h"
#include "repro/verdict.h"

/* REPRO_EXIT_*: repro/verdict.h */

/*
 * The run id run of the store s, typed: run.json (store_record_read())
 * and the iteration.json of each variant; 0, or -1 after a message.
 */
struct store;
int repro_run_load(struct store *s, const char *run, struct repro_run *out);
/* the same from the record of run, already read */
struct run_record;
void repro_run_from_record(struct store *s, const struct run_record *rec, const char *run,
			   struct repro_run *out);

/*
 * Evaluate the recipe's expectations on run; run_dir is the run's
 * directory, holding <variant>/<i>/console.log for the dmesg
 * expectations. ev gets the verdict (repro_eval_release()).
 */
void repro_evaluate(const struct recipe *r, const struct repro_run *run, const char *run_dir,
		    struct repro_eval *ev);

/*
 * One expectation on one run (iteration): its status ("ok", "crashed",
 * ...), metrics and console text (NULL when none). The outcome; cell
 * (when not NULL) gets the detail (repro_cell_release()).
 */
enum repro_outcome repro_eval_run(const struct expectation *e, const char *status, json_t *metrics,
				  const char *console, struct repro_cell *cell);
/* <run_dir>/<variant>/<index>/console.log's text, or NULL */
char *repro_read_console(const char *run_dir, const char *variant, long long index);

/* the verdict and tables for a terminal or an email */
void repro_print(FILE *f, const struct repro_report *rep);

/*
 * Fisher's exact test, two-sided, of the 2x2 table [[a, b], [c, d]]
 * (rows: variants, columns: met / not met).
 */
double repro_fisher(unsigned int a, unsigned int b, unsigned int c, unsigned int d);

#endif
