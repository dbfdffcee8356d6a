/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reproduce.h - the engine of "mmlab repro" (docs/repro.md): find a
 * recipe (recipe.h) by path or name, list the recipe directory, narrow a
 * recipe to what the options ask, run it through the runner, evaluate it
 * (repro.h) and store the verdict with the run; show a stored verdict
 * again. lab/builtin/cmd-repro.c parses the options and prints.
 *
 * Errors are printed here, once (lib/util.h); what is printed on stdout
 * is handed back as a struct repro_report (repro.h: repro_print(), or
 * repro_report_to_json() for --json). The functions return 0 or -1; the
 * exit status of the command is lab/builtin/cmd-repro.c's.
 */
#ifndef MMLAB_REPRODUCE_H
#define MMLAB_REPRODUCE_H

#include <jansson.h>

#include "repro/recipe.h"
#include "repro/repro.h"
#include "run/runner.h"

/* what the engine needs from the command line's global options */
struct repro_env {
	const char *results_dir; /* the results store */
	const char *cache_dir; /* kernel cache and images: for the runner */
	const char *connect_uri; /* libvirt URI (NULL: the default): for the runner */
};

/*
 * The recipe directory: $MMLAB_REPRO_DIR, else jobs/repro next to mmlab
 * (the source tree), else PREFIX/share/mmlab/jobs/repro (make install).
 */
char *repro_recipe_dir(void);

/* arg as a path when it is one, else NAME.yaml or NAME there; NULL + message */
char *repro_find_recipe(const char *arg);

/*
 * The recipes (*.yaml) of the recipe directory, sorted, into out
 * (repro_entries_release()); -1 + message when the directory cannot be
 * read. *dir (malloc'd) is the directory.
 */
int repro_list(char **dir, struct repro_entries *out);

/* what the options change in a recipe */
struct repro_overrides {
	const char *kernel; /* "distro" or a path: the first tested variant on it, alone */
	const char *variant; /* only this variant */
	unsigned int runs; /* runs per variant; 0: the recipe's */
};

/* narrow r as ov asks; 0, or -1 after a message (no such variant, k > runs) */
int repro_apply_overrides(struct recipe *r, const struct repro_overrides *ov);

/* why repro_run() made no verdict */
enum repro_failure {
	REPRO_NO_RUN, /* the run could not be made (libvirt, a probe) or read */
	REPRO_BAD_JOB, /* the runner refused the recipe's job (usage) */
};

/*
 * Run r (its job moves to the runner) with o's order, seed and accel,
 * evaluate every stored run, store the verdict and the recipe in the
 * run's run.json. 0 with the verdict in *rep (repro_report_release()), or
 * -1 after a message with *why.
 */
int repro_run(const struct repro_env *env, struct recipe *r, const struct run_opts *o,
	      struct repro_report *rep, enum repro_failure *why);

/*
 * The verdict of r on the stored run id (the run made of r's job), stored
 * in its run.json with the recipe: 0 with *rep, or -1 after a message when
 * the run cannot be read.
 */
struct store;
int repro_judge(struct store *s, const char *id, const struct recipe *r, struct repro_report *rep);

/* the verdict stored with a repro run: 0 with *rep, or -1 after a message */
int repro_show(const struct repro_env *env, const char *run, struct repro_report *rep);

#endif
