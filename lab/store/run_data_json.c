// SPDX-License-Identifier: GPL-2.0
/*
 * run_data_json.c - a stored run loaded whole (run_data.h) to and from
 * the document `mmlab results show --json` prints: run.json (its record,
 * run_record_json.c) with each variant's "iterations" and an imported
 * run's "imported". Iteration documents are kept as read (their record's
 * rest) and printed back unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "store/run_data.h"
#include "lib/util.h"

static char *opt_str(const json_t *o, const char *key)
{
	return xstrdup_or_null(json_string_value(json_object_get(o, key)));
}

int run_import_from_json(const json_t *j, struct run_import *imp)
{
	memset(imp, 0, sizeof(*imp));
	if (!json_is_object(j))
		return -1;
	imp->present = true;
	imp->imported = opt_str(j, "imported");
	imp->from_store = opt_str(j, "from_store");
	imp->from_host = opt_str(j, "from_host");
	imp->imported_by = opt_str(j, "imported_by");
	imp->doc = json_deep_copy(j);
	return 0;
}

int run_data_variant_from_json(const json_t *its, struct run_data_variant *v, const char *where)
{
	size_t i;
	json_t *it;

	v->n = 0;
	v->its = xcalloc(json_array_size(its) + 1, sizeof(*v->its));
	json_array_foreach(its, i, it) {
		struct iteration_record *r = &v->its[v->n];
		char *w = xasprintf("%s iteration %zu", where, i);
		int rc = 0;

		if (json_is_object(it)) {
			rc = iteration_record_from_json(it, r, w);
		} else { /* not an iteration: no status, its document kept */
			r->ts.samples = -1;
			r->rest = json_deep_copy(it);
		}
		free(w);
		if (rc) {
			iteration_records_free(v->its, v->n);
			v->its = NULL;
			v->n = 0;
			return -1;
		}
		v->n++;
	}
	return 0;
}

json_t *run_data_to_json(const struct run_data *d)
{
	json_t *out = run_record_to_json(&d->rec), *vars = json_array();

	for (size_t i = 0; i < d->rec.nvariants; i++) {
		json_t *its = json_array();

		for (size_t k = 0; d->vars && k < d->vars[i].n; k++)
			json_array_append_new(its, json_deep_copy(d->vars[i].its[k].rest));
		json_array_append_new(vars, its);
	}
	run_record_add_iterations(out, vars);
	json_decref(vars);
	if (d->import.present && d->import.doc)
		json_object_set(out, "imported", d->import.doc);
	return out;
}

static int bad_run(void)
{
	lab_err("a run without \"run\" or \"variants\"; is this the "
		"output of `mmlab results show RUN --json`?");
	return -1;
}

int run_data_from_json(const json_t *j, struct run_data *d)
{
	json_t *vars = json_object_get(j, "variants");
	const char *id = json_string_value(json_object_get(j, "run"));

	memset(d, 0, sizeof(*d));
	if (run_record_from_json(j, &d->rec))
		return -1;
	if (!id || !json_is_array(vars))
		return bad_run();
	if (d->rec.nvariants != json_array_size(vars)) {
		lab_err("run %s: a variant without \"name\" or \"iterations\"; "
			"the results file may be damaged",
			id);
		return -1;
	}
	d->vars = xcalloc(d->rec.nvariants + 1, sizeof(*d->vars));
	for (size_t i = 0; i < d->rec.nvariants; i++) {
		struct run_variant *rv = &d->rec.variants[i];
		json_t *its = json_object_get(json_array_get(vars, i), "iterations");
		char *where;
		int rc;

		if (!json_is_array(its)) {
			lab_err("run %s: a variant without \"name\" or \"iterations\"; "
				"the results file may be damaged",
				id);
			return -1;
		}
		where = xasprintf("run %s variant %s", id, rv->name);
		rc = run_data_variant_from_json(its, &d->vars[i], where);
		free(where);
		if (rc)
			return -1;
		json_object_del(rv->rest, "iterations");
	}
	json_object_del(d->rec.rest, "imported");
	run_import_from_json(json_object_get(j, "imported"), &d->import);
	return 0;
}
