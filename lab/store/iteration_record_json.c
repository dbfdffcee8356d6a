// SPDX-License-Identifier: GPL-2.0
/*
 * iteration_record_json.c - iteration.json <-> struct iteration_record
 * (iteration_record.h): the only place that reads an iteration's keys.
 * The document is untrusted (an imported run, a file given to compare):
 * every list and name is bounded (a document past a bound is refused, not
 * cut), a document that is not an object or whose index is not an
 * iteration number is refused; a value of another type than the one
 * written is left out, as the readers always left it out (a status that
 * is not a string is not "ok", metrics that are not an object are none).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/iteration_record.h"
#include "lib/util.h"

static char *opt_str(const json_t *o, const char *key)
{
	return xstrdup_or_null(json_string_value(json_object_get(o, key)));
}

static bool name_ok(const char *name, const char *what, const char *where)
{
	if (strlen(name) <= ITER_MAX_NAME)
		return true;
	lab_err("%s: a %s name of %zu bytes (at most %d)", where, what, strlen(name),
		ITER_MAX_NAME);
	return false;
}

/* the numeric metrics; other values are not samples and are left out */
static int read_metrics(struct iteration_record *r, const json_t *m, const char *where)
{
	const char *key;
	json_t *val;

	if (!json_is_object(m))
		return 0; /* has_metrics false: an ok iteration without is the reader's error */
	if (json_object_size(m) > ITER_MAX_METRICS) {
		lab_err("%s: %zu metrics (at most %d)", where, json_object_size(m),
			ITER_MAX_METRICS);
		return -1;
	}
	r->has_metrics = true;
	r->metrics = xcalloc(json_object_size(m) + 1, sizeof(*r->metrics));
	json_object_foreach((json_t *)m, key, val) {
		if (!json_is_number(val))
			continue;
		if (!name_ok(key, "metric", where))
			return -1;
		r->metrics[r->nmetrics].name = xstrdup(key);
		r->metrics[r->nmetrics].integer = json_is_integer(val);
		r->metrics[r->nmetrics].ivalue = json_integer_value(val);
		r->metrics[r->nmetrics++].value = json_number_value(val);
	}
	return 0;
}

static int read_series(struct iter_timeseries *ts, const json_t *series, size_t *points,
		       const char *where)
{
	const char *key;
	json_t *a;

	if (json_object_size(series) > ITER_MAX_SERIES) {
		lab_err("%s: %zu time series (at most %d)", where, json_object_size(series),
			ITER_MAX_SERIES);
		return -1;
	}
	ts->series = xcalloc(json_object_size(series) + 1, sizeof(*ts->series));
	json_object_foreach((json_t *)series, key, a) {
		struct iter_series *s;
		size_t k;
		json_t *x;

		if (!json_is_array(a))
			continue; /* "interval_s" of a series object stored alone */
		if (!name_ok(key, "series", where))
			return -1;
		*points += json_array_size(a);
		if (*points > ITER_MAX_POINTS) {
			lab_err("%s: more than %d time series samples", where, ITER_MAX_POINTS);
			return -1;
		}
		s = &ts->series[ts->nseries++];
		s->name = xstrdup(key);
		s->n = json_array_size(a);
		s->v = xcalloc(s->n + 1, sizeof(*s->v));
		json_array_foreach(a, k, x)
			s->v[k] = json_is_number(x) ? json_number_value(x) : NAN;
	}
	return 0;
}

static int read_timeseries(struct iter_timeseries *ts, const json_t *t, const char *where)
{
	const json_t *series = json_object_get(t, "series");
	const json_t *iv = json_object_get(t, "interval_s");
	const json_t *samples = json_object_get(t, "samples");
	size_t points = 0;

	ts->samples = -1;
	if (!json_is_object(t))
		return 0; /* no series, as readers always took it */
	ts->present = true;
	if (json_is_number(iv) && json_number_value(iv) > 0)
		ts->interval_s = json_number_value(iv);
	if (json_is_integer(samples) && json_integer_value(samples) >= 0)
		ts->samples = json_integer_value(samples);
	return read_series(ts, json_is_object(series) ? series : t, &points, where);
}

static int read_guest(struct iteration_record *r, const json_t *g, const char *where)
{
	const json_t *nodes = json_object_get(g, "nodes");
	size_t i;
	json_t *n;

	r->kernel_release = opt_str(g, "kernel_release");
	if (!json_is_array(nodes))
		return 0;
	if (json_array_size(nodes) > ITER_MAX_NODES) {
		lab_err("%s: %zu guest nodes (at most %d)", where, json_array_size(nodes),
			ITER_MAX_NODES);
		return -1;
	}
	r->nodes = xcalloc(json_array_size(nodes) + 1, sizeof(*r->nodes));
	json_array_foreach(nodes, i, n) {
		struct iter_node *d = &r->nodes[r->nnodes++];

		d->id = json_integer_value(json_object_get(n, "id"));
		d->cpus = opt_str(n, "cpus");
		d->memory_kb = json_integer_value(json_object_get(n, "memory_kb"));
		if (d->cpus && !name_ok(d->cpus, "node CPU list", where))
			return -1;
	}
	return 0;
}

static int read_phases(struct iteration_record *r, const json_t *ph, const char *where)
{
	const char *key;
	json_t *x;

	if (!json_is_object(ph))
		return 0;
	if (json_object_size(ph) > ITER_MAX_PHASES) {
		lab_err("%s: %zu boot phases (at most %d)", where, json_object_size(ph),
			ITER_MAX_PHASES);
		return -1;
	}
	r->phases = xcalloc(json_object_size(ph) + 1, sizeof(*r->phases));
	json_object_foreach((json_t *)ph, key, x) {
		if (!json_is_number(x))
			continue;
		if (!name_ok(key, "phase", where))
			return -1;
		r->phases[r->nphases].name = xstrdup(key);
		r->phases[r->nphases++].s = json_number_value(x);
	}
	return 0;
}

