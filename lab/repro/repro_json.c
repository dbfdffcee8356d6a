// SPDX-License-Identifier: GPL-2.0
/*
 * repro_json.c - the JSON of repro (docs/repro.md, RESULTS) to and from
 * the typed records of repro.h: the run judged (the shape of "mmlab
 * results show --json", iteration.json), and the verdict stored in
 * run.json ("recipe", "repro") and printed by --json. A stored verdict is
 * a file of the results store, which a user may have edited or imported:
 * every array is bounded and every field checked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro/repro_json.h"
#include "repro/recipe.h"
#include "repro/verdict.h"
#include "store/run_record.h"
#include "lib/util.h"

#define MAX_VARIANTS 1024 /* variants of a stored verdict */
#define MAX_ROWS 100000 /* runs of one variant */
#define MAX_LINES 64 /* console lines of one cell */
#define MAX_NOTES 64

static const char *const outcome_names[] = {
	[REPRO_MET] = "met",
	[REPRO_NOT_MET] = "not met",
	[REPRO_UNKNOWN] = "unknown",
};

static int verdict_index(const json_t *j)
{
	const char *s = json_string_value(j);

	for (int v = REPRO_REPRODUCED; s && v <= REPRO_INCONCLUSIVE; v++)
		if (!strcmp(s, repro_verdict_name((enum repro_verdict)v)))
			return v;
	return -1;
}

static int name_index(const char *const *names, size_t n, const json_t *j)
{
	const char *s = json_string_value(j);

	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

static char *dup_or_null(const json_t *j)
{
	const char *s = json_string_value(j);

	return s ? xstrdup(s) : NULL;
}

/* ---- the run judged ---- */

unsigned int repro_job_iterations(const json_t *job_resolved)
{
	json_int_t n = json_integer_value(json_object_get(job_resolved, "iterations"));

	return n > 0 && n <= UINT32_MAX ? (unsigned int)n : 0;
}

const char *repro_kernel_release(const struct run_kernel *k)
{
	return k->release;
}

int repro_iter_from_json(const json_t *j, long long index, struct repro_iter *it)
{
	const json_t *idx = json_object_get(j, "index"), *m = json_object_get(j, "metrics");

	memset(it, 0, sizeof(*it));
	if (!json_is_object(j))
		return -1;
	it->index = json_is_integer(idx) ? json_integer_value(idx) : index;
	it->status = dup_or_null(json_object_get(j, "status"));
	it->metrics = json_is_object(m) ? json_incref((json_t *)m) : NULL;
	return 0;
}

static void variant_from_json(const json_t *v, struct repro_run_variant *out)
{
	const json_t *its = json_object_get(v, "iterations"), *it;
	size_t i;

	out->name = xstrdup(json_string_value(json_object_get(v, "name")));
	out->kernel = dup_or_null(json_object_get(json_object_get(v, "kernel"), "release"));
	out->iters = xcalloc(json_array_size(its) + 1, sizeof(*out->iters));
	json_array_foreach(its, i, it) {
		if (!repro_iter_from_json(it, 0, &out->iters[out->niters]))
			out->niters++;
	}
}

int repro_run_from_json(const json_t *run, struct repro_run *out)
{
	const json_t *vars = json_object_get(run, "variants"), *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(run))
		return -1;
	out->run = dup_or_null(json_object_get(run, "run"));
	out->iterations = repro_job_iterations(json_object_get(run, "job_resolved"));
	out->variants = xcalloc(json_array_size(vars) + 1, sizeof(*out->variants));
	json_array_foreach(vars, i, v) {
		if (json_string_value(json_object_get(v, "name")))
			variant_from_json(v, &out->variants[out->nvariants++]);
	}
	return 0;
}

/* ---- the verdict, written ---- */

static json_t *cell_json(const struct repro_cell *c)
{
	json_t *o = json_object();

	if (c->has_value)
		json_object_set_new(o, "value", json_real(c->value));
	if (c->why)
		json_object_set_new(o, "why", json_string(c->why));
	if (c->has_lines) {
		json_t *lines = json_array();

		for (size_t i = 0; i < c->lines.n; i++)
			json_array_append_new(lines, json_string(c->lines.v[i]));
		json_object_set_new(o, "lines", lines);
	}
	json_object_set_new(o, "outcome", json_string(outcome_names[c->outcome]));
	return o;
}

