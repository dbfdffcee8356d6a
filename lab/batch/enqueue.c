// SPDX-License-Identifier: GPL-2.0
/*
 * enqueue.c - adding a job to the queue (see enqueue.h).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batch/enqueue.h"
#include "store/run_record.h"
#include "run/runner.h"
#include "lib/strbuf.h"
#include "lib/util.h"

enum batch_result queue_add_job(struct queue *q, struct store *s, const char *path, int priority,
				const struct run_opts *ro, const char *slurm, char **run_out,
				long long *job_out, struct run_record *rec_out)
{
	/* kernels built from source become the queue's build items */
	struct run_opts o = *ro;
	struct run_record rec;
	char *run = NULL;
	long long id = 0;
	int ret;

	if (!o.job)
		o.job_path = path;
	o.defer_builds = true;
	ret = runner_create(s, &o, &run);

	if (ret)
		return batch_result_of_run(ret);
	if (store_record_read(s, run, &rec)) {
		free(run);
		return BATCH_FAILED;
	}
	id = queue_add(q, run, rec.job ? rec.job : "?", priority, rec.boots, rec.nboots, slurm);
	if (id < 0) {
		run_record_release(&rec);
		free(run);
		return BATCH_FAILED;
	}
	*run_out = run;
	*job_out = id;
	if (rec_out)
		*rec_out = rec;
	else
		run_record_release(&rec);
	return BATCH_OK;
}

char *queue_build_variants(const struct run_record *rec)
{
	struct strlist names = { 0 };
	char *list = NULL;
	size_t k;

	for (size_t i = 0; i < rec->nboots; i++) {
		const char *v = rec->boots[i].variant;

		if (!rec->boots[i].build)
			continue;
		for (k = 0; k < names.n && strcmp(names.v[k], v); k++)
			;
		if (k == names.n)
			strlist_push(&names, v);
	}
	if (names.n)
		list = strlist_join(&names, ", ");
	strlist_free(&names);
	return list;
}
