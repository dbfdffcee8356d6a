// SPDX-License-Identifier: GPL-2.0
/*
 * state_json.c - state.json to struct track_state and back (state.h). The
 * only place lab/track/ reads the state's keys. The file is untrusted (a
 * user may edit it, a disk may damage it): its size, its lists and its
 * strings are bounded and every field's type is checked; a state that is
 * not one is refused with what is wrong, never half-read.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "track/state.h"
#include "track/track.h"

/* where a parse stands: the first error wins */
struct pctx {
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void perr(struct pctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

/* a string member (a copy, or NULL when absent and not required) */
static char *get_str(struct pctx *c, const json_t *o, const char *key, bool required)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			perr(c, "\"%s\" is missing", key);
		return NULL;
	}
	if (!json_is_string(v) || json_string_length(v) > TRACK_STATE_MAX_STR) {
		perr(c, "\"%s\" is not a string of at most %u bytes", key, TRACK_STATE_MAX_STR);
		return NULL;
	}
	return xstrdup(json_string_value(v));
}

/* a number member; NAN when absent */
static double get_real(struct pctx *c, const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		perr(c, "\"%s\" is not a number", key);
		return NAN;
	}
	return json_number_value(v);
}

/* an integer member; 0 when absent */
static json_int_t get_int(struct pctx *c, const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_integer(v))
		perr(c, "\"%s\" is not an integer", key);
	return json_integer_value(v);
}

/* a boolean member; false when absent */
static bool get_bool(struct pctx *c, const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_boolean(v))
		perr(c, "\"%s\" is not true or false", key);
	return json_is_true(v);
}

/* a container member of type want (JSON_OBJECT or JSON_ARRAY), NULL when absent */
static json_t *get_cont(struct pctx *c, const json_t *o, const char *key, json_type want)
{
	json_t *v = json_object_get(o, key);
	size_t n;

	if (!v)
		return NULL;
	if (json_typeof(v) != want) {
		perr(c, "\"%s\" is not an %s", key, want == JSON_OBJECT ? "object" : "array");
		return NULL;
	}
	n = want == JSON_OBJECT ? json_object_size(v) : json_array_size(v);
	if (n > TRACK_STATE_MAX_ITEMS) {
		perr(c, "\"%s\" has %zu entries, more than %u", key, n, TRACK_STATE_MAX_ITEMS);
		return NULL;
	}
	return v;
}

static bool want_object(struct pctx *c, const json_t *v, const char *what)
{
	if (!json_is_object(v))
		perr(c, "%s is not an object", what);
	return !c->failed;
}

static bool key_ok(struct pctx *c, const char *key)
{
	if (strlen(key) > TRACK_STATE_MAX_STR)
		perr(c, "a key is longer than %u bytes", TRACK_STATE_MAX_STR);
	return !c->failed;
}

/* the members of o whose keys are not in known (a new reference) */
static json_t *rest_of(const json_t *o, const char *const *known)
{
	json_t *rest = json_object(), *v;
	const char *k;

	json_object_foreach((json_t *)o, k, v) {
		size_t i;

		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i])
			json_object_set(rest, k, v);
	}
	return rest;
}

struct track_point *track_state_point(struct track_state *st, const char *id)
{
	for (size_t i = 0; i < st->npoints; i++)
		if (st->points[i].id && !strcmp(st->points[i].id, id))
			return &st->points[i];
	return NULL;
}

struct track_slot *track_point_slot(struct track_point *pt, const char *job)
{
	for (size_t i = 0; pt && i < pt->nslots; i++)
		if (!strcmp(pt->slots[i].job, job))
			return &pt->slots[i];
	return NULL;
}

struct track_slot *track_point_slot_add(struct track_point *pt, const char *job)
{
	struct track_slot *s = track_point_slot(pt, job);

	pt->in_runs = true;
	if (s)
		return s;
	pt->slots = xrealloc(pt->slots, (pt->nslots + 1) * sizeof(*pt->slots));
	s = &pt->slots[pt->nslots++];
	memset(s, 0, sizeof(*s));
	s->job = xstrdup(job);
	return s;
}

struct track_confirmation *track_state_confirm(struct track_state *st, const char *key)
{
	for (size_t i = 0; i < st->nconfirm; i++)
		if (!strcmp(st->confirm[i].key, key))
			return &st->confirm[i];
	return NULL;
}

struct track_confirmation *track_state_confirm_add(struct track_state *st, const char *key)
{
	struct track_confirmation *e = track_state_confirm(st, key);