static json_t *variant_json(const struct repro_variant *v)
{
	json_t *ex = json_array(), *rows = json_array();

	for (size_t j = 0; j < v->nexpect; j++) {
		const struct repro_expect_row *e = &v->expect[j];

		json_array_append_new(ex, json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:s}", "index",
						    (int)e->index, "describe", e->describe, "k",
						    (int)e->k, "met", (int)e->met, "not_met",
						    (int)e->not_met, "unknown", (int)e->unknown,
						    "verdict", repro_verdict_name(e->verdict)));
	}
	for (size_t i = 0; i < v->nrows; i++) {
		json_t *cells = json_array();

		for (size_t j = 0; j < v->rows[i].ncells; j++)
			json_array_append_new(cells, cell_json(&v->rows[i].cells[j]));
		json_array_append_new(rows, json_pack("{s:I, s:s, s:o}", "index",
						      (json_int_t)v->rows[i].index, "status",
						      v->rows[i].status, "results", cells));
	}
	return json_pack("{s:s, s:s?, s:s, s:i, s:s, s:o, s:o}", "name", v->name, "kernel",
			 v->kernel, "role", v->good ? "good" : "test", "runs", (int)v->runs,
			 "verdict", repro_verdict_name(v->verdict), "expect", ex, "runs_table",
			 rows);
}

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *comparison_json(const struct repro_comparison *c)
{
	json_t *o;

	if (c->welch)
		o = json_pack("{s:s, s:{s:i, s:o, s:o}, s:s}", "test", "welch", "bad", "n",
			      (int)c->n, "mean", num_or_null(c->mean), "stddev",
			      num_or_null(c->stddev), "good", c->good);
	else
		o = json_pack("{s:s, s:{s:i, s:i}, s:s, s:b}", "test", "fisher", "bad", "met",
			      (int)c->met, "not_met", (int)c->not_met, "good", c->good,
			      "significant", c->significant);
	if (c->has_p)
		json_object_set_new(o, "p", json_real(c->p));
	if (c->has_rel)
		json_object_set_new(o, "rel", json_real(c->rel));
	if (c->welch)
		json_object_set_new(o, "significant", json_boolean(c->significant));
	if (c->why)
		json_object_set_new(o, "why", json_string(c->why));
	json_object_set_new(o, "variant", c->variant ? json_string(c->variant) : json_null());
	json_object_set_new(o, "expect", json_integer((json_int_t)c->expect));
	json_object_set_new(o, "describe", json_string(c->describe));
	return o;
}

json_t *repro_eval_to_json(const struct repro_eval *ev)
{
	json_t *vars = json_array(), *cmp = json_array(), *notes = json_array();

	for (size_t i = 0; i < ev->notes.n; i++)
		json_array_append_new(notes, json_string(ev->notes.v[i]));
	for (size_t i = 0; i < ev->nvariants; i++)
		json_array_append_new(vars, variant_json(&ev->variants[i]));
	for (size_t i = 0; i < ev->ncmp; i++)
		json_array_append_new(cmp, comparison_json(&ev->cmp[i]));
	return json_pack("{s:s, s:i, s:s?, s:o, s:o, s:o}", "verdict",
			 repro_verdict_name(ev->verdict), "exit", repro_verdict_exit(ev->verdict),
			 "run", ev->run, "notes", notes, "variants", vars, "comparisons", cmp);
}

json_t *repro_report_to_json(const struct repro_report *rep)
{
	return json_pack("{s:s?, s:O, s:o}", "run", rep->run, "recipe", rep->recipe, "repro",
			 repro_eval_to_json(&rep->eval));
}

/* ---- the verdict, read back ---- */

/* a count of 0..UINT32_MAX at key of o; -1 when it is something else */
static int get_uint(const json_t *o, const char *key, unsigned int *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
		return -1;
	*out = (unsigned int)json_integer_value(v);
	return 0;
}

static int cell_from_json(const json_t *j, struct repro_cell *c)
{
	const json_t *val = json_object_get(j, "value"), *lines = json_object_get(j, "lines");
	const json_t *why = json_object_get(j, "why"), *l;
	int o = name_index(outcome_names, 3, json_object_get(j, "outcome"));
	size_t i;

	if (o < 0 || (val && !json_is_number(val)) || (why && !json_is_string(why)) ||
	    (lines && (!json_is_array(lines) || json_array_size(lines) > MAX_LINES)))
		return -1;
	c->outcome = (enum repro_outcome)o;
	c->has_value = val != NULL;
	c->value = json_number_value(val);
	c->why = dup_or_null(why);
	c->has_lines = lines != NULL;
	json_array_foreach(lines, i, l) {
		if (!json_is_string(l))
			return -1;
		strlist_push(&c->lines, json_string_value(l));
	}
	return 0;
}

