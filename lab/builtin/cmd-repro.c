// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-repro.c - "mmlab repro RECIPE": run a bug-reproduction recipe
 * (docs/repro.md) through the run engine, store it like any run with the
 * recipe and the verdicts added to its run.json, and say REPRODUCED, NOT
 * REPRODUCED or INCONCLUSIVE with the evidence.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "repro/recipe.h"
#include "repro/repro.h"
#include "store/results.h"
#include "run/runner.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab repro RECIPE [--kernel distro|PATH | --variant NAME] [--runs N]\n"
		"                   [--order random|sequential] [--seed N] [--accel auto|kvm|tcg] [--json]\n"
		"       mmlab repro --list [--json]\n"
		"       mmlab repro --check RECIPE\n"
		"       mmlab repro --show RUN [--json]\n"
		"\n"
		"Run a bug-reproduction recipe (docs/repro.md) on each of its variants and\n"
		"say per variant REPRODUCED (the expectations met in at least k runs), NOT\n"
		"REPRODUCED (met in none) or INCONCLUSIVE (in between, or runs that ended\n"
		"otherwise), with a table of every run and the console lines that matched.\n"
		"With a known-good variant ('good:' in the recipe) it also tests whether the\n"
		"others differ from it significantly. The run is stored like 'mmlab run'.\n"
		"\n"
		"RECIPE is a file, or the name of one in the recipe directory ($MMLAB_REPRO_DIR,\n"
		"default jobs/repro next to mmlab, or PREFIX/share/mmlab/jobs/repro).\n"
		"\n"
		"  --kernel distro|PATH  run the first tested variant's settings on this kernel\n"
		"                        instead (only that variant)\n"
		"  --variant NAME        run only this variant of the recipe\n"
		"  --runs N              runs per variant instead of the recipe's 'runs'\n"
		"  --order, --seed, --accel   as for 'mmlab run'\n"
		"  --json                print {run, recipe, repro} as JSON\n"
		"  --list                the recipes in the recipe directory, with bug and title\n"
		"  --check               validate the recipe only (nothing boots)\n"
		"  --show RUN            the verdict stored with a repro run\n"
		"\n"
		"exit status: 0 reproduced, 1 not reproduced, 3 inconclusive (or no verdict:\n"
		"the run could not be made), 2 bad recipe or usage.\n");
}

static char *recipe_dir(void)
{
	const char *e = getenv("MMLAB_REPRO_DIR");

	char *d;

	if (e && *e)
		return xstrdup(e);
	d = xasprintf("%s/jobs/repro", exe_dir());	/* the source tree */
	if (is_dir(d))
		return d;
	free(d);
	return xasprintf("%s/../share/mmlab/jobs/repro", exe_dir());	/* make install */
}

/* a path as given, or NAME / NAME.yaml in the recipe directory */
static char *find_recipe(const char *arg)
{
	char *dir, *p;

	if (path_exists(arg) || strchr(arg, '/'))
		return xstrdup(arg);
	dir = recipe_dir();
	p = xasprintf("%s/%s.yaml", dir, arg);
	if (!path_exists(p)) {
		free(p);
		p = xasprintf("%s/%s", dir, arg);
	}
	if (!path_exists(p)) {
		lab_err("no recipe '%s': not a file here, nor in %s ('mmlab repro --list' "
			"shows the recipes there)", arg, dir);
		free(p);
		p = NULL;
	}
	free(dir);
	return p;
}

/* load with stderr captured; the first error line into first (NULL if ok) */
static struct recipe *load_quiet(const char *path, char *first, size_t len)
{
	struct recipe *r = NULL;
	FILE *tmp = tmpfile();
	int saved = -1;

	first[0] = '\0';
	fflush(stderr);
	if (tmp) {
		saved = dup(2);
		dup2(fileno(tmp), 2);
	}
	recipe_load(path, &r);
	fflush(stderr);
	if (tmp) {
		dup2(saved, 2);
		close(saved);
		rewind(tmp);
		if (!r && fgets(first, (int)len, tmp))
			first[strcspn(first, "\n")] = '\0';
		fclose(tmp);
	}
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int do_list(bool json)
{
	char *dir = recipe_dir(), first[512];
	struct strlist files = { 0 };
	json_t *out = json_array();
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		lab_err("cannot read the recipe directory %s; set MMLAB_REPRO_DIR to the "
			"directory of your recipes", dir);
		free(dir);
		json_decref(out);
		return EXIT_USAGE;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml"))
			strlist_push(&files, e->d_name);
	}
	closedir(d);
	if (files.n)
		qsort(files.v, files.n, sizeof(*files.v), cmp_str);
	for (size_t i = 0; i < files.n; i++) {
		char *path = xasprintf("%s/%s", dir, files.v[i]);
		struct recipe *r = load_quiet(path, first, sizeof(first));
		char *name = xstrndup(files.v[i], strlen(files.v[i]) - 5);
		json_t *o = json_pack("{s:s, s:s}", "name", name, "file", path);

		if (r) {
			json_object_set_new(o, "bug", json_string(r->bug_id));
			json_object_set_new(o, "title", json_string(r->bug_title));
			json_object_set_new(o, "workload", json_string(r->job->workload.name));
			json_object_set_new(o, "runnable", json_true());
		} else {
			json_object_set_new(o, "runnable", json_false());
			json_object_set_new(o, "why", json_string(first));
		}
		json_array_append_new(out, o);
		recipe_free(r);
		free(name);
		free(path);
	}
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!files.n) {
		printf("no recipes in %s\n", dir);
	} else {
		json_t *o;
		size_t i;

		printf("%-20s %-20s %s\n", "RECIPE", "BUG", "TITLE");
		json_array_foreach(out, i, o) {
			if (json_is_true(json_object_get(o, "runnable")))
				printf("%-20s %-20s %s\n", json_string_value(json_object_get(o, "name")),
				       json_string_value(json_object_get(o, "bug")),
				       json_string_value(json_object_get(o, "title")));
			else
				printf("%-20s %-20s not runnable in this build: %s\n",
				       json_string_value(json_object_get(o, "name")), "-",
				       json_string_value(json_object_get(o, "why")));
		}
	}
	json_decref(out);
	strlist_free(&files);
	free(dir);
	return 0;
}