	st->has_confirm = true;
	if (e)
		return e;
	st->confirm = xrealloc(st->confirm, (st->nconfirm + 1) * sizeof(*st->confirm));
	e = &st->confirm[st->nconfirm++];
	memset(e, 0, sizeof(*e));
	e->key = xstrdup(key);
	return e;
}

struct track_bisection *track_state_bisect(struct track_state *st, const char *key)
{
	for (size_t i = 0; i < st->nbisect; i++)
		if (!strcmp(st->bisect[i].key, key))
			return &st->bisect[i];
	return NULL;
}

struct track_bisection *track_state_bisect_add(struct track_state *st, const char *key)
{
	struct track_bisection *b = track_state_bisect(st, key);

	st->has_bisect = true;
	if (b)
		return b;
	st->bisect = xrealloc(st->bisect, (st->nbisect + 1) * sizeof(*st->bisect));
	b = &st->bisect[st->nbisect++];
	memset(b, 0, sizeof(*b));
	b->key = xstrdup(key);
	return b;
}

void track_tests_release(struct track_test *tests, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(tests[i].metric);
		free(tests[i].why);
	}
	free(tests);
}

void track_analysis_release(struct track_analysis *a)
{
	for (size_t i = 0; i < a->ncands; i++) {
		free(a->cands[i].job);
		free(a->cands[i].metric);
		free(a->cands[i].before);
		free(a->cands[i].after);
	}
	free(a->cands);
	free(a->when);
	free(a->method);
	memset(a, 0, sizeof(*a));
}

static void point_release(struct track_point *p)
{
	for (size_t k = 0; k < p->nslots; k++) {
		free(p->slots[k].job);
		free(p->slots[k].run);
		free(p->slots[k].job_file);
		free(p->slots[k].status);
	}
	free(p->slots);
	free(p->id);
	free(p->label);
	free(p->commit);
	free(p->subject);
	free(p->added);
	json_decref(p->set);
}

void track_state_release(struct track_state *st)
{
	for (size_t i = 0; i < st->npoints; i++)
		point_release(&st->points[i]);
	free(st->points);
	json_decref(st->runs_rest);
	track_analysis_release(&st->analysis);
	for (size_t i = 0; i < st->nconfirm; i++) {
		free(st->confirm[i].key);
		free(st->confirm[i].status);
		free(st->confirm[i].metrics);
		free(st->confirm[i].run);
		track_tests_release(st->confirm[i].tests, st->confirm[i].ntests);
	}
	free(st->confirm);
	for (size_t i = 0; i < st->nbisect; i++) {
		free(st->bisect[i].key);
		free(st->bisect[i].status);
		free(st->bisect[i].why);
		free(st->bisect[i].dir);
		track_commit_release(&st->bisect[i].first);
		json_decref(st->bisect[i].result);
	}
	free(st->bisect);
	free(st->name);
	free(st->created);
	free(st->file);
	json_decref(st->rest);
	memset(st, 0, sizeof(*st));
}

int track_commit_from_json(const json_t *j, struct track_commit *cm)
{
	static const char *const known[] = { "commit", "short", "subject", "author", "date", NULL };
	char err[8];
	struct pctx c = { err, sizeof(err), false };

	memset(cm, 0, sizeof(*cm));
	if (!want_object(&c, j, "first"))
		return -1;
	cm->commit = get_str(&c, j, "commit", true);
	cm->shortc = get_str(&c, j, "short", false);
	cm->subject = get_str(&c, j, "subject", false);
	cm->author = get_str(&c, j, "author", false);
	cm->date = get_str(&c, j, "date", false);
	cm->rest = rest_of(j, known);
	if (c.failed) {
		track_commit_release(cm);
		return -1;
	}
	return 0;
}

int track_result_first(const json_t *result, struct track_commit *cm)
{
	return track_commit_from_json(json_object_get(result, "first"), cm);
}

void track_commit_release(struct track_commit *cm)
{
	free(cm->commit);
	free(cm->shortc);
	free(cm->subject);
	free(cm->author);
	free(cm->date);
	json_decref(cm->rest);
	memset(cm, 0, sizeof(*cm));
}

static void parse_slot(struct pctx *c, const json_t *v, struct track_slot *s)
{
	if (!want_object(c, v, "a run of runs"))
		return;
	s->run = get_str(c, v, "run", false);
	s->job_file = get_str(c, v, "job_file", false);
	s->status = get_str(c, v, "status", false);
}

