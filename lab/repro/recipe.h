/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recipe.h - a bug-reproduction recipe (docs/repro.md): a job file (its
 * variants, topology, workload; "runs" instead of "iterations", "name"
 * optional) plus the bug it models and the expectations that say "the bug
 * is there". Loaded through job.c's extension hook, so every error carries
 * FILE:LINE:COLUMN like a job file's.
 */
#ifndef MMLAB_REPRO_RECIPE_H
#define MMLAB_REPRO_RECIPE_H

#include <regex.h>
#include <stdbool.h>

#include <jansson.h>

#include "analysis/expr.h"
#include "job/job.h"

#define RECIPE_MAX_EXPECT 32
#define RECIPE_RUNS_DEFAULT 5

enum expect_kind {
	EXPECT_METRIC, /* an expression over the run's metrics, op, value */
	EXPECT_DMESG, /* an extended regex over console.log lines */
	EXPECT_CRASH, /* the iteration's status is "crashed" */
	EXPECT_HANG, /* the iteration's status is "timeout" */
};

enum expect_op { EOP_GT, EOP_GE, EOP_LT, EOP_LE, EOP_EQ, EOP_NE };

struct expectation {
	enum expect_kind kind;
	char *text; /* metric expression or dmesg regex, as written */
	struct expr *expr; /* EXPECT_METRIC */
	enum expect_op op;
	double value;
	regex_t re; /* EXPECT_DMESG */
	bool has_re;
	unsigned int k; /* met in at least k runs; default 1 */
	unsigned int line; /* in the recipe file, for messages */
};

struct recipe {
	char *path;
	char *bug_id, *bug_title, *bug_url; /* url may be NULL */
	struct expectation *expect;
	size_t nexpect;
	char *good; /* the known-good variant's name, or NULL */
	struct job *job; /* iterations = runs */
};

/* 0, or -1 after printing every error (FILE:LINE:COLUMN) */
int recipe_load(const char *path, struct recipe **out);
int recipe_load_buffer(const char *name, const char *buf, size_t len, const char *dir,
		       struct recipe **out);
void recipe_free(struct recipe *r);

/*
 * One expectation from a command-line signature (mmlab bisect --signature):
 * "dmesg:REGEX", "crash", "hang" or "metric:EXPR OP VALUE", met in at
 * least k runs. 0, or -1 and a message in err.
 */
int expect_from_signature(const char *sig, unsigned int k, struct expectation *e, char *err,
			  size_t len);
void expect_release(struct expectation *e);

const char *expect_op_name(enum expect_op op); /* ">", ">=", ... */
bool expect_op_holds(enum expect_op op, double a, double b);
/* "kthread.kcompactd0.cpu_s / time.elapsed_s > 0.5", "dmesg /WARNING/", "crash" */
char *expect_describe(const struct expectation *e);
/* {"file", "bug": {...}, "good", "expect": [{"kind", ...}]} */
json_t *recipe_json(const struct recipe *r);

#endif