/* keep only variant keep of the job (the others freed through job_free) */
static void keep_variant(struct job *job, size_t keep)
{
	struct job *rest = xcalloc(1, sizeof(*rest));
	size_t n = 0;

	rest->variants = xcalloc(job->nvariants, sizeof(*rest->variants));
	for (size_t i = 0; i < job->nvariants; i++)
		if (i != keep)
			rest->variants[n++] = job->variants[i];
	rest->nvariants = n;
	job->variants[0] = job->variants[keep];
	job->nvariants = 1;
	job_free(rest);
}

static int find_variant(const struct job *job, const char *name)
{
	for (size_t i = 0; i < job->nvariants; i++)
		if (!strcmp(job->variants[i].name, name))
			return (int)i;
	return -1;
}

struct overrides {
	const char *kernel, *variant;
	unsigned int runs;	/* 0 = the recipe's */
};

static int apply_overrides(struct recipe *r, const struct overrides *ov)
{
	struct job *job = r->job;
	int keep = -1;

	if (ov->variant) {
		keep = find_variant(job, ov->variant);
		if (keep < 0) {
			lab_err("--variant %s: %s has no such variant; its variants are listed "
				"in the file", ov->variant, r->path);
			return -1;
		}
	} else if (ov->kernel) {
		/* the first tested (not known-good) variant carries the settings */
		keep = 0;
		if (r->good && !strcmp(job->variants[0].name, r->good) && job->nvariants > 1)
			keep = 1;
	}
	if (keep >= 0) {
		if (r->good && strcmp(job->variants[keep].name, r->good)) {
			free(r->good);
			r->good = NULL;
		}
		keep_variant(job, (size_t)keep);
	}
	if (ov->kernel) {
		struct job_variant *v = &job->variants[0];

		free(v->kernel_path);
		v->kernel_path = NULL;
		v->kernel_kind = KERNEL_DISTRO;
		if (strcmp(ov->kernel, "distro")) {
			v->kernel_kind = KERNEL_PATH;
			v->kernel_path = path_abs(ov->kernel);
		}
		free(r->good);
		r->good = NULL;
	}
	if (ov->runs) {
		job->iterations = ov->runs;
		if (job->iterations_per_boot > ov->runs)
			job->iterations_per_boot = ov->runs;
	}
	for (size_t i = 0; i < r->nexpect; i++) {
		if (r->expect[i].k > job->iterations) {
			lab_err("%s: expect[%zu] needs k = %u runs but only %u are asked; "
				"give --runs %u or more", r->path, i, r->expect[i].k,
				job->iterations, r->expect[i].k);
			return -1;
		}
	}
	return 0;
}

static void print_result(json_t *run_id, json_t *recipe, json_t *eval, bool json)
{
	if (json) {
		json_t *o = json_pack("{s:O, s:O, s:O}", "run", run_id, "recipe", recipe,
				      "repro", eval);

		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
	} else {
		repro_print(stdout, eval, recipe);
	}
}

static int do_show(const char *run, bool json)
{
	struct store *s = store_open(gopts.results_dir);
	json_t *rj = s ? store_load_run(s, run) : NULL;
	json_t *recipe, *eval;
	int ret = EXIT_USAGE;

	if (!rj)
		goto out;
	recipe = json_object_get(rj, "recipe");
	eval = json_object_get(rj, "repro");
	if (!recipe || !eval) {
		lab_err("run %s is not a repro run (it has no verdict); 'mmlab repro RECIPE' "
			"makes one", json_string_value(json_object_get(rj, "run")));
		goto out;
	}
	print_result(json_object_get(rj, "run"), recipe, eval, json);
	ret = (int)json_integer_value(json_object_get(eval, "exit"));
out:
	json_decref(rj);
	store_close(s);
	return ret;
}

