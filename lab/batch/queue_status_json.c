// SPDX-License-Identifier: GPL-2.0
/*
 * queue_status_json.c - the queue's status document -> struct queue_status
 * (queue_status.h): the only place that reads its keys. A value of another
 * type than the one written is read as the readers always read it: a
 * string that is not one is NULL, a number that is not one is 0. Lists are
 * bounded: a document past a bound is refused.
 */
#include <string.h>

#include "batch/queue_status.h"
#include "lib/util.h"

static char *opt_str(const json_t *o, const char *key)
{
	return xstrdup_or_null(json_string_value(json_object_get(o, key)));
}

static long long opt_int(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static int read_counts(const json_t *o, struct qs_count **out, size_t *n, const char *what)
{
	const char *key;
	json_t *v;

	*out = NULL;
	*n = 0;
	if (!json_is_object(o))
		return 0;
	if (json_object_size(o) > QSTATUS_MAX_NAMES) {
		lab_err("queue status: %zu %s (at most %d)", json_object_size(o), what,
			QSTATUS_MAX_NAMES);
		return -1;
	}
	*out = xcalloc(json_object_size(o) + 1, sizeof(**out));
	json_object_foreach((json_t *)o, key, v) {
		(*out)[*n].state = xstrdup(key);
		(*out)[(*n)++].n = (long long)json_integer_value(v);
	}
	return 0;
}

static int read_pairs(const json_t *o, struct qs_pair **out, size_t *n, const char *what)
{
	const char *key;
	json_t *v;

	*out = NULL;
	*n = 0;
	if (!json_is_object(o))
		return 0;
	if (json_object_size(o) > QSTATUS_MAX_NAMES) {
		lab_err("queue status: %zu %s (at most %d)", json_object_size(o), what,
			QSTATUS_MAX_NAMES);
		return -1;
	}
	*out = xcalloc(json_object_size(o) + 1, sizeof(**out));
	json_object_foreach((json_t *)o, key, v) {
		(*out)[*n].key = xstrdup(key);
		(*out)[(*n)++].value = json_string_value(v) ? xstrdup(json_string_value(v)) : NULL;
	}
	return 0;
}

static void read_item(const json_t *o, struct queue_status_item *it)
{
	json_t *pl = json_object_get(o, "placement");

	it->id = opt_int(o, "id");
	it->build = !strcmp(json_string_value(json_object_get(o, "kind")) ?: "", "build");
	it->variant = opt_str(o, "variant");
	it->state = opt_str(o, "state");
	it->request = opt_str(o, "request");
	it->needed_by = opt_int(o, "needed_by");
	it->first = (unsigned int)opt_int(o, "first");
	it->count = (unsigned int)opt_int(o, "count");
	it->error = opt_str(o, "error");
	it->placement = pl ? json_incref(pl) : NULL;
}

static int read_items(const json_t *a, struct queue_status_job *j)
{
	size_t i;
	json_t *o;

	if (!json_is_array(a))
		return 0;
	if (json_array_size(a) > QSTATUS_MAX_ITEMS) {
		lab_err("queue status: %zu items (at most %d)", json_array_size(a),
			QSTATUS_MAX_ITEMS);
		return -1;
	}
	j->items = xcalloc(json_array_size(a) + 1, sizeof(*j->items));
	json_array_foreach(a, i, o) {
		if (!json_is_object(o)) {
			lab_err("queue status: an item that is not an object");
			return -1;
		}
		read_item(o, &j->items[j->nitems++]);
	}
	return 0;
}

int queue_status_job_from_json(const json_t *o, struct queue_status_job *j)
{
	json_t *eta = json_object_get(o, "eta_s"), *sl = json_object_get(o, "slurm");

	memset(j, 0, sizeof(*j));
	if (!json_is_object(o)) {
		lab_err("queue status: a job that is not an object");
		return -1;
	}
	j->id = opt_int(o, "id");
	j->run = opt_str(o, "run");
	j->priority = opt_int(o, "priority");
	j->has_eta = json_is_number(eta);
	j->eta_s = json_number_value(eta);
	if (read_counts(json_object_get(o, "counts"), &j->counts, &j->ncounts, "counts") ||
	    read_counts(json_object_get(o, "builds"), &j->builds, &j->nbuilds, "build counts") ||
	    read_items(json_object_get(o, "items"), j))
		goto fail;
	j->has_slurm = json_is_object(sl);
	if (!j->has_slurm)
		return 0;
	j->slurm.array = opt_str(sl, "array");
	j->slurm.finish = opt_str(sl, "finish");
	if (read_pairs(json_object_get(sl, "builds"), &j->slurm.builds, &j->slurm.nbuilds,
		       "Slurm build jobs") ||
	    read_pairs(json_object_get(sl, "states"), &j->slurm.states, &j->slurm.nstates,
		       "Slurm states"))
		goto fail;
	return 0;
fail:
	queue_status_job_release(j); /* all or nothing */
	return -1;
}

int queue_status_from_json(const json_t *doc, struct queue_status *out)
{
	size_t i;
	json_t *o;

	memset(out, 0, sizeof(*out));
	if (!json_is_array(doc)) {
		lab_err("queue status: not an array of jobs");
		return -1;
	}
	if (json_array_size(doc) > QSTATUS_MAX_JOBS) {
		lab_err("queue status: %zu jobs (at most %d)", json_array_size(doc),
			QSTATUS_MAX_JOBS);
		return -1;
	}
	out->jobs = xcalloc(json_array_size(doc) + 1, sizeof(*out->jobs));
	json_array_foreach(doc, i, o) {
		if (queue_status_job_from_json(o, &out->jobs[out->njobs++])) {
			queue_status_release(out);
			return -1;
		}
	}
	return 0;
}

json_t *qs_doc_item(json_t *job, size_t i)
{
	return json_array_get(json_object_get(job, "items"), i);
}

void qs_doc_set_slurm_states(json_t *job, json_t *states)
{
	json_object_set_new(json_object_get(job, "slurm"), "states", states);
}
