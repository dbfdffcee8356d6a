/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verdict.h - the typed records of repro (docs/repro.md): a stored run as
 * repro judges it (struct repro_run), and the verdict on it (struct
 * repro_eval) with its recipe (struct repro_report). repro.c makes them,
 * repro_json.c converts them to and from JSON.
 */
#ifndef MMLAB_REPRO_VERDICT_H
#define MMLAB_REPRO_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/util.h"

/* exit codes of "mmlab repro" (lab/builtin/cmd-repro.c; "exit" of the verdict) */
#define REPRO_EXIT_REPRODUCED 0
#define REPRO_EXIT_NOT_REPRODUCED 1
#define REPRO_EXIT_BAD_RECIPE 2
#define REPRO_EXIT_INCONCLUSIVE 3

enum repro_verdict { REPRO_REPRODUCED, REPRO_NOT_REPRODUCED, REPRO_INCONCLUSIVE };
enum repro_outcome { REPRO_MET, REPRO_NOT_MET, REPRO_UNKNOWN };

/* ---- what is judged: a stored run ---- */

struct repro_iter {
	long long index;
	char *status; /* "ok", "crashed", "timeout", "failed"; NULL when absent */
	json_t *metrics; /* {"name": number}, a new reference (NULL: none) */
};

struct repro_run_variant {
	char *name;
	char *kernel; /* its kernel's release, or NULL */
	struct repro_iter *iters;
	size_t niters;
};

struct repro_run {
	char *run; /* the run id, or NULL */
	unsigned int iterations; /* asked per variant (job_resolved) */
	struct repro_run_variant *variants; /* those with a name */
	size_t nvariants;
};

/* ---- the verdict ---- */

/* one expectation on one run */
struct repro_cell {
	enum repro_outcome outcome;
	bool has_value;
	double value; /* the metric's value */
	bool has_lines;
	struct strlist lines; /* console lines that matched (dmesg) */
	char *why; /* why unknown, or NULL */
};

struct repro_row {
	long long index;
	char *status;
	struct repro_cell *cells; /* one per expectation */
	size_t ncells;
};

struct repro_expect_row {
	unsigned int index;
	char *describe;
	unsigned int k, met, not_met, unknown;
	enum repro_verdict verdict;
};

/* a tested variant against the known-good one, on one expectation */
struct repro_comparison {
	char *variant, *good; /* names */
	unsigned int expect;
	char *describe;
	bool welch; /* else Fisher */
	/* the tested side: n, mean, stddev (Welch) or met, not_met (Fisher) */
	unsigned int n, met, not_met;
	double mean, stddev; /* NaN: null */
	bool has_p, has_rel;
	double p, rel;
	bool significant;
	char *why; /* no test possible, or NULL */
};

struct repro_variant {
	char *name;
	char *kernel; /* release, or NULL */
	bool good; /* the known-good variant */
	unsigned int runs;
	enum repro_verdict verdict;
	struct repro_expect_row *expect;
	size_t nexpect;
	struct repro_row *rows; /* "runs_table" */
	size_t nrows;
};

struct repro_eval {
	enum repro_verdict verdict;
	char *run; /* or NULL */
	struct strlist notes;
	struct repro_variant *variants;
	size_t nvariants;
	struct repro_comparison *cmp;
	size_t ncmp;
};
void repro_eval_release(struct repro_eval *ev);

/* the bug a stored recipe (recipe_json()) names: what the text shows */
struct repro_recipe_info {
	char *file, *bug_id, *bug_title, *bug_url; /* url may be NULL */
};

/* a verdict with its run and recipe: what "mmlab repro" prints */
struct repro_report {
	char *run;
	json_t *recipe; /* recipe_json()'s document, a new reference */
	struct repro_recipe_info info;
	struct repro_eval eval;
};
void repro_report_release(struct repro_report *rep);

void repro_run_release(struct repro_run *r);

/* a recipe of the recipe directory ("mmlab repro --list") */
struct repro_entry {
	char *name, *file;
	bool runnable; /* it loads; else why is its first error */
	char *bug, *title, *workload; /* when runnable */
	char *why;
};
struct repro_entries {
	struct repro_entry *v;
	size_t n;
};
void repro_entries_release(struct repro_entries *l);
void repro_cell_release(struct repro_cell *c);

/* "REPRODUCED", "NOT REPRODUCED", "INCONCLUSIVE" */
const char *repro_verdict_name(enum repro_verdict v);
/* the exit status of "mmlab repro" for a verdict (REPRO_EXIT_*) */
int repro_verdict_exit(enum repro_verdict v);

#endif