static void parse_point(struct pctx *c, const json_t *v, struct track_point *p)
{
	if (!want_object(c, v, "a point"))
		return;
	p->id = get_str(c, v, "id", true);
	p->label = get_str(c, v, "label", true);
	p->commit = get_str(c, v, "commit", false);
	p->subject = get_str(c, v, "subject", false);
	p->added = get_str(c, v, "added", false);
	p->set = json_incref(get_cont(c, v, "set", JSON_OBJECT));
	if (!c->failed && !p->set)
		perr(c, "point %s has no \"set\"", p->id);
}

static void parse_runs(struct pctx *c, const json_t *runs, struct track_state *st)
{
	const char *pid, *job;
	json_t *pv, *sv;

	st->runs_rest = json_object();
	json_object_foreach((json_t *)runs, pid, pv) {
		struct track_point *p = track_state_point(st, pid);

		if (!key_ok(c, pid) || !want_object(c, pv, "an entry of runs"))
			return;
		if (!p) {
			json_object_set(st->runs_rest, pid, pv);
			continue;
		}
		p->in_runs = true;
		json_object_foreach(pv, job, sv) {
			if (!key_ok(c, job))
				return;
			parse_slot(c, sv, track_point_slot_add(p, job));
		}
	}
}

static void parse_cand(struct pctx *c, const json_t *v, struct track_cand *x)
{
	if (!want_object(c, v, "a candidate"))
		return;
	x->job = get_str(c, v, "job", true);
	x->metric = get_str(c, v, "metric", true);
	x->before = get_str(c, v, "before", true);
	x->after = get_str(c, v, "after", true);
	x->p = get_real(c, v, "p");
	x->q = get_real(c, v, "q");
	x->stat = get_real(c, v, "stat");
	x->rel = get_real(c, v, "rel");
	x->min_change = get_real(c, v, "min_change");
	x->mean_before = get_real(c, v, "mean_before");
	x->mean_after = get_real(c, v, "mean_after");
	x->median_before = get_real(c, v, "median_before");
	x->median_after = get_real(c, v, "median_after");
	x->perms = get_int(c, v, "perms");
	x->kernels = get_int(c, v, "kernels");
	x->kernels_before = get_int(c, v, "kernels_before");
	x->kernels_after = get_int(c, v, "kernels_after");
	x->kept = get_bool(c, v, "kept");
	x->significant = get_bool(c, v, "significant");
}

static void parse_analysis(struct pctx *c, const json_t *v, struct track_analysis *a)
{
	json_t *cands, *x;
	size_t i;

	if (!want_object(c, v, "\"analysis\""))
		return;
	a->present = true;
	a->when = get_str(c, v, "when", false);
	a->method = get_str(c, v, "method", false);
	a->seed = get_int(c, v, "seed");
	a->series_tested = get_int(c, v, "series_tested");
	a->family = get_int(c, v, "family");
	a->significant = get_int(c, v, "significant");
	a->q = get_real(c, v, "q");
	a->min_change = get_real(c, v, "min_change");
	cands = get_cont(c, v, "candidates", JSON_ARRAY);
	a->cands = xcalloc(json_array_size(cands) + 1, sizeof(*a->cands));
	json_array_foreach(cands, i, x) {
		parse_cand(c, x, &a->cands[a->ncands++]);
		if (c->failed)
			return;
	}
}

static void parse_test(struct pctx *c, const json_t *v, struct track_test *x)
{
	json_t *ci;

	x->ci_low = x->ci_high = NAN;
	if (!want_object(c, v, "a test"))
		return;
	x->metric = get_str(c, v, "metric", true);
	x->n_before = get_int(c, v, "n_before");
	x->n_after = get_int(c, v, "n_after");
	x->mean_before = get_real(c, v, "mean_before");
	x->mean_after = get_real(c, v, "mean_after");
	x->agrees = get_bool(c, v, "agrees");
	x->confirmed = get_bool(c, v, "confirmed");
	x->p = get_real(c, v, "p");
	x->t = get_real(c, v, "t");
	x->rel = get_real(c, v, "rel");
	x->why = get_str(c, v, "why", false);
	ci = get_cont(c, v, "ci", JSON_ARRAY);
	if (!ci)
		return;
	if (json_array_size(ci) != 2 || !json_is_number(json_array_get(ci, 0)) ||
	    !json_is_number(json_array_get(ci, 1))) {
		perr(c, "\"ci\" is not [low, high]");
		return;
	}
	x->ci_low = json_number_value(json_array_get(ci, 0));
	x->ci_high = json_number_value(json_array_get(ci, 1));
}

