// SPDX-License-Identifier: GPL-2.0
/*
 * run_json.c - what lab/track/ reads of a stored run, as structs (runs.h):
 * the iterations' status and numeric metrics of each variant (from the
 * run the store assembles, store_load_run()), and the setup a report
 * names (from struct run_record, store_record_read()). The only place
 * lab/track/ reads a run's keys. A run may be an imported one: counts and
 * strings are bounded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/results.h"
#include "store/run_record.h"
#include "track/runs.h"

static char *bounded_dup(const char *s)
{
	return s && strlen(s) <= TRACK_RUN_MAX_STR ? xstrdup(s) : NULL;
}

static char *bounded_str(const json_t *v)
{
	return bounded_dup(json_string_value(v));
}

static void parse_iteration(const json_t *it, struct track_iter *x)
{
	json_t *m = json_object_get(it, "metrics"), *v;
	const char *st = json_string_value(json_object_get(it, "status")), *k;
	size_t n = 0;

	x->done = st != NULL;
	x->ok = st && !strcmp(st, "ok");
	if (!json_is_object(m))
		return;
	x->names = xcalloc(json_object_size(m) + 1, sizeof(*x->names));
	x->values = xcalloc(json_object_size(m) + 1, sizeof(*x->values));
	json_object_foreach(m, k, v) {
		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    strlen(k) > TRACK_RUN_MAX_STR || n >= TRACK_RUN_MAX_METRICS)
			continue;
		x->names[n] = xstrdup(k);
		x->values[n++] = json_number_value(v);
	}
	x->nmetrics = n;
}

int track_run_from_json(const json_t *run, struct track_stored_run *r)
{
	json_t *vars = json_object_get(run, "variants"), *v, *it;
	size_t i, k;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(run))
		return -1;
	r->vars = xcalloc(json_array_size(vars) + 1, sizeof(*r->vars));
	json_array_foreach(vars, i, v) {
		json_t *its = json_object_get(v, "iterations");
		struct track_run_variant *rv;

		if (r->nvars >= TRACK_RUN_MAX_VARIANTS)
			break;
		rv = &r->vars[r->nvars++];
		rv->name = bounded_str(json_object_get(v, "name"));
		rv->its = xcalloc(json_array_size(its) + 1, sizeof(*rv->its));
		json_array_foreach(its, k, it) {
			if (rv->nits >= STORE_MAX_ITERATIONS)
				break;
			parse_iteration(it, &rv->its[rv->nits++]);
		}
	}
	r->workload = bounded_str(json_object_get(
		json_object_get(json_object_get(run, "job_resolved"), "workload"), "name"));
	return 0;
}

int track_run_load(struct store *s, const char *id, struct track_stored_run *r)
{
	json_t *j = store_load_run(s, id);
	int ret = j ? track_run_from_json(j, r) : -1;

	if (!j)
		memset(r, 0, sizeof(*r));
	json_decref(j);
	return ret;
}

void track_run_release(struct track_stored_run *r)
{
	for (size_t i = 0; i < r->nvars; i++) {
		for (size_t k = 0; k < r->vars[i].nits; k++) {
			struct track_iter *x = &r->vars[i].its[k];

			for (size_t m = 0; m < x->nmetrics; m++)
				free(x->names[m]);
			free(x->names);
			free(x->values);
		}
		free(r->vars[i].its);
		free(r->vars[i].name);
	}
	free(r->vars);
	free(r->workload);
	memset(r, 0, sizeof(*r));
}

void track_setup_from_record(const struct run_record *rec, struct track_setup *su)
{
	json_t *jr = rec->job_resolved, *nodes, *n;
	size_t i;

	memset(su, 0, sizeof(*su));
	su->has_job = json_is_object(jr);
	su->workload = bounded_str(json_object_get(json_object_get(jr, "workload"), "name"));
	nodes = json_object_get(json_object_get(jr, "topology"), "nodes");
	su->nodes = xcalloc(json_array_size(nodes) + 1, sizeof(*su->nodes));
	json_array_foreach(nodes, i, n) {
		if (su->nnodes >= TRACK_RUN_MAX_VARIANTS)
			break;
		su->nodes[su->nnodes].cpus = json_integer_value(json_object_get(n, "cpus"));
		su->nodes[su->nnodes++].memory_kib =
			json_integer_value(json_object_get(n, "memory_kib"));
	}
	su->kernels = xcalloc(rec->nvariants + 1, sizeof(*su->kernels));
	for (i = 0; i < rec->nvariants; i++) {
		su->kernels[i].variant = xstrdup(rec->variants[i].name ?: "");
		su->kernels[i].release = bounded_dup(rec->variants[i].kernel.release);
	}
	su->nkernels = rec->nvariants;
	su->accel = rec->host.accel ? xstrdup(rec->host.accel) : NULL;
	su->qemu = bounded_dup(rec->host.qemu);
}

int track_setup_load(struct store *s, const char *run, struct track_setup *su)
{
	struct run_record rec;

	memset(su, 0, sizeof(*su));
	if (store_record_read(s, run, &rec))
		return -1;
	track_setup_from_record(&rec, su);
	run_record_release(&rec);
	return 0;
}

void track_setup_release(struct track_setup *su)
{
	for (size_t i = 0; i < su->nkernels; i++) {
		free(su->kernels[i].variant);
		free(su->kernels[i].release);
	}
	free(su->kernels);
	free(su->nodes);
	free(su->workload);
	free(su->accel);
	free(su->qemu);
	memset(su, 0, sizeof(*su));
}
