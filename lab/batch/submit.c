// SPDX-License-Identifier: GPL-2.0
/*
 * submit.c - submitting runs to Slurm (see submit.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batch/enqueue.h"
#include "batch/queue_build.h"
#include "batch/slurm.h"
#include "batch/submit.h"
#include "store/run_record.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* one run on its way to Slurm */
struct run_sub {
	struct queue *q;
	struct store *s;
	struct submit_opts *o;
	const char *run;
	struct slurm_target t; /* dir: RESULTS/<run>/slurm */
	json_t *builds; /* {variant: build job id} */
	struct strbuf deps; /* ":id:id..." of the build jobs */
};

static int write_script(const struct run_sub *r, const char *path, const char *const words[],
			size_t nwords, bool array)
{
	char *text = slurm_script_text(r->o->mmlab, store_dir(r->s), r->o->cache_dir, words, nwords,
				       array);
	int ret;

	if (!text)
		return -1;
	ret = write_file_atomic(path, text, strlen(text), 0755);
	free(text);
	return ret;
}

static unsigned int task_minutes(struct store *s, const char *run, unsigned int count)
{
	struct job *job = load_run_job(s, run);
	double sec = job ? job->timeouts.boot_s + (double)job->timeouts.iteration_s * count : 0;

	job_free(job);
	return (unsigned int)(sec / 60) + 5;
}

/* a task holds as many Slurm CPUs as its guest has vCPUs */
static unsigned int job_vcpus(struct store *s, const char *run)
{
	struct job *job = load_run_job(s, run);
	unsigned int cpus = 0;

	for (unsigned int i = 0; job && i < job->topo.nnodes; i++)
		cpus += job->topo.nodes[i].cpus;
	job_free(job);
	return cpus ? cpus : 1;
}

/* the build job of variant v's kernel (request req); 0 or -1 after a message */
static int submit_build(struct run_sub *r, const char *v, const char *req)
{
	const char *words[] = { "build", r->run, "--variant", v };
	struct strlist a = { 0 };
	enum item_state state;
	char *script, *why = NULL, *id = NULL;

	json_decref(queue_build_result(r->q, req, &state, NULL));
	if (state == ITEM_DONE && !build_kernel_ready(r->q, r->s, r->run, v, &why)) {
		lab_info("variant '%s': its kernel is built already (request %.12s)", v, req);
		return 0;
	}
	free(why);
	script = xasprintf("%s/build-%s.sh", r->t.dir, v);
	if (!write_script(r, script, words, ARRAY_SIZE(words), false)) {
		if (!r->o->build_cpus)
			r->o->build_cpus = slurm_node_cpus(r->o->partition);
		slurm_build_argv(&a, &r->t, r->run, v, r->o->build_cpus, r->o->build_minutes,
				 script);
		id = slurm_sbatch(&a);
	}
	if (id) {
		json_object_set_new(r->builds, v, json_string(id));
		strbuf_addf(&r->deps, ":%s", id);
	}
	strlist_free(&a);
	free(script);
	free(id);
	return id ? 0 : -1;
}

/*
 * A build job per kernel of the run still to be built (one per build
 * request; a build already done is handed to the run now). 0 or -1.
 */
static int submit_builds(struct run_sub *r, const struct run_record *rec)
{
	struct strlist reqs = { 0 };
	size_t k;
	int ret = 0;

	for (size_t i = 0; i < rec->nboots; i++) {
		const char *req = rec->boots[i].build;
		const char *v = rec->boots[i].variant;

		if (!req)
			continue;
		for (k = 0; k < reqs.n && strcmp(reqs.v[k], req); k++)
			;
		if (k < reqs.n)
			continue; /* another variant of this run needs the same kernel */
		strlist_push(&reqs, req);
		ret = submit_build(r, v, req);
		if (ret)
			break;
	}
	strlist_free(&reqs);
	return ret;
}

/* the array of boots and the finishing job; the array's id, or NULL */
static char *submit_array(struct run_sub *r, const struct run_record *rec, const char *task,
			  const char *fin, char **fin_id)
{
	struct strlist a = { 0 }, b = { 0 };
	unsigned int n = (unsigned int)rec->nboots;
	unsigned int count = rec->nboots ? rec->boots[0].count : 0;
	char *arr_id;

	slurm_array_argv(&a, &r->t, r->run, n, job_vcpus(r->s, r->run),
			 r->o->minutes ? r->o->minutes : task_minutes(r->s, r->run, count),
			 r->deps.len ? r->deps.buf : NULL, task);
	arr_id = slurm_sbatch(&a);
	if (arr_id) {
		slurm_finish_argv(&b, &r->t, r->run, arr_id, fin);
		*fin_id = slurm_sbatch(&b);
	}
	strlist_free(&a);
	strlist_free(&b);
	return arr_id;
}

/* scancel what was submitted of a run that could not be submitted whole */
static void cancel_builds(json_t *builds)
{
	struct strlist ids = { 0 };
	const char *key;
	json_t *v;

	json_object_foreach(builds, key, v)
		strlist_push(&ids, json_string_value(v));
	slurm_scancel((const char *const *)ids.v, ids.n);
	strlist_free(&ids);
}