static void parse_confirm(struct pctx *c, const json_t *v, struct track_confirmation *e)
{
	json_t *tests, *x;
	size_t i;

	if (!want_object(c, v, "an entry of confirm"))
		return;
	e->status = get_str(c, v, "status", false);
	e->metrics = get_str(c, v, "metrics", false);
	e->run = get_str(c, v, "run", false);
	tests = get_cont(c, v, "tests", JSON_ARRAY);
	e->has_tests = tests != NULL;
	e->tests = xcalloc(json_array_size(tests) + 1, sizeof(*e->tests));
	json_array_foreach(tests, i, x) {
		parse_test(c, x, &e->tests[e->ntests++]);
		if (c->failed)
			return;
	}
}

static void parse_bisect(struct pctx *c, const json_t *v, struct track_bisection *b)
{
	json_t *first;

	if (!want_object(c, v, "an entry of bisect"))
		return;
	b->status = get_str(c, v, "status", false);
	b->why = get_str(c, v, "why", false);
	b->dir = get_str(c, v, "dir", false);
	b->has_range = json_object_get(v, "range_commits") != NULL;
	b->range_commits = get_int(c, v, "range_commits");
	first = json_object_get(v, "first");
	if (first && !c->failed) {
		if (track_commit_from_json(first, &b->first))
			perr(c, "bisect %s: \"first\" is not a commit", b->key);
		b->has_first = !c->failed;
	}
	b->result = json_incref(get_cont(c, v, "result", JSON_OBJECT));
}

static void parse_maps(struct pctx *c, const json_t *j, struct track_state *st)
{
	json_t *conf = get_cont(c, j, "confirm", JSON_OBJECT);
	json_t *bis = get_cont(c, j, "bisect", JSON_OBJECT), *v;
	const char *key;

	st->has_confirm = conf != NULL;
	json_object_foreach(conf, key, v) {
		if (!key_ok(c, key))
			return;
		parse_confirm(c, v, track_state_confirm_add(st, key));
		if (c->failed)
			return;
	}
	st->has_bisect = bis != NULL;
	json_object_foreach(bis, key, v) {
		if (!key_ok(c, key))
			return;
		parse_bisect(c, v, track_state_bisect_add(st, key));
		if (c->failed)
			return;
	}
}

int track_state_from_json(const json_t *j, struct track_state *st, char *err, size_t errlen)
{
	static const char *const known[] = { "name",	 "created", "file",   "points", "runs",
					     "analysis", "confirm", "bisect", NULL };
	struct pctx c = { err, errlen, false };
	json_t *pts, *runs, *v;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!want_object(&c, j, "the state"))
		return -1;
	st->name = get_str(&c, j, "name", false);
	st->created = get_str(&c, j, "created", false);
	st->file = get_str(&c, j, "file", true);
	pts = get_cont(&c, j, "points", JSON_ARRAY);
	st->points = xcalloc(json_array_size(pts) + 1, sizeof(*st->points));
	json_array_foreach(pts, i, v) {
		if (c.failed)
			break;
		parse_point(&c, v, &st->points[st->npoints++]);
		if (!c.failed && track_state_point(st, st->points[st->npoints - 1].id) !=
					 &st->points[st->npoints - 1])
			perr(&c, "point %s is in \"points\" twice", st->points[st->npoints - 1].id);
	}
	runs = get_cont(&c, j, "runs", JSON_OBJECT);
	st->has_runs = runs != NULL;
	if (!c.failed)
		parse_runs(&c, runs, st);
	if (!c.failed && json_object_get(j, "analysis"))
		parse_analysis(&c, json_object_get(j, "analysis"), &st->analysis);
	if (!c.failed)
		parse_maps(&c, j, st);
	st->rest = rest_of(j, known);
	if (c.failed) {
		track_state_release(st);
		return -1;
	}
	return 0;
}

int track_status_from_json(const json_t *j, struct track_state *st, char ***jobs, size_t *njobs,
			   char *err, size_t errlen)
{
	json_t *a = json_object_get(j, "jobs"), *v;
	size_t i;

	*jobs = NULL;
	*njobs = 0;
	if (track_state_from_json(j, st, err, errlen))
		return -1;
	if (a && (!json_is_array(a) || json_array_size(a) > TRACK_STATE_MAX_ITEMS)) {
		snprintf(err, errlen, "\"jobs\" is not an array of names");
		track_state_release(st);
		return -1;
	}
	*jobs = xcalloc(json_array_size(a) + 1, sizeof(**jobs));
	json_array_foreach(a, i, v) {
		if (json_is_string(v))
			(*jobs)[(*njobs)++] = xstrdup(json_string_value(v));
	}
	return 0;
}

