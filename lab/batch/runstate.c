// SPDX-License-Identifier: GPL-2.0
/*
 * runstate.c - a queued run's status (see runstate.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/runstate.h"
#include "store/run_record.h"
#include "lib/timefmt.h"
#include "lib/util.h"

int runstate_set(struct store *s, const char *run, const char *status)
{
	struct run_record rec;
	char now[TIME_STR_LEN];
	int ret;

	if (store_record_read(s, run, &rec))
		return -1;
	free(rec.status);
	rec.status = xstrdup(status);
	if (!strcmp(status, "running")) {
		struct queue_owner o;

		queue_owner_self(&o);
		rec.pid = getpid();
		free(rec.host_boot_id);
		rec.host_boot_id = xstrdup(o.boot);
		free(rec.finished);
		rec.finished = NULL;
	} else if (!strcmp(status, "complete") || !strcmp(status, "cancelled")) {
		time_iso(time(NULL), now);
		free(rec.finished);
		rec.finished = xstrdup(now);
	}
	ret = store_record_write(s, run, &rec);
	run_record_release(&rec);
	return ret;
}

bool runstate_item_stored(const struct queue_item *it, void *arg)
{
	struct store *s = arg;

	if (it->kind == ITEM_BUILD)
		return false; /* a build is never "stored": it runs again */
	for (unsigned int i = 0; i < it->count; i++)
		if (!store_iteration_done(s, it->run, it->variant, it->first + i))
			return false;
	return true;
}

void runstate_follow(struct queue *q, struct store *s, long long id)
{
	bool final, all_done, cancelled;
	unsigned int running;
	char *run;

	if (queue_job_final(q, id, &final, &all_done, &cancelled) ||
	    queue_job_run(q, id, &run, &running))
		return;
	if (final && cancelled)
		runstate_set(s, run, "cancelled");
	else if (!final && !running)
		runstate_set(s, run, "queued");
	free(run);
}

/* the boots of run's plan (run.json "boots") not stored yet */
static size_t boots_missing(struct store *s, const char *run)
{
	struct run_record rec;
	size_t missing = 0;

	if (store_record_read(s, run, &rec))
		return 0;
	for (size_t i = 0; i < rec.nboots; i++) {
		struct queue_item it = { .first = rec.boots[i].first, .count = rec.boots[i].count };

		snprintf(it.run, sizeof(it.run), "%s", run);
		snprintf(it.variant, sizeof(it.variant), "%s", rec.boots[i].variant);
		missing += !runstate_item_stored(&it, s);
	}
	run_record_release(&rec);
	return missing;
}

enum batch_result runstate_finish(struct store *s, const char *run_arg)
{
	char *run = store_run_resolve(s, run_arg);
	size_t missing;

	if (!run)
		return BATCH_BAD_INPUT;
	missing = boots_missing(s, run);
	if (runstate_set(s, run, missing ? "incomplete" : "complete")) {
		free(run);
		return BATCH_FAILED;
	}
	if (missing)
		lab_err("run %s: %zu boot%s not stored; 'mmlab queue status --items' and the "
			"Slurm task logs under %s/%s/slurm say why",
			run, missing, missing == 1 ? "" : "s", store_dir(s), run);
	else
		lab_info("run %s complete", run);
	free(run);
	return missing ? BATCH_FAILED : BATCH_OK;
}