/* the run is made: evaluate, store the verdict in run.json, print */
static int verdict(struct store *s, const char *id, struct recipe *r, json_t *recipe,
		   bool json)
{
	json_t *run = store_load_run(s, id), *eval, *rj;
	char *dir = store_run_path(s, id);
	int ret;

	if (!run) {
		free(dir);
		return REPRO_EXIT_INCONCLUSIVE;
	}
	eval = repro_evaluate(r, run, dir);
	rj = store_run_read(s, id);
	if (!rj || json_object_set(rj, "recipe", recipe) || json_object_set(rj, "repro", eval) ||
	    store_run_write(s, id, rj))
		lab_warn("run %s: the verdict could not be stored with the run; it is only "
			 "printed here", id);
	print_result(json_object_get(run, "run"), recipe, eval, json);
	ret = (int)json_integer_value(json_object_get(eval, "exit"));
	json_decref(rj);
	json_decref(eval);
	json_decref(run);
	free(dir);
	return ret;
}

int cmd_repro(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "variant", required_argument, NULL, 'v' },
		{ "runs", required_argument, NULL, 'n' },
		{ "order", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "accel", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'c' },
		{ "show", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct overrides ov = { 0 };
	struct run_opts o = { .cache_dir = gopts.cache_dir, .connect_uri = gopts.connect_uri };
	struct run_result res;
	struct recipe *r = NULL;
	const char *order = NULL, *show = NULL;
	bool json = false, list = false, check = false;
	struct store *s;
	json_t *recipe;
	char *path;
	uint64_t x;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': ov.kernel = optarg; break;
		case 'v': ov.variant = optarg; break;
		case 'n':
			if (parse_uint(optarg, &x) || x < 1 || x > 1000) {
				lab_err("--runs wants an integer 1..1000, not '%s'", optarg);
				return EXIT_USAGE;
			}
			ov.runs = (unsigned int)x;
			break;
		case 'o': order = optarg; break;
		case 's':
			if (parse_uint(optarg, &x)) {
				lab_err("--seed wants a non-negative integer, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o.seed = (unsigned long)x;
			o.seeded = true;
			break;
		case 'a': o.accel = optarg; break;
		case 'j': json = true; break;
		case 'l': list = true; break;
		case 'c': check = true; break;
		case 'S': show = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (list || show) {
		if (optind != argc || (list && show)) {
			lab_err("--list and --show take no recipe; see 'mmlab repro --help'");
			return EXIT_USAGE;
		}
		return list ? do_list(json) : do_show(show, json);
	}
	if (optind != argc - 1) {
		lab_err("mmlab repro wants one recipe; 'mmlab repro --list' shows them");
		return EXIT_USAGE;
	}
	if (ov.kernel && ov.variant) {
		lab_err("give --kernel or --variant, not both: --kernel already runs one variant");
		return EXIT_USAGE;
	}
	if (order && strcmp(order, "random") && strcmp(order, "sequential")) {
		lab_err("--order is 'random' or 'sequential', not '%s'", order);
		return EXIT_USAGE;
	}
	o.sequential = order && !strcmp(order, "sequential");
	if (o.accel && strcmp(o.accel, "auto") && strcmp(o.accel, "kvm") &&
	    strcmp(o.accel, "tcg")) {
		lab_err("--accel is auto, kvm or tcg, not '%s'", o.accel);
		return EXIT_USAGE;
	}
	path = find_recipe(argv[optind]);
	if (!path)
		return REPRO_EXIT_BAD_RECIPE;
	ret = recipe_load(path, &r);
	free(path);
	if (ret || apply_overrides(r, &ov)) {
		recipe_free(r);
		return REPRO_EXIT_BAD_RECIPE;
	}
	if (check) {
		printf("%s: a valid recipe for %s (%s): %zu variant%s, %u run%s, %zu expectation%s\n",
		       r->path, r->bug_id, r->bug_title, r->job->nvariants,
		       r->job->nvariants == 1 ? "" : "s", r->job->iterations,
		       r->job->iterations == 1 ? "" : "s", r->nexpect, r->nexpect == 1 ? "" : "s");
		recipe_free(r);
		return 0;
	}
	recipe = recipe_json(r);
	s = store_open(gopts.results_dir);
	if (!s) {
		json_decref(recipe);
		recipe_free(r);
		return REPRO_EXIT_INCONCLUSIVE;
	}
	lab_info("reproducing %s (%s) from %s", r->bug_id, r->bug_title, r->path);
	o.job = r->job;
	r->job = NULL;		/* the runner frees it */
	ret = runner_run(s, &o, &res);
	if (!res.run_id) {
		if (ret != EXIT_USAGE)
			lab_err("no verdict: the run of %s could not be made (see above)", r->path);
		ret = ret == EXIT_USAGE ? REPRO_EXIT_BAD_RECIPE : REPRO_EXIT_INCONCLUSIVE;
	} else {
		if (res.interrupted)
			lab_warn("run %s was interrupted; the verdict covers the runs stored so far",
				 res.run_id);
		ret = verdict(s, res.run_id, r, recipe, json);
	}
	run_result_release(&res);
	store_close(s);
	json_decref(recipe);
	recipe_free(r);
	return ret;
}