int track_state_parse(const char *name, const char *buf, size_t len, struct track_state *st)
{
	json_error_t je;
	json_t *j;
	char err[256];

	memset(st, 0, sizeof(*st));
	if (len > TRACK_STATE_MAX_BYTES) {
		lab_err("%s: %zu bytes, more than a track's state holds (%u); the track's state is "
			"damaged (add the track again to start it anew)",
			name, len, TRACK_STATE_MAX_BYTES);
		return -1;
	}
	j = json_loadb(buf, len, 0, &je);
	if (!j || track_state_from_json(j, st, err, sizeof(err))) {
		lab_err("%s: %s; the track's state is damaged (add the track again to start it "
			"anew)",
			name, j ? err : je.text);
		json_decref(j);
		return -1;
	}
	json_decref(j);
	return 0;
}

int track_state_load(const char *path, struct track_state *st)
{
	size_t len;
	char *text = read_file(path, &len, TRACK_STATE_MAX_BYTES);
	int ret;

	memset(st, 0, sizeof(*st));
	if (!text)
		return -1;
	ret = track_state_parse(path, text, len, st);
	free(text);
	return ret;
}

int track_state_try_load(const char *path, struct track_state *st)
{
	size_t len;
	char *text = path_exists(path) ? read_file(path, &len, TRACK_STATE_MAX_BYTES) : NULL;
	json_t *j = text ? json_loadb(text, len, 0, NULL) : NULL;
	char err[8];
	int ret = j ? track_state_from_json(j, st, err, sizeof(err)) : -1;

	if (!j)
		memset(st, 0, sizeof(*st));
	json_decref(j);
	free(text);
	return ret;
}

/* set key to a string, when there is one */
static void put_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

/* set key to a number, when it is one */
static void put_real(json_t *o, const char *key, double d)
{
	if (isfinite(d))
		json_object_set_new(o, key, json_real(d));
}

static json_t *commit_to_json(const struct track_commit *cm)
{
	json_t *o = cm->rest ? json_deep_copy(cm->rest) : json_object();

	put_str(o, "author", cm->author);
	put_str(o, "commit", cm->commit);
	put_str(o, "date", cm->date);
	put_str(o, "short", cm->shortc);
	put_str(o, "subject", cm->subject);
	return o;
}

static json_t *point_to_json(const struct track_point *p)
{
	json_t *o = json_object();

	put_str(o, "added", p->added);
	put_str(o, "commit", p->commit);
	put_str(o, "id", p->id);
	put_str(o, "label", p->label);
	json_object_set_new(o, "set", p->set ? json_deep_copy(p->set) : json_object());
	put_str(o, "subject", p->subject);
	return o;
}

static json_t *runs_to_json(const struct track_state *st)
{
	json_t *runs = st->runs_rest ? json_deep_copy(st->runs_rest) : json_object();

	for (size_t i = 0; i < st->npoints; i++) {
		const struct track_point *p = &st->points[i];
		json_t *o;

		if (!p->in_runs)
			continue;
		o = json_object();
		for (size_t k = 0; k < p->nslots; k++) {
			json_t *s = json_object();

			put_str(s, "job_file", p->slots[k].job_file);
			put_str(s, "run", p->slots[k].run);
			put_str(s, "status", p->slots[k].status);
			json_object_set_new(o, p->slots[k].job, s);
		}
		json_object_set_new(runs, p->id, o);
	}
	return runs;
}

json_t *track_cand_to_json(const struct track_cand *x)
{
	json_t *o = json_object();

	put_str(o, "after", x->after);
	put_str(o, "before", x->before);
	put_str(o, "job", x->job);
	json_object_set_new(o, "kept", json_boolean(x->kept));
	json_object_set_new(o, "kernels", json_integer(x->kernels));
	json_object_set_new(o, "kernels_after", json_integer(x->kernels_after));
	json_object_set_new(o, "kernels_before", json_integer(x->kernels_before));
	put_real(o, "mean_after", x->mean_after);
	put_real(o, "mean_before", x->mean_before);
	put_real(o, "median_after", x->median_after);
	put_real(o, "median_before", x->median_before);
	put_str(o, "metric", x->metric);
	put_real(o, "min_change", x->min_change);
	put_real(o, "p", x->p);
	json_object_set_new(o, "perms", json_integer(x->perms));
	put_real(o, "q", x->q);
	put_real(o, "rel", x->rel);
	json_object_set_new(o, "significant", json_boolean(x->significant));
	put_real(o, "stat", x->stat);
	return o;
}

