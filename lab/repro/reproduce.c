// SPDX-License-Identifier: GPL-2.0
/*
 * reproduce.c - "mmlab repro": recipes found and listed, narrowed by the
 * options, run, judged and stored; see reproduce.h.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "repro/reproduce.h"
#include "repro/repro.h"
#include "store/results.h"
#include "store/run_record.h"
#include "lib/util.h"

/* finding and listing recipes ------------------------------------------------ */

char *repro_recipe_dir(void)
{
	const char *e = getenv("MMLAB_REPRO_DIR");
	char *d;

	if (e && *e)
		return xstrdup(e);
	d = xasprintf("%s/jobs/repro", exe_dir()); /* the source tree */
	if (is_dir(d))
		return d;
	free(d);
	return xasprintf("%s/../share/mmlab/jobs/repro", exe_dir()); /* make install */
}

char *repro_find_recipe(const char *arg)
{
	char *dir, *p;

	if (path_exists(arg) || strchr(arg, '/'))
		return xstrdup(arg);
	dir = repro_recipe_dir();
	p = xasprintf("%s/%s.yaml", dir, arg);
	if (!path_exists(p)) {
		free(p);
		p = xasprintf("%s/%s", dir, arg);
	}
	if (!path_exists(p)) {
		lab_err("no recipe '%s': not a file here, nor in %s ('mmlab repro --list' "
			"shows the recipes there)",
			arg, dir);
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

/* the *.yaml files of dir, sorted; -1 after a message */
static int yaml_files(const char *dir, struct strlist *files)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		lab_err("cannot read the recipe directory %s; set MMLAB_REPRO_DIR to the "
			"directory of your recipes",
			dir);
		return -1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml"))
			strlist_push(files, e->d_name);
	}
	closedir(d);
	if (files->n)
		qsort(files->v, files->n, sizeof(*files->v), cmp_str);
	return 0;
}

static json_t *list_entry(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file), first[512];
	char *name = xstrndup(file, strlen(file) - 5);
	struct recipe *r = load_quiet(path, first, sizeof(first));
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
	recipe_free(r);
	free(name);
	free(path);
	return o;
}

json_t *repro_list(char **dir)
{
	struct strlist files = { 0 };
	json_t *out;

	*dir = repro_recipe_dir();
	if (yaml_files(*dir, &files))
		return NULL;
	out = json_array();
	for (size_t i = 0; i < files.n; i++)
		json_array_append_new(out, list_entry(*dir, files.v[i]));
	strlist_free(&files);
	return out;
}

/* narrowing a recipe ------------------------------------------------------------ */

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

/* the variant the options keep alone, -1 for all of them, -2 after a message */
static int kept_variant(const struct recipe *r, const struct repro_overrides *ov)
{
	const struct job *job = r->job;
	int keep;

	if (ov->variant) {
		keep = find_variant(job, ov->variant);
		if (keep < 0)
			lab_err("--variant %s: %s has no such variant; its variants are listed "
				"in the file",
				ov->variant, r->path);
		return keep < 0 ? -2 : keep;
	}
	if (!ov->kernel)
		return -1;
	/* the first tested (not known-good) variant carries the settings */
	if (r->good && !strcmp(job->variants[0].name, r->good) && job->nvariants > 1)
		return 1;
	return 0;
}

/* the one variant left runs on the kernel of --kernel */
static void set_kernel(struct recipe *r, const char *kernel)
{
	struct job_variant *v = &r->job->variants[0];

	free(v->kernel_path);
	v->kernel_path = NULL;
	v->kernel_kind = KERNEL_DISTRO;
	if (strcmp(kernel, "distro")) {
		v->kernel_kind = KERNEL_PATH;
		v->kernel_path = path_abs(kernel);
	}
	free(r->good);
	r->good = NULL;
}

