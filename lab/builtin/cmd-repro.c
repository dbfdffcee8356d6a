// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-repro.c - "mmlab repro RECIPE": run a bug-reproduction recipe
 * (docs/repro.md) and say REPRODUCED, NOT REPRODUCED or INCONCLUSIVE with
 * the evidence. The options and what is printed; the engine is
 * lab/repro/reproduce.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "repro/repro.h"
#include "repro/repro_json.h"
#include "repro/reproduce.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const repro_synopsis[] = {
	"mmlab repro RECIPE [--kernel distro|PATH | --variant NAME] [--runs N]",
	"            [--order random|sequential] [--seed N] [--accel auto|kvm|tcg] [--json]",
	"mmlab repro --list [--json]",
	"mmlab repro --check RECIPE",
	"mmlab repro --show RUN [--json]",
	NULL,
};

static const struct opt_usage repro_usage = {
	.synopsis = repro_synopsis,
	.text = "Run a bug-reproduction recipe (docs/repro.md) on each of its variants and\n"
		"say per variant REPRODUCED (the expectations met in at least k runs), NOT\n"
		"REPRODUCED (met in none) or INCONCLUSIVE (in between, or runs that ended\n"
		"otherwise), with a table of every run and the console lines that matched.\n"
		"With a known-good variant ('good:' in the recipe) it also tests whether the\n"
		"others differ from it significantly. The run is stored like 'mmlab run'.\n"
		"A recipe's workload may be the reporter's own reproducer (command:, files:,\n"
		"build:, metrics:, as in a job), its expectations on what the program prints.\n"
		"\n"
		"RECIPE is a file, or the name of one in the recipe directory ($MMLAB_REPRO_DIR,\n"
		"default jobs/repro next to mmlab, or PREFIX/share/mmlab/jobs/repro).",
	.footer = "exit status: 0 reproduced, 1 not reproduced, 3 inconclusive (or no verdict:\n"
		  "the run could not be made), 2 bad recipe or usage.",
};

/* {"run", "recipe", "repro"} as JSON or as the verdict and its tables; the exit status */
static int print_verdict(const struct repro_report *rep, bool json)
{
	if (json) {
		json_t *out = repro_report_to_json(rep);

		print_json(out);
		json_decref(out);
	} else {
		repro_print(stdout, rep);
	}
	return repro_verdict_exit(rep->eval.verdict);
}

static int do_list(bool json)
{
	struct repro_entries l;
	char *dir;

	if (repro_list(&dir, &l)) {
		free(dir);
		return EXIT_USAGE;
	}
	if (json) {
		json_t *o = repro_entries_json(&l);

		print_json(o);
		json_decref(o);
	} else if (!l.n) {
		printf("no recipes in %s\n", dir);
	} else {
		printf("%-20s %-20s %s\n", "RECIPE", "BUG", "TITLE");
		for (size_t i = 0; i < l.n; i++) {
			const struct repro_entry *e = &l.v[i];

			if (e->runnable)
				printf("%-20s %-20s %s\n", e->name, e->bug, e->title);
			else
				printf("%-20s %-20s not runnable in this build: %s\n", e->name, "-",
				       e->why);
		}
	}
	repro_entries_release(&l);
	free(dir);
	return 0;
}

static int do_show(const char *run, bool json)
{
	struct repro_env env = { gopts.results_dir, gopts.cache_dir, gopts.connect_uri };
	struct repro_report rep;
	int ret;

	if (repro_show(&env, run, &rep))
		return EXIT_USAGE;
	ret = print_verdict(&rep, json);
	repro_report_release(&rep);
	return ret;
}

