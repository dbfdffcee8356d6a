// SPDX-License-Identifier: GPL-2.0
/*
 * fold.c - the task records of Slurm tasks into the queue (see fold.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/fold.h"
#include "store/run_record.h"
#include "batch/queue_build.h"
#include "batch/queue_status.h"
#include "batch/taskrec.h"
#include "lib/util.h"

/* settle build item it (queued) of job run from its ended record; 1 settled, 0 not */
static int fold_build(struct queue *q, struct store *s, const char *run,
		      const struct queue_status_item *it)
{
	const char *variant = it->variant, *req = it->request;
	struct queue_owner self;
	struct queue_item claimed;
	struct taskrec t;
	struct run_record rec;
	const struct run_variant *v;
	json_t *res;
	char *task, *log, *err = NULL;
	int ret = 0;

	if (!variant || !req)
		return 0;
	task = xasprintf("build-%s", variant);
	if (taskrec_read(store_dir(s), run, task, &t, NULL) || t.state == TASK_RUNNING ||
	    strcmp(t.request, req)) {
		free(task);
		return 0;
	}
	free(task);
	/* the kernel the build handed on, as the run's files show it */
	if (store_record_read(s, run, &rec))
		return 0;
	v = run_record_variant(&rec, variant);
	res = !v || !v->has_kernel ? NULL :
	      v->kernel.build_pending ?
				     json_pack("{s:s, s:b}", "source", "build", "build_failed", 1) :
				     run_kernel_build_result(&v->kernel);
	queue_owner_self(&self);
	if (!queue_claim_item(q, &self, it->id, &claimed) &&
	    !queue_build_set_result(q, claimed.id, res)) {
		log = xasprintf("%s/%s/slurm/build-%s.out", store_dir(s), run, variant);
		build_item_settle(q, s, &claimed, log, false, &err, NULL);
		free(log);
		ret = 1;
	}
	free(err);
	json_decref(res);
	run_record_release(&rec);
	return ret;
}

int batch_fold(struct queue *q, struct store *s)
{
	json_t *doc = queue_status(q, 0);
	struct queue_status st;
	int n = 0;

	if (!doc)
		return -1;
	if (queue_status_from_json(doc, &st)) {
		json_decref(doc);
		return -1;
	}
	json_decref(doc);
	for (size_t i = 0; i < st.njobs; i++) {
		const struct queue_status_job *j = &st.jobs[i];

		if (!j->has_slurm || !j->run)
			continue;
		for (size_t k = 0; k < j->nitems; k++)
			if (j->items[k].build && !strcmp(j->items[k].state ?: "", "queued"))
				n += fold_build(q, s, j->run, &j->items[k]);
	}
	queue_status_release(&st);
	return n;
}

/* what this host saw of a record: "beat sec nsec at boot_id" in the queue's notes */
static void seen_load(struct queue *q, const char *key, const char *boot, struct task_seen *sn)
{
	char *v = queue_note_get(q, key), b[64] = "";
	unsigned long long beat;
	long long sec;
	long nsec;
	double at;

	memset(sn, 0, sizeof(*sn));
	if (v && sscanf(v, "%llu %lld %ld %lf %63s", &beat, &sec, &nsec, &at, b) == 5 &&
	    !strcmp(b, boot)) { /* monotonic times of another boot of this host mean nothing */
		sn->beat = beat;
		sn->mtime.tv_sec = (time_t)sec;
		sn->mtime.tv_nsec = nsec;
		sn->at = at;
	}
	free(v);
}

static void seen_save(struct queue *q, const char *key, const char *boot,
		      const struct task_seen *sn)
{
	char *v = xasprintf("%llu %lld %ld %.3f %s", sn->beat, (long long)sn->mtime.tv_sec,
			    (long)sn->mtime.tv_nsec, sn->at, boot);

	queue_note_set(q, key, v);
	free(v);
}

void batch_fold_tasks(struct queue *q, struct store *s, json_t *j, double stale_s)
{
	struct queue_status_job job;
	size_t nboot = 0;
	char *boot;

	if (queue_status_job_from_json(j, &job))
		return;
	boot = host_boot_id();
	for (size_t i = 0; i < job.nitems; i++) {
		char task[64], *key;
		struct task_seen sn;
		struct timespec mt;
		struct taskrec t;
		bool lost;

		if (!job.run || job.items[i].build)
			continue;
		snprintf(task, sizeof(task), "boot-%zu", nboot++);
		if (taskrec_read(store_dir(s), job.run, task, &t, &mt))
			continue;
		key = xasprintf("seen %s %s", job.run, task);
		seen_load(q, key, boot, &sn);
		lost = taskrec_stale(&sn, &t, mt, now_monotonic(), stale_s);
		seen_save(q, key, boot, &sn);
		free(key);
		json_object_set_new(qs_doc_item(j, i), "task",
				    json_pack("{s:s, s:s, s:i, s:I, s:s, s:b}", "state",
					      taskrec_state_name(t.state), "host", t.host,
					      "attempt", (int)t.attempt, "beat", (json_int_t)t.beat,
					      "reason", t.reason, "lost", lost));
	}
	queue_status_job_release(&job);
	free(boot);
}
