// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - what a bisection found (docs/bisect.md, "Result" and
 * "Confidence"), the replayable log (the parameters and every measured
 * step as "# mmlab-bisect" lines, then git's bisect log); replay.c reads
 * it back. See session.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect_git.h"
#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "bisect/step_data.h"
#include "bisect/step_json.h"
#include "kernel/gitops.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* the result ------------------------------------------------------------------ */

static json_t *commit_json(const char *tree, const char *commit)
{
	const char *args[] = {
		"log",	"-1", "--no-show-signature", "--format=%H%x1f%h%x1f%s%x1f%an <%ae>%x1f%aI",
		commit, NULL
	};
	struct spawn_result r;
	char *f[5] = { 0 }, *p;
	json_t *o;

	if (git_run(tree, args, &r) || !r.out) {
		spawn_result_free(&r);
		return json_pack("{s:s}", "commit", commit);
	}
	p = r.out;
	p[strcspn(p, "\n")] = '\0';
	for (int i = 0; i < 5; i++) {
		f[i] = p;
		p = strchr(p, 0x1f);
		if (!p) {
			for (int j = i + 1; j < 5; j++)
				f[j] = "";
			break;
		}
		*p++ = '\0';
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit", f[0], "short", f[1], "subject", f[2],
		      "author", f[3], "date", f[4]);
	spawn_result_free(&r);
	return o;
}

/* a tested commit (or list entry) as the result shows it */
static json_t *row_commit(struct bisect_session *s, const char *commit)
{
	if (bisect_is_list(s->p))
		return bisect_list_commit_json(s->p, commit);
	return commit_json(s->p->tree, commit);
}

/* candidates named after "could be any of:" (only skipped commits left) */
static json_t *candidates(const char *out)
{
	json_t *a = json_array();
	const char *p = strstr(out, "could be any of:");

	if (!p)
		return a;
	p = strchr(p, '\n');
	while (p && *++p) {
		size_t n = strspn(p, "0123456789abcdef");

		if (n >= 7)
			json_array_append_new(a, json_stringn(p, n));
		p = strchr(p, '\n');
	}
	return a;
}

static bool is_done(const json_t *st)
{
	struct step_row r;

	step_row_from_json(st, &r);
	return !strcmp(r.state ?: "", "done");
}

/* the table row of a done step */
static json_t *step_row(struct bisect_session *s, const struct bstore_step *st)
{
	const struct step_data *d = &st->d;
	json_t *row = row_commit(s, st->commit);

	json_object_set_new(row, "role", st->role ? json_string(st->role) : json_null());
	if (d->verdict)
		json_object_set_new(row, "verdict", json_string(d->verdict));
	if (d->why)
		json_object_set_new(row, "why", json_string(d->why));
	json_object_set_new(row, "iterations", json_integer((json_int_t)d->statuses.n));
	if (s->sig_mode) {
		json_object_set_new(row, "met", json_integer(d->met));
	} else {
		struct bisect_sample sm;

		bisect_sample(d->values, d->nvalues, &sm);
		json_object_set_new(row, "mean", sm.n ? json_real(sm.mean) : json_null());
		json_object_set_new(row, "ci95",
				    isfinite(sm.ci95) ? json_real(sm.ci95) : json_null());
		json_object_set_new(row, "n", json_integer((json_int_t)sm.n));
	}
	if (d->has_runs)
		json_object_set_new(row, "runs", step_runs_json(d));
	return row;
}

/* the totals over the done steps, and what the confidence rests on */
struct totals {
	json_int_t builds, vm_runs;
	double wall, sum_p, rate;
	unsigned int calls;
};

static void add_totals(struct totals *t, const struct bstore_step *st)
{
	const struct step_data *d = &st->d;

	t->builds += d->builds;
	t->vm_runs += d->vm_runs;
	t->wall += d->wall_s;
	if (bstore_step_is(st, "bad", NULL) && d->statuses.n)
		t->rate = (double)d->met / (double)d->statuses.n;
	if (d->has_p_wrong) {
		t->sum_p += d->p_wrong;
		t->calls++;
	}
}

/* the confidence statement into conf; its value */
static double confidence(struct bisect_session *s, const struct bstore_steps *steps,
			 const struct totals *t, char *conf, size_t len)
{
	double good_ok = 1;

	if (!s->sig_mode) {
		snprintf(conf, len,
			 "each of the %u verdicts rests on a Welch test against "
			 "the other endpoint; all are right with probability at least %.4f "
			 "(1 - the sum of their p-values)",
			 t->calls, t->sum_p < 1 ? 1 - t->sum_p : 0.0);
		return t->sum_p < 1 ? 1 - t->sum_p : 0;
	}
	for (size_t i = 0; i < steps->n; i++) {
		const struct step_data *d = &steps->v[i].d;

		if (d->verdict && !strcmp(d->verdict, "good") &&
		    bstore_step_is(&steps->v[i], "step", NULL))
			good_ok *= 1 - bisect_miss_prob(t->rate, (unsigned int)d->statuses.n);
	}
	snprintf(conf, len,
		 "the signature occurred in %.0f %% of the runs at the "
		 "bad endpoint; at that rate every 'good' verdict is right with probability "
		 "%.4f (the chance that all runs of a bad commit miss it is (1 - rate)^n)",
		 100 * t->rate, good_ok);
	return good_ok;
}

/* the first new commit when git's output names it, else NULL */
static char *first_commit(struct bisect_session *s, const char *out)
{
	char *needle = xasprintf("is the first %s commit", session_new_term(s));
	char *ref = xasprintf("refs/bisect/%s", session_new_term(s)), *first = NULL;
	const char *args[] = { "rev-parse", ref, NULL };

	if (bisect_is_list(s->p))
		first = bisect_list_first(s, out);
	else if (out && strstr(out, needle))
		first = git_out(s->wt, args);
	free(needle);
	free(ref);
	return first;
}

/* the result; *found: it names a first commit */
static json_t *make_result(struct bisect_session *s, const char *out, bool *found)
{
	struct bstore_steps steps;
	json_t *rows = json_array(), *res, *first_row;
	struct totals t = { .rate = NAN };
	unsigned long long range = s->p->range_commits;
	char *first = first_commit(s, out), conf[512];
	double value;

	bstore_step_list(s->bs, &steps);
	for (size_t i = 0; i < steps.n; i++) {
		if (!bstore_step_is(&steps.v[i], NULL, "done"))
			continue;
		json_array_append_new(rows, step_row(s, &steps.v[i]));
		add_totals(&t, &steps.v[i]);
	}
	value = confidence(s, &steps, &t, conf, sizeof(conf));
	first_row = first ? row_commit(s, first) : json_null();
	*found = json_is_object(first_row);
	res = json_pack("{s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:f, s:I, s:I, s:s, s:f}", "mode",
			s->sig_mode ? "signature" : "metric", "looked_for",
			s->sig_mode ? s->p->signature : s->p->metric, "first", first_row,
			"candidates",
			bisect_is_list(s->p) ? bisect_list_candidates(out) :
			out		     ? candidates(out) :
					       json_array(),
			"steps", rows, "builds", t.builds, "vm_runs", t.vm_runs, "wall_s", t.wall,
			"range_commits", (json_int_t)range, "log2_range",
			(json_int_t)ceil(log2(fmax(1, (double)range))), "confidence", conf,
			"confidence_value", value);
	json_object_set_new(res, "term", json_string(session_new_term(s)));
	free(first);
	bstore_steps_release(&steps);
	return res;
}

json_t *bisect_make_result(struct bisect_session *s, const char *out)
{
	bool found;

	return make_result(s, out, &found);
}

int bisect_conclude(struct bisect_session *s, const char *out, json_t **result)
{
	bool found;
	json_t *res = make_result(s, out, &found);
	int ret = found ? 0 : -1;

	if (bstore_set_status(s->bs, bisect_status_name(BISECT_DONE), res) || bisect_write_log(s))
		ret = -1;
	*result = res;
	return ret;
}

/* the log --------------------------------------------------------------------- */

static void add_json_line(struct strbuf *sb, const char *what, json_t *j)
{
	char *p = json_dumps(j, JSON_COMPACT);

	strbuf_addf(sb, BISECT_LOG_TAG "%s %s\n", what, p ? p : "null");
	free(p);
}

int bisect_write_log(struct bisect_session *s)
{
	json_t *steps = bstore_steps(s->bs), *params = bisect_params_to_json(s->p), *st;
	char *path = xasprintf("%s/bisect.log", s->dir), *glog = NULL;
	const char *args[] = { "bisect", "log", NULL };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int ret;

	strbuf_addf(&sb,
		    "# mmlab bisect log: 'mmlab bisect replay %s' starts the same "
		    "bisection\n",
		    path);
	add_json_line(&sb, "params", params);
	json_array_foreach(steps, i, st)
		if (is_done(st))
			add_json_line(&sb, "step", st);
	if (!bisect_is_list(s->p) && bisect_git(s->wt, args, &glog) == 0)
		strbuf_addstr(&sb, glog);
	free(glog);
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(path);
	json_decref(params);
	json_decref(steps);
	return ret;
}

void bisect_log_parse(const char *text, json_t **params, json_t *steps)
{
	static const char ptag[] = BISECT_LOG_TAG "params ", stag[] = BISECT_LOG_TAG "step ";

	*params = NULL;
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		json_t *j = NULL;

		if (len > strlen(ptag) && !strncmp(l, ptag, strlen(ptag))) {
			j = json_loadb(l + strlen(ptag), len - strlen(ptag), 0, NULL);
			/* the last one counts, as a whole */
			json_decref(*params);
			*params = json_is_object(j) ? json_incref(j) : NULL;
		} else if (len > strlen(stag) && !strncmp(l, stag, strlen(stag))) {
			j = json_loadb(l + strlen(stag), len - strlen(stag), 0, NULL);
			if (json_is_object(j))
				json_array_append(steps, j);
		}
		json_decref(j);
		l = nl ? nl + 1 : NULL;
	}
}