int repro_apply_overrides(struct recipe *r, const struct repro_overrides *ov)
{
	struct job *job = r->job;
	int keep = kept_variant(r, ov);

	if (keep == -2)
		return -1;
	if (keep >= 0) {
		if (r->good && strcmp(job->variants[keep].name, r->good)) {
			free(r->good);
			r->good = NULL;
		}
		keep_variant(job, (size_t)keep);
	}
	if (ov->kernel)
		set_kernel(r, ov->kernel);
	if (ov->runs) {
		job->iterations = ov->runs;
		if (job->iterations_per_boot > ov->runs)
			job->iterations_per_boot = ov->runs;
	}
	for (size_t i = 0; i < r->nexpect; i++) {
		if (r->expect[i].k > job->iterations) {
			lab_err("%s: expect[%zu] needs k = %u runs but only %u are asked; "
				"give --runs %u or more",
				r->path, i, r->expect[i].k, job->iterations, r->expect[i].k);
			return -1;
		}
	}
	return 0;
}

/* running and showing ------------------------------------------------------------ */

static json_t *verdict_json(json_t *run_id, json_t *recipe, json_t *eval)
{
	return json_pack("{s:O, s:O, s:O}", "run", run_id, "recipe", recipe, "repro", eval);
}

/* repro_judge() with the recipe's JSON made before its job went to the runner */
static int judge(struct store *s, const char *id, const struct recipe *r, json_t *recipe,
		 json_t **out)
{
	json_t *run = store_load_run(s, id), *eval;
	struct run_record rec = { 0 };
	char *dir = store_run_path(s, id);
	int ret;

	*out = NULL;
	if (!run) {
		free(dir);
		return REPRO_EXIT_INCONCLUSIVE;
	}
	eval = repro_evaluate(r, run, dir);
	if (store_record_read(s, id, &rec) || run_record_set_verdict(&rec, recipe, eval) ||
	    store_record_write(s, id, &rec))
		lab_warn("run %s: the verdict could not be stored with the run; it is only "
			 "printed here",
			 id);
	*out = verdict_json(json_object_get(run, "run"), recipe, eval);
	ret = (int)json_integer_value(json_object_get(eval, "exit"));
	run_record_release(&rec);
	json_decref(eval);
	json_decref(run);
	free(dir);
	return ret;
}

int repro_judge(struct store *s, const char *id, const struct recipe *r, json_t **out)
{
	json_t *recipe = recipe_json(r);
	int ret = judge(s, id, r, recipe, out);

	json_decref(recipe);
	return ret;
}

int repro_run(const struct repro_env *env, struct recipe *r, const struct run_opts *o, json_t **out)
{
	struct run_opts ro = *o;
	struct run_result res;
	json_t *recipe = recipe_json(r); /* its "runs" is the job's */
	struct store *s = store_open(env->results_dir);
	int ret;

	*out = NULL;
	if (!s) {
		json_decref(recipe);
		return REPRO_EXIT_INCONCLUSIVE;
	}
	lab_info("reproducing %s (%s) from %s", r->bug_id, r->bug_title, r->path);
	ro.job = r->job;
	r->job = NULL; /* the runner frees it */
	ro.cache_dir = env->cache_dir;
	ro.connect_uri = env->connect_uri;
	ret = runner_run(s, &ro, &res);
	if (!res.run_id) {
		if (ret != EXIT_USAGE)
			lab_err("no verdict: the run of %s could not be made (see above)", r->path);
		ret = ret == EXIT_USAGE ? REPRO_EXIT_BAD_RECIPE : REPRO_EXIT_INCONCLUSIVE;
	} else {
		if (res.interrupted)
			lab_warn(
				"run %s was interrupted; the verdict covers the runs stored so far",
				res.run_id);
		ret = judge(s, res.run_id, r, recipe, out);
	}
	run_result_release(&res);
	store_close(s);
	json_decref(recipe);
	return ret;
}

int repro_show(const struct repro_env *env, const char *run, json_t **out)
{
	struct store *s = store_open(env->results_dir);
	json_t *rj = s ? store_load_run(s, run) : NULL;
	json_t *recipe, *eval;
	int ret = EXIT_USAGE;

	*out = NULL;
	if (!rj)
		goto out;
	recipe = json_object_get(rj, "recipe");
	eval = json_object_get(rj, "repro");
	if (!recipe || !eval) {
		lab_err("run %s is not a repro run (it has no verdict); 'mmlab repro RECIPE' "
			"makes one",
			json_string_value(json_object_get(rj, "run")));
		goto out;
	}
	*out = verdict_json(json_object_get(rj, "run"), recipe, eval);
	ret = (int)json_integer_value(json_object_get(eval, "exit"));
out:
	json_decref(rj);
	store_close(s);
	return ret;
}
