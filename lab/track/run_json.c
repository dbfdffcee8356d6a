// SPDX-License-Identifier: GPL-2.0
/*
 * run_json.c - what lab/track/ reads of a stored run, as structs (runs.h):
 * the iterations' status and numeric metrics of each variant (from the
 * run the store loads, store_run_load()), and the setup a report
 * names (from struct run_record, store_record_read()). The only place
 * lab/track/ reads a run's keys. A run may be an imported one: counts and
 * strings are bounded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/run_data.h"
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

static void parse_iteration(const struct iteration_record *it, struct track_iter *x)
{
	size_t n = 0;

	x->done = it->status != NULL;
	x->ok = iteration_ok(it);
	if (!it->has_metrics)
		return;
	x->names = xcalloc(it->nmetrics + 1, sizeof(*x->names));
	x->values = xcalloc(it->nmetrics + 1, sizeof(*x->values));
	for (size_t i = 0; i < it->nmetrics; i++) {
		const struct iter_metric *m = &it->metrics[i];

		if (!isfinite(m->value) || strlen(m->name) > TRACK_RUN_MAX_STR ||
		    n >= TRACK_RUN_MAX_METRICS)
			continue;
		x->names[n] = xstrdup(m->name);
		x->values[n++] = m->value;
	}
	x->nmetrics = n;
}

void track_run_from_data(const struct run_data *run, struct track_stored_run *r)
{
	size_t nv = run->rec.nvariants;

	memset(r, 0, sizeof(*r));
	r->vars = xcalloc(nv + 1, sizeof(*r->vars));
	for (size_t i = 0; i < nv && r->nvars < TRACK_RUN_MAX_VARIANTS; i++) {
		const struct run_data_variant *dv = run->vars ? &run->vars[i] : NULL;
		struct track_run_variant *rv = &r->vars[r->nvars++];
		size_t n = dv ? dv->n : 0;

		rv->name = bounded_dup(run->rec.variants[i].name);
		rv->its = xcalloc(n + 1, sizeof(*rv->its));
		for (size_t k = 0; k < n && rv->nits < STORE_MAX_ITERATIONS; k++)
			parse_iteration(&dv->its[k], &rv->its[rv->nits++]);
	}
	r->workload = bounded_dup(run_record_workload(&run->rec));
}

int track_run_load(struct store *s, const char *id, struct track_stored_run *r)
{
	struct run_data d;
	int ret = store_run_load(s, id, &d);

	memset(r, 0, sizeof(*r));
	if (!ret)
		track_run_from_data(&d, r);
	run_data_release(&d);
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