json_t *track_analysis_to_json(const struct track_analysis *a)
{
	json_t *o = json_object(), *cands = json_array();

	for (size_t i = 0; i < a->ncands; i++)
		json_array_append_new(cands, track_cand_to_json(&a->cands[i]));
	json_object_set_new(o, "candidates", cands);
	json_object_set_new(o, "family", json_integer(a->family));
	put_str(o, "method", a->method);
	put_real(o, "min_change", a->min_change);
	put_real(o, "q", a->q);
	json_object_set_new(o, "seed", json_integer(a->seed));
	json_object_set_new(o, "series_tested", json_integer(a->series_tested));
	json_object_set_new(o, "significant", json_integer(a->significant));
	put_str(o, "when", a->when);
	return o;
}

json_t *track_test_to_json(const struct track_test *x)
{
	json_t *o = json_object();

	json_object_set_new(o, "agrees", json_boolean(x->agrees));
	if (isfinite(x->ci_low) && isfinite(x->ci_high))
		json_object_set_new(o, "ci", json_pack("[f, f]", x->ci_low, x->ci_high));
	json_object_set_new(o, "confirmed", json_boolean(x->confirmed));
	put_real(o, "mean_after", x->mean_after);
	put_real(o, "mean_before", x->mean_before);
	put_str(o, "metric", x->metric);
	json_object_set_new(o, "n_after", json_integer(x->n_after));
	json_object_set_new(o, "n_before", json_integer(x->n_before));
	put_real(o, "p", x->p);
	put_real(o, "rel", x->rel);
	put_real(o, "t", x->t);
	put_str(o, "why", x->why);
	return o;
}

json_t *track_confirm_to_json(const struct track_confirmation *e)
{
	json_t *o = json_object();

	put_str(o, "metrics", e->metrics);
	put_str(o, "run", e->run);
	put_str(o, "status", e->status);
	if (e->has_tests) {
		json_t *a = json_array();

		for (size_t i = 0; i < e->ntests; i++)
			json_array_append_new(a, track_test_to_json(&e->tests[i]));
		json_object_set_new(o, "tests", a);
	}
	return o;
}

json_t *track_bisect_to_json(const struct track_bisection *b)
{
	json_t *o = json_object();

	put_str(o, "dir", b->dir);
	if (b->has_first)
		json_object_set_new(o, "first", commit_to_json(&b->first));
	if (b->has_range)
		json_object_set_new(o, "range_commits", json_integer(b->range_commits));
	if (b->result)
		json_object_set_new(o, "result", json_deep_copy(b->result));
	put_str(o, "status", b->status);
	put_str(o, "why", b->why);
	return o;
}

json_t *track_state_to_json(const struct track_state *st)
{
	json_t *o = st->rest ? json_deep_copy(st->rest) : json_object(), *pts = json_array();

	if (st->analysis.present)
		json_object_set_new(o, "analysis", track_analysis_to_json(&st->analysis));
	if (st->has_bisect) {
		json_t *b = json_object();

		for (size_t i = 0; i < st->nbisect; i++)
			json_object_set_new(b, st->bisect[i].key,
					    track_bisect_to_json(&st->bisect[i]));
		json_object_set_new(o, "bisect", b);
	}
	if (st->has_confirm) {
		json_t *c = json_object();

		for (size_t i = 0; i < st->nconfirm; i++)
			json_object_set_new(c, st->confirm[i].key,
					    track_confirm_to_json(&st->confirm[i]));
		json_object_set_new(o, "confirm", c);
	}
	put_str(o, "created", st->created);
	put_str(o, "file", st->file);
	put_str(o, "name", st->name);
	for (size_t i = 0; i < st->npoints; i++)
		json_array_append_new(pts, point_to_json(&st->points[i]));
	json_object_set_new(o, "points", pts);
	if (st->has_runs)
		json_object_set_new(o, "runs", runs_to_json(st));
	return o;
}

json_t *track_list_json(const struct track_info *l, size_t n)
{
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(out,
				      json_pack("{s:s, s:I, s:s?}", "name", l[i].name, "points",
						(json_int_t)l[i].points, "file", l[i].file));
	return out;
}

char *track_state_dump(const struct track_state *st)
{
	json_t *j = track_state_to_json(st);
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);

	json_decref(j);
	return text;
}