/* validate the recipe only, or run it */
static int do_recipe(const char *arg, const struct repro_overrides *ov, const struct run_opts *o,
		     bool check, bool json)
{
	struct repro_env env = { gopts.results_dir, gopts.cache_dir, gopts.connect_uri };
	char *path = repro_find_recipe(arg);
	struct recipe *r = NULL;
	struct repro_report rep;
	enum repro_failure why;
	int ret;

	if (!path)
		return REPRO_EXIT_BAD_RECIPE;
	ret = recipe_load(path, &r);
	free(path);
	if (ret || repro_apply_overrides(r, ov)) {
		ret = REPRO_EXIT_BAD_RECIPE;
	} else if (check) {
		printf("%s: a valid recipe for %s (%s): %zu variant%s, %u run%s, %zu expectation%s\n",
		       r->path, r->bug_id, r->bug_title, r->job->nvariants,
		       r->job->nvariants == 1 ? "" : "s", r->job->iterations,
		       r->job->iterations == 1 ? "" : "s", r->nexpect, r->nexpect == 1 ? "" : "s");
	} else if (repro_run(&env, r, o, &rep, &why)) {
		ret = why == REPRO_BAD_JOB ? REPRO_EXIT_BAD_RECIPE : REPRO_EXIT_INCONCLUSIVE;
	} else {
		ret = print_verdict(&rep, json);
		repro_report_release(&rep);
	}
	recipe_free(r);
	return ret;
}

/* order is a word from a list; 0 or -1 after a message */
static int check_run_options(const char *order, struct run_opts *o)
{
	if (order && strcmp(order, "random") && strcmp(order, "sequential")) {
		lab_err("--order is 'random' or 'sequential', not '%s'", order);
		return -1;
	}
	o->sequential = order && !strcmp(order, "sequential");
	return 0;
}

int cmd_repro(int argc, char **argv)
{
	struct repro_overrides ov = { 0 };
	struct run_opts o = { 0 };
	const char *order = NULL, *show = NULL;
	bool json = false, list = false, check = false;
	struct opt opts[] = {
		OPT_STRING(0, "kernel", &ov.kernel, "distro|PATH",
			   "run the first tested variant's settings on this kernel\n"
			   "instead (only that variant)"),
		OPT_STRING(0, "variant", &ov.variant, "NAME",
			   "run only this variant of the recipe"),
		OPT_UINT(0, "runs", &ov.runs, 1, 1000, "N",
			 "runs per variant instead of the recipe's 'runs'"),
		OPT_STRING(0, "order", &order, "random|sequential", "as for 'mmlab run'"),
		OPT_CALLBACK(0, "seed", &o, "N", "as for 'mmlab run'", opt_seed_cb),
		OPT_CALLBACK(0, "accel", &o.accel, "auto|kvm|tcg", "as for 'mmlab run'",
			     opt_accel_cb),
		OPT_BOOL(0, "json", &json, "print {run, recipe, repro} as JSON"),
		OPT_BOOL(0, "list", &list,
			 "the recipes in the recipe directory, with bug and title"),
		OPT_BOOL(0, "check", &check, "validate the recipe only (nothing boots)"),
		OPT_STRING(0, "show", &show, "RUN", "the verdict stored with a repro run"),
		OPT_END(),
	};
	int argn = parse_options(argc, argv, opts, &repro_usage, 0);

	if (argn < 0)
		return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (list || show) {
		if (argn || (list && show)) {
			lab_err("--list and --show take no recipe; see 'mmlab repro --help'");
			return EXIT_USAGE;
		}
		if (ov.kernel || ov.variant || ov.runs || order || o.seeded || o.accel || check) {
			lab_err("--list and --show take only --json; see 'mmlab repro --help'");
			return EXIT_USAGE;
		}
		return list ? do_list(json) : do_show(show, json);
	}
	if (argn != 1) {
		lab_err("mmlab repro wants one recipe; 'mmlab repro --list' shows them");
		return EXIT_USAGE;
	}
	if (ov.kernel && ov.variant) {
		lab_err("give --kernel or --variant, not both: --kernel already runs one variant");
		return EXIT_USAGE;
	}
	if (check_run_options(order, &o))
		return EXIT_USAGE;
	return do_recipe(argv[0], &ov, &o, check, json);
}
