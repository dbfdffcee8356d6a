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
#include "repro/repro_json.h"
#include "store/store.h"
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

static void list_entry(const char *dir, const char *file, struct repro_entry *e)
{
	char *path = xasprintf("%s/%s", dir, file), first[512];
	struct recipe *r = load_quiet(path, first, sizeof(first));

	e->name = xstrndup(file, strlen(file) - 5);
	e->file = path;
	e->runnable = r != NULL;
	if (r) {
		e->bug = xstrdup(r->bug_id);
		e->title = xstrdup(r->bug_title);
		e->workload = xstrdup(r->job->workload.name);
	} else {
		e->why = xstrdup(first);
	}
	recipe_free(r);
}

int repro_list(char **dir, struct repro_entries *out)
{
	struct strlist files = { 0 };

	memset(out, 0, sizeof(*out));
	*dir = repro_recipe_dir();
	if (yaml_files(*dir, &files))
		return -1;
	out->v = xcalloc(files.n + 1, sizeof(*out->v));
	for (size_t i = 0; i < files.n; i++)
		list_entry(*dir, files.v[i], &out->v[out->n++]);
	strlist_free(&files);
	return 0;
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

/* the verdict of r on run id into rep, stored in its run.json with recipe (recipe_json()) */
static int judge(struct store *s, const char *id, const struct recipe *r, json_t *recipe,
		 struct repro_report *rep)
{
	struct repro_run run;
	struct run_record rec;
	char *dir;
	json_t *eval;

	memset(rep, 0, sizeof(*rep));
	if (repro_run_load(s, id, &run))
		return -1;
	dir = store_run_path(s, id);
	repro_evaluate(r, &run, dir, &rep->eval);
	rep->run = xstrdup(run.run);
	rep->recipe = json_incref(recipe);
	rep->info.file = xstrdup(r->path);
	rep->info.bug_id = xstrdup(r->bug_id);
	rep->info.bug_title = xstrdup(r->bug_title);
	rep->info.bug_url = r->bug_url ? xstrdup(r->bug_url) : NULL;
	eval = repro_eval_to_json(&rep->eval);
	if (store_record_read(s, id, &rec) || run_record_set_verdict(&rec, recipe, eval) ||
	    store_record_write(s, id, &rec))
		lab_warn("run %s: the verdict could not be stored with the run; it is only "
			 "printed here",
			 id);
	run_record_release(&rec);
	json_decref(eval);
	repro_run_release(&run);
	free(dir);
	return 0;
}

int repro_judge(struct store *s, const char *id, const struct recipe *r, struct repro_report *rep)
{
	json_t *recipe = recipe_json(r);
	int ret = judge(s, id, r, recipe, rep);

	json_decref(recipe);
	return ret;
}

int repro_run(const struct repro_env *env, struct recipe *r, const struct run_opts *o,
	      struct repro_report *rep, enum repro_failure *why)
{
	struct run_opts ro = *o;
	struct run_result res;
	json_t *recipe = recipe_json(r); /* its "runs" is the job's */
	struct store *s = store_open(env->results_dir);
	char *path = xstrdup(r->path);
	int ret;

	memset(rep, 0, sizeof(*rep));
	*why = REPRO_NO_RUN;
	if (!s) {
		json_decref(recipe);
		free(path);
		return -1;
	}
	lab_info("reproducing %s (%s) from %s", r->bug_id, r->bug_title, r->path);
	ro.job = r->job;
	r->job = NULL; /* the runner frees it */
	ro.cache_dir = env->cache_dir;
	ro.connect_uri = env->connect_uri;
	ret = runner_run(s, &ro, &res);
	if (!res.run_id) {
		if (ret != RUN_BAD_INPUT)
			lab_err("no verdict: the run of %s could not be made (see above)", path);
		else
			*why = REPRO_BAD_JOB;
		ret = -1;
	} else {
		if (res.interrupted)
			lab_warn(
				"run %s was interrupted; the verdict covers the runs stored so far",
				res.run_id);
		ret = judge(s, res.run_id, r, recipe, rep);
	}
	run_result_release(&res);
	store_close(s);
	json_decref(recipe);
	free(path);
	return ret;
}

int repro_show(const struct repro_env *env, const char *run, struct repro_report *rep)
{
	struct store *s = store_open(env->results_dir);
	char *id = s ? store_run_resolve(s, run) : NULL;
	struct run_record rec = { 0 };
	int ret = -1;

	memset(rep, 0, sizeof(*rep));
	if (!id || store_record_read(s, id, &rec))
		goto out;
	ret = repro_report_from_record(&rec, rep);
	if (ret > 0)
		lab_err("run %s is not a repro run (it has no verdict); 'mmlab repro RECIPE' "
			"makes one",
			rec.run ? rec.run : id);
	else if (ret < 0)
		lab_err("run %s: the verdict stored in its run.json does not read as one "
			"(docs/repro.md, RESULTS)",
			rec.run ? rec.run : id);
	if (ret) {
		repro_report_release(rep);
		ret = -1;
	}
out:
	run_record_release(&rec);
	free(id);
	store_close(s);
	return ret;
}