static int row_from_json(const json_t *j, size_t nexpect, struct repro_row *row)
{
	const json_t *cells = json_object_get(j, "results"), *c;
	size_t i;

	if (!json_is_integer(json_object_get(j, "index")) ||
	    !json_is_string(json_object_get(j, "status")) || !json_is_array(cells) ||
	    json_array_size(cells) > nexpect)
		return -1;
	row->index = json_integer_value(json_object_get(j, "index"));
	row->status = dup_or_null(json_object_get(j, "status"));
	row->cells = xcalloc(json_array_size(cells) + 1, sizeof(*row->cells));
	json_array_foreach(cells, i, c) {
		if (cell_from_json(c, &row->cells[row->ncells++]))
			return -1;
	}
	return 0;
}

static int expect_from_json(const json_t *j, struct repro_expect_row *e)
{
	int v = verdict_index(json_object_get(j, "verdict"));

	if (v < 0 || !json_is_string(json_object_get(j, "describe")) ||
	    get_uint(j, "index", &e->index) || get_uint(j, "k", &e->k) ||
	    get_uint(j, "met", &e->met) || get_uint(j, "not_met", &e->not_met) ||
	    get_uint(j, "unknown", &e->unknown))
		return -1;
	e->describe = dup_or_null(json_object_get(j, "describe"));
	e->verdict = (enum repro_verdict)v;
	return 0;
}

static int variant_eval_from_json(const json_t *j, struct repro_variant *v)
{
	const json_t *ex = json_object_get(j, "expect"), *rows = json_object_get(j, "runs_table");
	const json_t *kernel = json_object_get(j, "kernel"), *o;
	int verdict = verdict_index(json_object_get(j, "verdict"));
	const char *role = json_string_value(json_object_get(j, "role"));
	size_t i;

	if (verdict < 0 || !role || !json_is_string(json_object_get(j, "name")) ||
	    (kernel && !json_is_string(kernel) && !json_is_null(kernel)) ||
	    get_uint(j, "runs", &v->runs) || !json_is_array(ex) ||
	    json_array_size(ex) > RECIPE_MAX_EXPECT || !json_is_array(rows) ||
	    json_array_size(rows) > MAX_ROWS)
		return -1;
	v->name = dup_or_null(json_object_get(j, "name"));
	v->kernel = dup_or_null(kernel);
	v->good = !strcmp(role, "good");
	v->verdict = (enum repro_verdict)verdict;
	v->expect = xcalloc(json_array_size(ex) + 1, sizeof(*v->expect));
	json_array_foreach(ex, i, o) {
		if (expect_from_json(o, &v->expect[v->nexpect++]))
			return -1;
	}
	v->rows = xcalloc(json_array_size(rows) + 1, sizeof(*v->rows));
	json_array_foreach(rows, i, o) {
		if (row_from_json(o, v->nexpect, &v->rows[v->nrows++]))
			return -1;
	}
	return 0;
}

/* a number, or NaN for null (a statistic with no value) */
static int get_num(const json_t *o, const char *key, double *out)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static int comparison_from_json(const json_t *j, struct repro_comparison *c)
{
	const char *test = json_string_value(json_object_get(j, "test"));
	const json_t *bad = json_object_get(j, "bad"), *p = json_object_get(j, "p");
	const json_t *rel = json_object_get(j, "rel"), *why = json_object_get(j, "why");
	const json_t *var = json_object_get(j, "variant");

	c->mean = c->stddev = NAN;
	if (!test || (strcmp(test, "welch") && strcmp(test, "fisher")) || !json_is_object(bad) ||
	    !json_is_string(json_object_get(j, "good")) ||
	    !json_is_string(json_object_get(j, "describe")) ||
	    (var && !json_is_string(var) && !json_is_null(var)) ||
	    get_uint(j, "expect", &c->expect) || (p && !json_is_number(p)) ||
	    (rel && !json_is_number(rel)) || (why && !json_is_string(why)) ||
	    !json_is_boolean(json_object_get(j, "significant")))
		return -1;
	c->welch = !strcmp(test, "welch");
	if (c->welch ? get_uint(bad, "n", &c->n) || get_num(bad, "mean", &c->mean) ||
			       get_num(bad, "stddev", &c->stddev) :
		       get_uint(bad, "met", &c->met) || get_uint(bad, "not_met", &c->not_met))
		return -1;
	c->variant = dup_or_null(var);
	c->good = dup_or_null(json_object_get(j, "good"));
	c->describe = dup_or_null(json_object_get(j, "describe"));
	c->has_p = p != NULL;
	c->p = json_number_value(p);
	c->has_rel = rel != NULL;
	c->rel = json_number_value(rel);
	c->significant = json_is_true(json_object_get(j, "significant"));
	c->why = dup_or_null(why);
	return 0;
}

