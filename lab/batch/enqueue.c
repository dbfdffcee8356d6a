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

int queue_add_job(struct queue *q, struct store *s, const char *path, int priority,
		  const struct run_opts *ro, const char *slurm, char **run_out, long long *job_out,
		  json_t **boots_out)
{
	/* kernels built from source become the queue's build items */
	struct run_opts o = *ro;
	struct run_record rec;
	json_t *boots;
	char *run = NULL;
	long long id = 0;
	int ret;

	if (!o.job)
		o.job_path = path;
	o.defer_builds = true;
	ret = runner_create(s, &o, &run);

	if (ret)
		return ret;
	if (store_record_read(s, run, &rec)) {
		free(run);
		return EXIT_RUN_FAILED;
	}
	boots = run_record_boots_json(&rec);
	id = queue_add(q, run, rec.job ? rec.job : "?", priority, boots, slurm);
	run_record_release(&rec);
	if (id < 0) {
		json_decref(boots);
		free(run);
		return EXIT_RUN_FAILED;
	}
	*run_out = run;
	*job_out = id;
	if (boots_out)
		*boots_out = boots;
	else
		json_decref(boots);
	return 0;
}

char *queue_build_variants(json_t *boots)
{
	struct strlist names = { 0 };
	char *list = NULL;
	json_t *b;
	size_t i, k;

	json_array_foreach(boots, i, b) {
		const char *v = json_string_value(json_object_get(b, "variant"));

		if (!json_string_value(json_object_get(b, "build")) || !v)
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