int iteration_record_from_json(const json_t *j, struct iteration_record *rec, const char *where)
{
	const json_t *idx = json_object_get(j, "index");
	const json_t *mm = json_object_get(j, "mmtests");

	memset(rec, 0, sizeof(*rec));
	rec->ts.samples = -1;
	if (!json_is_object(j)) {
		lab_err("%s: an iteration that is not a JSON object; "
			"check the run with `mmlab results show`",
			where);
		return -1;
	}
	if (idx && (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
		    json_integer_value(idx) > 1000000)) {
		lab_err("%s: \"index\" is not an iteration number", where);
		return -1;
	}
	rec->rest = json_deep_copy(j);
	rec->index = (unsigned int)json_integer_value(idx);
	rec->status = opt_str(j, "status");
	rec->reason = opt_str(j, "reason");
	rec->console_excerpt = opt_str(j, "console_excerpt");
	rec->mmtests = json_is_object(mm) ? json_object_get(rec->rest, "mmtests") : NULL;
	if (read_metrics(rec, json_object_get(j, "metrics"), where) ||
	    read_timeseries(&rec->ts, json_object_get(j, "timeseries"), where) ||
	    read_guest(rec, json_object_get(j, "guest"), where) ||
	    read_phases(rec, json_object_get(json_object_get(j, "boot"), "phases"), where)) {
		iteration_record_release(rec);
		return -1;
	}
	return 0;
}

bool iteration_json_has_result(const json_t *j)
{
	return json_is_object(j) && json_is_string(json_object_get(j, "status")) &&
	       json_is_object(json_object_get(j, "metrics"));
}

int iteration_records_from_json(const json_t *its, struct iteration_record **recs, size_t *n,
				const char *where)
{
	size_t i;
	json_t *it;

	*n = 0;
	*recs = xcalloc(json_array_size(its) + 1, sizeof(**recs));
	json_array_foreach(its, i, it) {
		char *w = xasprintf("%s iteration %zu", where, i);
		int rc = 0;

		if (json_is_object(it))
			rc = iteration_record_from_json(it, &(*recs)[*n], w);
		else
			(*recs)[*n].ts.samples = -1;
		free(w);
		if (rc) {
			iteration_records_free(*recs, *n);
			*recs = NULL;
			*n = 0;
			return -1;
		}
		(*n)++;
	}
	return 0;
}

/* an integral value as JSON's integer, as the guest stream wrote it */
static json_t *number(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *timeseries_json(const struct iter_timeseries *ts)
{
	json_t *series = json_object(), *o = json_object();

	for (size_t i = 0; i < ts->nseries; i++) {
		json_t *a = json_array();

		for (size_t k = 0; k < ts->series[i].n; k++)
			json_array_append_new(a, number(ts->series[i].v[k]));
		json_object_set_new(series, ts->series[i].name, a);
	}
	if (ts->interval_s > 0)
		json_object_set_new(o, "interval_s", number(ts->interval_s));
	if (ts->samples >= 0)
		json_object_set_new(o, "samples", json_integer(ts->samples));
	json_object_set_new(o, "series", series);
	return o;
}

static void set_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
	else
		json_object_del(o, key);
}

/* "guest" and "boot"."phases" of rec into j */
static void guest_boot_json(const struct iteration_record *rec, json_t *j)
{
	json_t *guest = json_object_get(j, "guest"), *boot = json_object_get(j, "boot");

	if (rec->kernel_release || rec->nnodes) {
		if (!json_is_object(guest))
			json_object_set_new(j, "guest", guest = json_object());
		set_str(guest, "kernel_release", rec->kernel_release);
	}
	if (rec->nnodes) {
		json_t *nodes = json_array();

		for (size_t i = 0; i < rec->nnodes; i++) {
			json_t *n = json_pack("{s:I, s:I}", "id", (json_int_t)rec->nodes[i].id,
					      "memory_kb", (json_int_t)rec->nodes[i].memory_kb);

			set_str(n, "cpus", rec->nodes[i].cpus);
			json_array_append_new(nodes, n);
		}
		json_object_set_new(guest, "nodes", nodes);
	}
	if (rec->nphases) {
		json_t *ph = json_object();

		for (size_t i = 0; i < rec->nphases; i++)
			json_object_set_new(ph, rec->phases[i].name, number(rec->phases[i].s));
		if (!json_is_object(boot))
			json_object_set_new(j, "boot", boot = json_object());
		json_object_set_new(boot, "phases", ph);
	}
}

json_t *iteration_record_to_json(const struct iteration_record *rec)
{
	json_t *j = json_is_object(rec->rest) ? json_deep_copy(rec->rest) : json_object();
	json_t *m = json_object();

	json_object_set_new(j, "index", json_integer(rec->index));
	if (rec->status) /* else what was read stays */
		set_str(j, "status", rec->status);
	set_str(j, "reason", rec->reason);
	set_str(j, "console_excerpt", rec->console_excerpt);
	for (size_t i = 0; i < rec->nmetrics; i++)
		json_object_set_new(m, rec->metrics[i].name,
				    rec->metrics[i].integer ? json_integer(rec->metrics[i].ivalue) :
							      json_real(rec->metrics[i].value));
	if (rec->has_metrics || rec->nmetrics)
		json_object_set_new(j, "metrics", m);
	else
		json_decref(m);
	if (rec->ts.present)
		json_object_set_new(j, "timeseries", timeseries_json(&rec->ts));
	else
		json_object_del(j, "timeseries");
	guest_boot_json(rec, j);
	return j;
}