static int eval_parts_from_json(const json_t *j, struct repro_eval *ev)
{
	const json_t *notes = json_object_get(j, "notes"), *vars = json_object_get(j, "variants");
	const json_t *cmp = json_object_get(j, "comparisons"), *o;
	size_t i;

	if (!json_is_array(notes) || json_array_size(notes) > MAX_NOTES || !json_is_array(vars) ||
	    json_array_size(vars) > MAX_VARIANTS || !json_is_array(cmp) ||
	    json_array_size(cmp) > MAX_VARIANTS * RECIPE_MAX_EXPECT)
		return -1;
	json_array_foreach(notes, i, o) {
		if (!json_is_string(o))
			return -1;
		strlist_push(&ev->notes, json_string_value(o));
	}
	ev->variants = xcalloc(json_array_size(vars) + 1, sizeof(*ev->variants));
	json_array_foreach(vars, i, o) {
		if (variant_eval_from_json(o, &ev->variants[ev->nvariants++]))
			return -1;
	}
	ev->cmp = xcalloc(json_array_size(cmp) + 1, sizeof(*ev->cmp));
	json_array_foreach(cmp, i, o) {
		if (comparison_from_json(o, &ev->cmp[ev->ncmp++]))
			return -1;
	}
	return 0;
}

int repro_eval_from_json(const json_t *j, struct repro_eval *ev)
{
	int v = verdict_index(json_object_get(j, "verdict"));
	const json_t *run = json_object_get(j, "run");

	memset(ev, 0, sizeof(*ev));
	if (v < 0 || (run && !json_is_string(run) && !json_is_null(run)) ||
	    !json_is_integer(json_object_get(j, "exit")) ||
	    json_integer_value(json_object_get(j, "exit")) !=
		    repro_verdict_exit((enum repro_verdict)v))
		return -1;
	ev->verdict = (enum repro_verdict)v;
	ev->run = dup_or_null(run);
	if (eval_parts_from_json(j, ev)) {
		repro_eval_release(ev);
		return -1;
	}
	return 0;
}

/* the bug of a recipe's document, for the text (repro_print()) */
static void recipe_info_from_json(const json_t *recipe, struct repro_recipe_info *in)
{
	const json_t *bug = json_object_get(recipe, "bug");

	in->file = dup_or_null(json_object_get(recipe, "file"));
	in->bug_id = dup_or_null(json_object_get(bug, "id"));
	in->bug_title = dup_or_null(json_object_get(bug, "title"));
	in->bug_url = dup_or_null(json_object_get(bug, "url"));
}

int repro_report_from_record(const struct run_record *rec, struct repro_report *rep)
{
	const json_t *recipe = rec->recipe;
	const json_t *eval = rec->repro;
	const json_t *bug = json_object_get(recipe, "bug");

	memset(rep, 0, sizeof(*rep));
	if (!recipe || !eval)
		return 1;
	if (!json_is_object(recipe) || !json_is_object(bug) ||
	    !json_is_string(json_object_get(bug, "id")) ||
	    !json_is_string(json_object_get(bug, "title")) ||
	    repro_eval_from_json(eval, &rep->eval))
		return -1;
	rep->run = rec->run ? xstrdup(rec->run) : NULL;
	rep->recipe = json_incref((json_t *)recipe);
	recipe_info_from_json(recipe, &rep->info);
	return 0;
}

json_t *repro_entries_json(const struct repro_entries *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++) {
		const struct repro_entry *e = &l->v[i];
		json_t *o = json_pack("{s:s, s:s}", "name", e->name, "file", e->file);

		if (e->runnable) {
			json_object_set_new(o, "bug", json_string(e->bug));
			json_object_set_new(o, "title", json_string(e->title));
			json_object_set_new(o, "workload", json_string(e->workload));
			json_object_set_new(o, "runnable", json_true());
		} else {
			json_object_set_new(o, "runnable", json_false());
			json_object_set_new(o, "why", json_string(e->why));
		}
		json_array_append_new(a, o);
	}
	return a;
}
