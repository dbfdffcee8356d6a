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
#include "store/run_record.h"
#include "lib/util.h"

struct job *load_run_job(struct store *s, const char *run)
{
	char *copy = xasprintf("%s/%s/job.yaml", store_dir(s), run);
	struct run_record rec = { 0 };
	struct job *job = NULL;
	size_t len;
	char *buf = read_file(copy, &len, 1u << 20);

	store_record_read(s, run, &rec);
	if (buf && job_load_buffer(copy, buf, len, rec.job_dir ? rec.job_dir : ".", &job))
		job = NULL;
	free(buf);
	free(copy);
	run_record_release(&rec);
	return job;
}

/*
 * Record a build's outcome as the kernel of a variant that waited for it
 * (run.json "variants"[].kernel), unless the variant has its kernel.
 */
static int variant_kernel_built(struct store *s, const char *run, const char *variant,
				const struct run_kernel *built)
{
	struct run_record rec;
	struct run_variant *v;
	int ret = 0;

	if (store_record_read(s, run, &rec))
		return -1;
	v = run_record_variant(&rec, variant);
	if (v && v->has_kernel && v->kernel.build_pending) {
		run_kernel_built(&v->kernel, built);
		ret = store_record_write(s, run, &rec);
	}
	run_record_release(&rec);
	return ret;
}

int build_kernel_ready(struct queue *q, struct store *s, const char *run, const char *variant,
		       char **why)
{
	struct run_record rec;
	const struct run_variant *v;
	struct run_kernel built = { 0 };
	enum item_state state;
	json_t *res;
	const char *req;
	int ret = 0;

	*why = NULL;
	if (store_record_read(s, run, &rec))
		return 0; /* runner_boot() says what is wrong */
	v = run_record_variant(&rec, variant);
	req = v && v->has_kernel && v->kernel.build_pending ? v->kernel.request : NULL;
	if (!req) {
		run_record_release(&rec);
		return 0;
	}
	res = queue_build_result(q, req, &state, NULL);
	if (res)
		run_kernel_from_json(res, &built);
	if (!res || state != ITEM_DONE || built.build_failed) {
		const char *log = built.build_log;

		*why = xasprintf("the kernel of variant '%s' was not built (build %.12s is %s%s%s)",
				 variant, req,
				 state < ITEM_NSTATES ? item_state_name(state) : "not in the queue",
				 log ? "; build log " : "", log ? log : "");
		ret = -1;
	} else {
		ret = variant_kernel_built(s, run, variant, &built);
	}
	run_kernel_release(&built);
	json_decref(res);
	run_record_release(&rec);
	return ret;
}

json_t *build_variant_kernel(struct store *s, const char *run, const char *variant,
			     const char *request, const char *cache_dir, int *rc)
{
	struct job *job = load_run_job(s, run);
	struct run_record rec = { 0 };
	const struct run_variant *v;
	json_t *res = NULL;
	struct kernel_info ki;
	size_t i;

	*rc = -1;
	if (!job || store_record_read(s, run, &rec)) {
		lab_err("cannot read run %s (its run.json or job.yaml) in %s", run, store_dir(s));
		goto out;
	}
	for (i = 0; i < job->nvariants && strcmp(job->variants[i].name, variant); i++)
		;
	if (i == job->nvariants || job->variants[i].kernel_kind != KERNEL_SOURCE) {
		lab_err("run %s has no variant '%s' built from source", run, variant);
		goto out;
	}
	v = run_record_variant(&rec, variant);
	if (v && v->kernel.base_commit) { /* the ref may have moved since the job was queued */
		free(job->variants[i].ref);
		job->variants[i].ref = xstrdup(v->kernel.base_commit);
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
	run_record_release(&rec);
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
		      const char *log, bool interrupted, char **err,
		      struct queue_build_users *users_out)
{
	enum item_state state;
	json_t *res = queue_build_result(q, it->request, &state, NULL);
	struct queue_build_users users;
	struct run_kernel built = { 0 };
	bool ok;
	int ret;

	queue_build_users(q, it->id, &users);

	if (res)
		run_kernel_from_json(res, &built);
	ok = res && !built.build_failed;
	*err = NULL;
	if (users_out)
		memset(users_out, 0, sizeof(*users_out));
	if (!res && interrupted) {
		queue_finish(q, it->id, ITEM_QUEUED, "interrupted");
		ret = -1;
		goto out;
	}
	for (size_t i = 0; res && i < users.n; i++)
		variant_kernel_built(s, users.v[i].run, users.v[i].variant, &built);
	if (ok) {
		queue_finish(q, it->id, ITEM_DONE, NULL);
		lab_info("kernel of variant '%s' (%s): %s %s", it->variant, it->run,
			 built.cache_hit ? "from the cache" : "built",
			 built.cache_key ? built.cache_key : "");
		ret = 1;
		goto out;
	}
	*err = xasprintf("the kernel build of variant '%s' failed; build log %s (worker log %s)",
			 it->variant, built.build_log ? built.build_log : "none", log);
	queue_finish(q, it->id, ITEM_FAILED, *err);
	lab_err("%s", *err);
	if (queue_fail_waiting(q, it->id, *err) > 0 && users_out) {
		*users_out = users;
		memset(&users, 0, sizeof(users));
	}
	ret = 0;
out:
	run_kernel_release(&built);
	queue_build_users_free(&users);
	json_decref(res);
	return ret;
}
