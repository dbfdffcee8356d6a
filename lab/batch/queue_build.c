// SPDX-License-Identifier: GPL-2.0
/*
 * queue_build.c - the queue's kernel build items (see queue_build.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernel/kernel.h"
#include "batch/queue_build.h"
#include "lib/util.h"

struct job *load_run_job(struct store *s, const char *run)
{
	char *copy = xasprintf("%s/%s/job.yaml", store_dir(s), run);
	json_t *rj = store_run_read(s, run);
	const char *dir = json_string_value(json_object_get(rj, "job_dir"));
	struct job *job = NULL;
	size_t len;
	char *buf = read_file(copy, &len, 1u << 20);

	if (buf && job_load_buffer(copy, buf, len, dir ? dir : ".", &job))
		job = NULL;
	free(buf);
	free(copy);
	json_decref(rj);
	return job;
}

json_t *run_variant_kernel(json_t *rj, const char *variant, size_t *idx)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(rj, "variants"), i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")) ?: "", variant)) {
			if (idx)
				*idx = i;
			return json_object_get(v, "kernel");
		}
	return NULL;
}

/*
 * Record a build's outcome as the kernel of a variant that waited for it
 * (run.json "variants"[].kernel), unless the variant has its kernel.
 */
static int run_kernel_set(struct store *s, const char *run, const char *variant, json_t *result)
{
	json_t *rj = store_run_read(s, run), *k;
	size_t i;
	int ret = 0;

	if (!rj)
		return -1;
	k = run_variant_kernel(rj, variant, &i);
	if (k && json_is_true(json_object_get(k, "build_pending"))) {
		json_t *n = json_deep_copy(result);

		/* the operations as this job wrote them; the rest is the build's */
		json_object_set(n, "operations", json_object_get(k, "operations"));
		json_object_set_new(json_array_get(json_object_get(rj, "variants"), i), "kernel",
				    n);
		ret = store_run_write(s, run, rj);
	}
	json_decref(rj);
	return ret;
}

int build_kernel_ready(struct queue *q, struct store *s, const char *run, const char *variant,
		       char **why)
{
	json_t *rj = store_run_read(s, run), *k, *res;
	const char *req;
	enum item_state state;
	int ret = 0;

	*why = NULL;
	if (!rj)
		return 0; /* runner_boot() says what is wrong */
	k = run_variant_kernel(rj, variant, NULL);
	req = json_string_value(json_object_get(k, "request"));
	if (!json_is_true(json_object_get(k, "build_pending")) || !req) {
		json_decref(rj);
		return 0;
	}
	res = queue_build_result(q, req, &state, NULL);
	if (!res || state != ITEM_DONE || json_is_true(json_object_get(res, "build_failed"))) {
		const char *log = json_string_value(json_object_get(res, "build_log"));

		*why = xasprintf("the kernel of variant '%s' was not built (build %.12s is %s%s%s)",
				 variant, req,
				 state < ITEM_NSTATES ? item_state_name(state) : "not in the queue",
				 log ? "; build log " : "", log ? log : "");
		ret = -1;
	} else {
		ret = run_kernel_set(s, run, variant, res);
	}
	json_decref(res);
	json_decref(rj);
	return ret;
}

json_t *build_variant_kernel(struct store *s, const char *run, const char *variant,
			     const char *request, const char *cache_dir, int *rc)
{
	struct job *job = load_run_job(s, run);
	json_t *rj = store_run_read(s, run), *res = NULL;
	const char *base;
	struct kernel_info ki;
	size_t i;

	*rc = -1;
	if (!job || !rj) {
		lab_err("cannot read run %s (its run.json or job.yaml) in %s", run, store_dir(s));
		goto out;
	}
	for (i = 0; i < job->nvariants && strcmp(job->variants[i].name, variant); i++)
		;
	if (i == job->nvariants || job->variants[i].kernel_kind != KERNEL_SOURCE) {
		lab_err("run %s has no variant '%s' built from source", run, variant);
		goto out;
	}
	base = json_string_value(
		json_object_get(run_variant_kernel(rj, variant, NULL), "base_commit"));
	if (base) { /* the ref may have moved since the job was queued */
		free(job->variants[i].ref);
		job->variants[i].ref = xstrdup(base);
	}
	lab_info("building the kernel of variant '%s' of %s (request %.12s)", variant, run,
		 request);
	*rc = kernel_resolve_job(job, i, cache_dir, &ki);
	res = kernel_info_json(&ki);
	if (!ki.build_failed && *rc) { /* not a build: the request itself failed */
		json_decref(res);
		res = json_pack("{s:s, s:b}", "source", "build", "build_failed", 1);
	}
	lab_info("variant '%s': %s", variant,
		 *rc	      ? "the build failed" :
		 ki.cache_hit ? "from the cache" :
				"built");
	kernel_info_release(&ki);
out:
	json_decref(rj);
	job_free(job);
	return res;
}

int build_item_build(struct queue *q, struct store *s, const struct queue_item *it,
		     const char *cache_dir)
{
	int rc;
	json_t *res = build_variant_kernel(s, it->run, it->variant, it->request, cache_dir, &rc);

	if (res && queue_build_set_result(q, it->id, res))
		rc = -1;
	json_decref(res);
	return rc || !res ? -1 : 0;
}

int build_item_settle(struct queue *q, struct store *s, const struct queue_item *it,
		      const char *log, bool interrupted, char **err, json_t **users_out)
{
	enum item_state state;
	json_t *res = queue_build_result(q, it->request, &state, NULL);
	json_t *users = queue_build_users(q, it->id), *u;
	bool ok = res && !json_is_true(json_object_get(res, "build_failed"));
	int ret;
	size_t i;

	*err = NULL;
	if (users_out)
		*users_out = NULL;
	if (!res && interrupted) {
		queue_finish(q, it->id, ITEM_QUEUED, "interrupted");
		ret = -1;
		goto out;
	}
	json_array_foreach(users, i, u)
		if (res)
			run_kernel_set(s, json_string_value(json_object_get(u, "run")),
				       json_string_value(json_object_get(u, "variant")), res);
	if (ok) {
		queue_finish(q, it->id, ITEM_DONE, NULL);
		lab_info("kernel of variant '%s' (%s): %s %s", it->variant, it->run,
			 json_is_true(json_object_get(res, "cache_hit")) ? "from the cache" :
									   "built",
			 json_string_value(json_object_get(res, "cache_key")) ?: "");
		ret = 1;
		goto out;
	}
	*err = xasprintf("the kernel build of variant '%s' failed; build log %s (worker log %s)",
			 it->variant,
			 json_string_value(json_object_get(res, "build_log")) ?: "none", log);
	queue_finish(q, it->id, ITEM_FAILED, *err);
	lab_err("%s", *err);
	if (queue_fail_waiting(q, it->id, *err) > 0 && users_out) {
		*users_out = users;
		users = NULL;
	}
	ret = 0;
out:
	json_decref(users);
	json_decref(res);
	return ret;
}
