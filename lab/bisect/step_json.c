// SPDX-License-Identifier: GPL-2.0
/*
 * step_json.c - the keys a bisect step reads of the results store's
 * records beyond their typed fields, a step's data and a step's row; see
 * step_json.h.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/step_json.h"
#include "store/run_record.h"
#include "lib/util.h"

bool step_kernel_built(const struct run_kernel *k)
{
	return json_is_false(json_object_get(k->rest, "cache_hit"));
}

#define MAX_ITERATIONS 1000000u /* values and statuses of one step */
#define MAX_RUNS 100000u

static int str_list(const json_t *a, size_t max, struct strlist *out)
{
	const json_t *v;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > max)
		return -1;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return -1;
		strlist_push(out, json_string_value(v));
	}
	return 0;
}

static int num_list(const json_t *a, struct step_data *d)
{
	const json_t *v;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > MAX_ITERATIONS)
		return -1;
	d->values = xcalloc(json_array_size(a) + 1, sizeof(*d->values));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v))
			return -1;
		d->values[d->nvalues++] = json_number_value(v);
	}
	return 0;
}

/* a count (absent: 0); *bad when it is not one */
static unsigned int count(const json_t *o, const char *key, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
		*bad = true;
	return json_is_integer(v) ? (unsigned int)json_integer_value(v) : 0;
}

static char *opt_str(const json_t *o, const char *key, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (v && !json_is_string(v) && !json_is_null(v))
		*bad = true;
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static double opt_num(const json_t *o, const char *key, bool *has, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (v && !json_is_number(v) && !json_is_null(v))
		*bad = true;
	if (has)
		*has = json_is_number(v);
	return json_number_value(v);
}

int step_data_from_json(const json_t *data, struct step_data *d)
{
	const json_t *bf = json_object_get(data, "build_failed");
	bool bad = !json_is_object(data) && !json_is_null(data);

	memset(d, 0, sizeof(*d));
	if (bad)
		return -1;
	d->met = count(data, "met", &bad);
	d->not_met = count(data, "not_met", &bad);
	d->unknown = count(data, "unknown", &bad);
	d->missing = count(data, "missing", &bad);
	d->builds = count(data, "builds", &bad);
	d->vm_runs = count(data, "vm_runs", &bad);
	d->build_failed = json_is_true(bf);
	d->build_log = opt_str(data, "build_log", &bad);
	d->wall_s = opt_num(data, "wall_s", NULL, &bad);
	d->verdict = opt_str(data, "verdict", &bad);
	d->why = opt_str(data, "why", &bad);
	d->p_wrong = opt_num(data, "p_wrong", &d->has_p_wrong, &bad);
	d->has_runs = json_object_get(data, "runs") != NULL;
	if (bad || (bf && !json_is_boolean(bf)) ||
	    str_list(json_object_get(data, "runs"), MAX_RUNS, &d->runs) ||
	    str_list(json_object_get(data, "statuses"), MAX_ITERATIONS, &d->statuses) ||
	    num_list(json_object_get(data, "values"), d)) {
		step_data_release(d);
		return -1;
	}
	return 0;
}

static json_t *strlist_json(const struct strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

static void put_count(json_t *o, const char *key, unsigned int v)
{
	if (v)
		json_object_set_new(o, key, json_integer(v));
}

json_t *step_runs_json(const struct step_data *d)
{
	return d->has_runs ? strlist_json(&d->runs) : NULL;
}

json_t *step_data_to_json(const struct step_data *d)
{
	json_t *o = json_object(), *values = json_array();

	for (size_t i = 0; i < d->nvalues; i++)
		json_array_append_new(values, json_real(d->values[i]));
	if (d->has_runs)
		json_object_set_new(o, "runs", strlist_json(&d->runs));
	json_object_set_new(o, "statuses", strlist_json(&d->statuses));
	json_object_set_new(o, "values", values);
	put_count(o, "met", d->met);
	put_count(o, "not_met", d->not_met);
	put_count(o, "unknown", d->unknown);
	put_count(o, "missing", d->missing);
	put_count(o, "builds", d->builds);
	put_count(o, "vm_runs", d->vm_runs);
	if (d->build_failed)
		json_object_set_new(o, "build_failed", json_true());
	if (d->build_log)
		json_object_set_new(o, "build_log", json_string(d->build_log));
	json_object_set_new(o, "wall_s", json_real(d->wall_s));
	if (d->verdict)
		json_object_set_new(o, "verdict", json_string(d->verdict));
	if (d->why)
		json_object_set_new(o, "why", json_string(d->why));
	if (d->has_p_wrong)
		json_object_set_new(o, "p_wrong", json_real(d->p_wrong));
	return o;
}

void step_row_from_json(const json_t *row, struct step_row *r)
{
	*r = (struct step_row){
		.commit = json_string_value(json_object_get(row, "commit")),
		.role = json_string_value(json_object_get(row, "role")),
		.state = json_string_value(json_object_get(row, "state")),
		.data = json_object_get(row, "data"),
		.started = json_number_value(json_object_get(row, "started")),
		.finished = json_number_value(json_object_get(row, "finished")),
	};
}