/* the scripts, the build jobs, the array and its finishing job into done; 0 or -1 */
static int submit_run(struct run_sub *r, long long job, const char *path,
		      const struct run_record *rec, struct submitted *done)
{
	const char *exec_words[] = { "exec", r->run };
	const char *fin_words[] = { "finish", r->run };
	char *task = xasprintf("%s/task.sh", r->t.dir), *fin = xasprintf("%s/finish.sh", r->t.dir);
	char *arr_id = NULL, *fin_id = NULL, *slurm;
	const char *key;
	int ret = -1;
	json_t *sj, *v;

	if (mkdir_p(r->t.dir, 0755) || write_script(r, task, exec_words, 2, true) ||
	    write_script(r, fin, fin_words, 2, false) || submit_builds(r, rec))
		goto out;
	arr_id = submit_array(r, rec, task, fin, &fin_id);
	if (!arr_id)
		goto out;
	sj = json_pack("{s:s, s:s?, s:O}", "array", arr_id, "finish", fin_id, "builds", r->builds);
	slurm = json_dumps(sj, JSON_COMPACT);
	json_decref(sj);
	if (!queue_set_slurm(r->q, job, slurm) && fin_id) {
		*done = (struct submitted){ .id = job,
					    .run = xstrdup(r->run),
					    .file = xstrdup(path),
					    .boots = rec->nboots,
					    .array_job = xstrdup(arr_id),
					    .finish_job = xstrdup(fin_id) };
		json_object_foreach(r->builds, key, v) {
			strlist_push(&done->build_variants, key);
			strlist_push(&done->build_ids, json_string_value(v));
		}
		ret = 0;
	}
	free(slurm);
out:
	if (ret && !arr_id) { /* the queue keeps no half-submitted job */
		cancel_builds(r->builds);
		queue_cancel(r->q, job);
	}
	free(task);
	free(fin);
	free(arr_id);
	free(fin_id);
	return ret;
}

/* one job file into done (set when BATCH_OK) */
static enum batch_result submit_one(struct queue *q, struct store *s, const char *path,
				    struct job *loaded, struct submit_opts *o,
				    struct submitted *done)
{
	struct run_sub r = { .q = q, .s = s, .o = o, .deps = STRBUF_INIT };
	struct run_record rec;
	char *run = NULL, *dir;
	long long job;
	struct run_opts ro = { .accel = o->accel,
			       .cache_dir = o->cache_dir,
			       .connect_uri = o->connect_uri,
			       .job = loaded };
	enum batch_result ret = queue_add_job(q, s, path, o->priority, &ro,
					      "{\"state\":\"submitting\"}", &run, &job, &rec);

	if (ret)
		return ret;
	dir = xasprintf("%s/%s/slurm", store_dir(s), run);
	r.run = run;
	r.t = (struct slurm_target){ .partition = o->partition, .dir = dir };
	r.builds = json_object();
	ret = submit_run(&r, job, path, &rec, done) ? BATCH_FAILED : BATCH_OK;
	json_decref(r.builds);
	strbuf_release(&r.deps);
	run_record_release(&rec);
	free(dir);
	free(run);
	return ret;
}

static void submitted_release(struct submitted *d)
{
	free(d->run);
	free(d->file);
	strlist_free(&d->build_variants);
	strlist_free(&d->build_ids);
	free(d->array_job);
	free(d->finish_job);
}

void submitted_list_release(struct submitted_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		submitted_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static json_t *submitted_json(const struct submitted *d)
{
	json_t *builds = json_object();

	for (size_t i = 0; i < d->build_variants.n; i++)
		json_object_set_new(builds, d->build_variants.v[i], json_string(d->build_ids.v[i]));
	return json_pack("{s:I, s:s, s:s, s:I, s:o, s:s, s:s}", "id", (json_int_t)d->id, "run",
			 d->run, "file", d->file, "boots", (json_int_t)d->boots, "build_jobs",
			 builds, "array_job", d->array_job, "finish_job", d->finish_job);
}

json_t *submitted_list_json(const struct submitted_list *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, submitted_json(&l->v[i]));
	return a;
}

enum batch_result submit_job(struct queue *q, struct store *s, const char *path, struct job *loaded,
			     struct submit_opts *o, struct submitted_list *out)
{
	struct submitted done = { 0 };
	enum batch_result ret = submit_one(q, s, path, loaded, o, &done);

	if (ret == BATCH_OK) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = done;
	}
	return ret;
}

enum batch_result submit_jobs(struct queue *q, struct store *s, char *const paths[], size_t n,
			      struct submit_opts *o, struct submitted_list *out)
{
	enum batch_result ret = BATCH_OK;

	for (size_t i = 0; i < n; i++) {
		struct submitted done = { 0 };
		enum batch_result rc = submit_one(q, s, paths[i], NULL, o, &done);

		if (rc == BATCH_OK) {
			out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n++] = done;
		}
		if (rc && (!ret || rc == BATCH_BAD_INPUT))
			ret = rc;
	}
	return ret;
}
