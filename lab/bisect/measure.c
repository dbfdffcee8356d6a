// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - measuring commits and the verdict loop of "mmlab bisect run":
 * the endpoints, the endpoint check, then one step per commit git picks
 * (rounds of iterations until the verdict is clear or the step is
 * skipped), each verdict stored before git is told. See session.h.
 *
 * A step's data (internal.h) grows with each round: a round is a run of
 * the results store named bisect-<id>-<seq>-<round>, found again and
 * resumed (or taken as it is when it finished) after an interruption.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect_git.h"
#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "analysis/expr.h"
#include "job/job.h"
#include "repro/repro.h"
#include "run/runner.h"
#include "store/store.h"
#include "store/run_record.h"
#include "bisect/step_data.h"
#include "bisect/step_json.h"
#include "lib/util.h"

static void add_count(json_t *data, const char *key, json_int_t by)
{
	json_object_set_new(data, key,
			    json_integer(json_integer_value(json_object_get(data, key)) + by));
}

static json_t *array_of(json_t *data, const char *key)
{
	json_t *a = json_object_get(data, key);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(data, key, a);
	}
	return a;
}

/* a crash, timeout or lost iteration among the statuses (metric mode skips) */
static const char *bad_status(const struct step_data *d)
{
	for (size_t i = 0; i < d->statuses.n; i++)
		if (strcmp(d->statuses.v[i], "ok"))
			return d->statuses.v[i];
	return NULL;
}

/* measuring one round through the runner ---------------------------------------- */

/* the run of this job name in the store: its id and status, or NULL */
static char *find_run(struct store *st, const char *job, const char **status)
{
	struct run_row *rows;
	char *id = NULL;
	size_t n;

	if (store_run_rows(st, &rows, &n))
		return NULL;
	for (size_t i = 0; i < n && !id; i++) {
		if (strcmp(rows[i].job, job))
			continue;
		id = xstrdup(rows[i].run);
		*status = !strcmp(rows[i].status, "complete") ? "complete" : "incomplete";
	}
	run_rows_free(rows, n);
	return id;
}

static int lookup(void *ctx, const char *name, double *val)
{
	json_t *v = json_object_get(ctx, name);

	if (!json_is_number(v))
		return -1;
	*val = json_number_value(v);
	return 0;
}

/* one iteration of the run into data */
static void collect_iteration(struct bisect_session *s, const struct repro_iter *it,
			      const char *run_dir, const char *vname, json_t *data)
{
	const char *st = it->status ? it->status : "missing";
	double v;
	char err[256];

	json_array_append_new(array_of(data, "statuses"), json_string(st));
	if (strcmp(st, "failed"))
		add_count(data, "vm_runs", 1);
	if (s->sig_mode) {
		char *console = repro_read_console(run_dir, vname, it->index);
		enum repro_outcome o = repro_eval_run(&s->sig, st, it->metrics, console, NULL);

		add_count(data,
			  o == REPRO_MET     ? "met" :
			  o == REPRO_NOT_MET ? "not_met" :
					       "unknown",
			  1);
		free(console);
	} else if (!strcmp(st, "ok") &&
		   !expr_eval(s->metric, lookup, it->metrics, &v, err, sizeof(err)) &&
		   isfinite(v)) {
		json_array_append_new(array_of(data, "values"), json_real(v));
	} else if (!strcmp(st, "ok")) {
		add_count(data, "missing", 1);
	}
}

/* fold a finished run of one commit into data */
static void collect(struct bisect_session *s, const char *run_id, json_t *data)
{
	struct run_record rec;
	struct repro_run run = { 0 };
	const struct run_kernel *k;
	char *run_dir = store_run_path(s->store, run_id);

	array_of(data, "values");
	array_of(data, "statuses");
	if (!store_record_read(s->store, run_id, &rec) && rec.nvariants) {
		k = rec.variants[0].has_kernel ? &rec.variants[0].kernel : NULL;
		if (k && k->build_failed) {
			json_object_set_new(data, "build_failed", json_true());
			if (k->build_log)
				json_object_set_new(data, "build_log", json_string(k->build_log));
			add_count(data, "builds", 1);
		} else if (k && step_kernel_built(k)) {
			add_count(data, "builds", 1);
		}
		repro_run_from_record(s->store, &rec, run_id, &run);
	}
	/* the first variant's iterations: the round's job has one variant */
	for (size_t i = 0; run.nvariants && i < run.variants[0].niters; i++)
		collect_iteration(s, &run.variants[0].iters[i], run_dir, run.variants[0].name,
				  data);
	repro_run_release(&run);
	run_record_release(&rec);
	free(run_dir);
}

/* the job measuring the round, written to RESULTS/bisect/jobs/NAME.yaml */
static struct job *round_job(struct bisect_session *s, const char *name,
			     const struct bisect_round *r)
{
	const struct bisect_params *p = s->p;
	unsigned int per_boot = p->iterations_per_boot < r->n ? p->iterations_per_boot : r->n;
	char *vname = xasprintf("c-%.12s", r->commit), *jobs = xasprintf("%s/jobs", s->dir);
	char *path = xasprintf("%s/%s.yaml", jobs, name), *yaml, err[256];
	struct job *job = NULL;

	if (bisect_is_list(p))
		yaml = bisect_step_yaml_set(p->job_text, strlen(p->job_text), p->variant, name,
					    vname, bisect_list_entry(p, r->commit), NULL, r->n,
					    per_boot, err, sizeof(err));
	else
		yaml = bisect_step_yaml(p->job_text, strlen(p->job_text), p->variant, name, vname,
					r->commit, p->tree, r->n, per_boot, err, sizeof(err));
	if (!yaml)
		lab_err("bisect: the job cannot be made for %.12s: %s", r->commit, err);
	else if (!mkdir_p(jobs, 0755) && !write_file_atomic(path, yaml, strlen(yaml), 0644))
		job_load_buffer(path, yaml, strlen(yaml), p->job_dir, &job);
	free(vname);
	free(jobs);
	free(path);
	free(yaml);
	return job;
}

/*
 * One round of r->n iterations of the commit: a run named
 * bisect-<id>-<seq>-<round>, resumed when an earlier attempt was stopped,
 * taken as it is when it finished. 0, 1 interrupted, -1 failed.
 */
static int measure_round(struct bisect_session *s, const struct bisect_round *r, json_t *data)
{
	char *name = xasprintf("bisect-%s-%lld-%u", s->p->id, r->seq, r->round), *id;
	const char *status = NULL;
	struct run_opts o = { .cache_dir = s->env->cache_dir, .connect_uri = s->env->connect_uri };
	struct run_result res = { 0 };
	int ret = -1;

	id = find_run(s->store, name, &status);
	if (id && !strcmp(status, "complete")) {
		lab_info("bisect: %.12s: run %s was finished before; using it", r->commit, id);
		goto collect;
	}
	if (id) {
		lab_info("bisect: %.12s: resuming run %s", r->commit, id);
		o.resume = id;
	} else {
		o.job = round_job(s, name, r);
		if (!o.job)
			goto out;
	}
	/* its exit status is in the run: failed builds and iterations count there */
	runner_run(s->store, &o, &res);
	if (res.interrupted) {
		ret = 1;
		goto out;
	}
	if (!res.run_id) {
		lab_err("bisect: %.12s could not be measured (see above)", r->commit);
		goto out;
	}
	free(id);
	id = xstrdup(res.run_id);
collect:
	json_array_append_new(array_of(data, "runs"), json_string(id));
	collect(s, id, data);
	ret = 0;
out:
	run_result_release(&res);
	free(id);
	free(name);
	return ret;
}

/* measure a round, through the runner or the env's measure; wall_s grows */
static int measure(struct bisect_session *s, const struct bisect_round *r, json_t *data)
{
	double start = now_monotonic();
	int ret;

	if (s->env->measure)
		ret = s->env->measure(s->env->measure_ctx, s->p, r, data);
	else
		ret = measure_round(s, r, data);
	if (!ret) {
		struct step_data d;
		double before = step_data_from_json(data, &d) ? 0 : d.wall_s;

		step_data_release(&d);
		json_object_set_new(data, "wall_s", json_real(before + now_monotonic() - start));
	}
	return ret;
}

/* verdicts ------------------------------------------------------------------ */

bool step_endpoints_ok(struct bisect_session *s, char *why, size_t len)
{
	static const struct step_data none;
	struct bstore_steps steps;
	const struct step_data *g, *bd;
	bool ok;

	bstore_step_list(s->bs, &steps);
	g = bstore_step_endpoint(&steps, "good") ?: &none;
	bd = bstore_step_endpoint(&steps, "bad") ?: &none;
	if (s->sig_mode) {
		snprintf(why, len,
			 "signature in %u of %u runs at the good endpoint%s, in %u of %u "
			 "at the bad one (%u needed)",
			 g->met, (unsigned int)g->statuses.n,
			 g->unknown ? " (some ended before it could be seen)" : "", bd->met,
			 (unsigned int)bd->statuses.n, s->p->k);
		ok = !g->met && !g->unknown && bd->met >= s->p->k;
	} else {
		struct stats_test t;

		ok = bisect_endpoints_ok(g->values, g->nvalues, bd->values, bd->nvalues, &s->rule,
					 &t, why, len);
	}
	bstore_steps_release(&steps);
	return ok;
}

/* metric mode: the step's values against the endpoints' */
static enum bisect_call decide_metric(struct bisect_session *s, const struct bstore_steps *steps,
				      const struct step_data *d, json_t *data, double *pw,
				      char *why, size_t len)
{
	static const struct step_data none;
	const struct step_data *g = bstore_step_endpoint(steps, "good") ?: &none;
	const struct step_data *bd = bstore_step_endpoint(steps, "bad") ?: &none;
	enum bisect_call c;
	double pos;

	c = bisect_call_metric(g->values, g->nvalues, bd->values, bd->nvalues, d->values,
			       d->nvalues, &s->rule, &pos, pw, why, len);
	json_object_set_new(data, "position", isfinite(pos) ? json_real(pos) : json_null());
	return c;
}

/* the call on d: *final false when it is unsure and may grow */
static enum bisect_call decide(struct bisect_session *s, const struct bstore_steps *steps,
			       const struct step_data *d, json_t *data, double *pw, char *why,
			       size_t len, bool *final)
{
	enum bisect_call c;

	*final = true;
	if (d->build_failed) {
		snprintf(why, len, "the build failed: %s", d->build_log ?: "no log");
		return BISECT_UNSURE;
	}
	if (s->sig_mode) {
		c = bisect_call_signature(d->met, d->unknown, (unsigned int)d->statuses.n, s->p->k,
					  why, len);
	} else if (bad_status(d)) {
		snprintf(why, len, "an iteration %s (not a measurement): skipped", bad_status(d));
		return BISECT_UNSURE;
	} else {
		c = decide_metric(s, steps, d, data, pw, why, len);
	}
	if (c == BISECT_UNSURE && d->statuses.n < s->p->max_iterations)
		*final = false;
	return c;
}

enum bisect_call step_decide(struct bisect_session *s, const struct bstore_steps *steps,
			     json_t *data, char *why, size_t len, bool *final)
{
	struct step_data d;
	enum bisect_call c;
	double pw = NAN;

	if (step_data_from_json(data, &d)) {
		*final = true;
		snprintf(why, len, "the step's data does not read as one: skipped");
		return BISECT_UNSURE;
	}
	c = decide(s, steps, &d, data, &pw, why, len, final);
	/* no p_wrong after a failed build or a bad status, as always */
	if (!d.build_failed && (s->sig_mode || !bad_status(&d)))
		json_object_set_new(data, "p_wrong", isfinite(pw) ? json_real(pw) : json_null());
	step_data_release(&d);
	return c;
}

/* the loop ------------------------------------------------------------------ */

/* measure an endpoint unless done; 0, 1 interrupted, -1 failed */
static int endpoint(struct bisect_session *s, const char *role)
{
	const char *commit = strcmp(role, "good") ? s->p->bad : s->p->good;
	struct bstore_steps steps;
	struct bisect_round r = { .commit = commit, .n = s->p->iterations };
	bool done;
	json_t *data;
	char *line;
	int ret;

	bstore_step_list(s->bs, &steps);
	done = bstore_step_endpoint(&steps, role) != NULL;
	bstore_steps_release(&steps);
	if (done)
		return 0;
	r.seq = bstore_step_open(s->bs, commit, role);
	if (r.seq < 0)
		return -1;
	line = session_commit_line(s, commit);
	lab_info("bisect: measuring the %s endpoint %s (%u iterations)", role, line ? line : commit,
		 s->p->iterations);
	free(line);
	data = json_object();
	ret = measure(s, &r, data);
	if (!ret) {
		struct step_data d;

		json_object_set_new(data, "verdict", json_string(role));
		json_object_set_new(data, "why", json_string("endpoint"));
		if (step_data_from_json(data, &d)) {
			lab_err("bisect: the %s endpoint %.12s: its data does not read as a step's",
				role, commit);
			ret = -1;
		} else if (d.build_failed) {
			lab_err("bisect: the %s endpoint %.12s does not build; see %s", role,
				commit, d.build_log ?: "its log");
			ret = -1;
		} else if (bstore_step_set(s->bs, r.seq, "done", data)) {
			ret = -1;
		}
		step_data_release(&d);
	}
	json_decref(data);
	return ret;
}

/* the runs (rounds) and iterations of a step's data so far; 0 or -1 */
static int data_counts(json_t *data, unsigned int *runs, unsigned int *iterations)
{
	struct step_data d;

	*runs = *iterations = 0;
	if (step_data_from_json(data, &d))
		return -1;
	*runs = (unsigned int)d.runs.n;
	*iterations = (unsigned int)d.statuses.n;
	step_data_release(&d);
	return 0;
}

/* rounds of the step until its verdict is clear or final; 0, 1, -1 */
static int measure_step(struct bisect_session *s, const struct bstore_steps *steps,
			struct bisect_round *r, json_t *data, char *why, size_t len)
{
	enum bisect_call c = BISECT_UNSURE;
	unsigned int runs, have;
	bool final = false;
	int ret;

	data_counts(data, &r->round, &have);
	for (;;) {
		if (data_counts(data, &runs, &have)) {
			/* skipped, not measured again and again */
			snprintf(why, len, "the step's data does not read as one");
			break;
		}
		/* a failed build has runs but no iterations: step_decide() skips it */
		if (runs) {
			c = step_decide(s, steps, data, why, len, &final);
			if (final || c != BISECT_UNSURE)
				break;
			lab_info("bisect: %.12s is not clear yet (%s); more iterations", r->commit,
				 why);
		}
		r->n = s->p->iterations;
		if (have + r->n > s->p->max_iterations)
			r->n = s->p->max_iterations > have ? s->p->max_iterations - have : 1;
		ret = measure(s, r, data);
		if (ret)
			return ret;
		r->round++;
		/* the rounds so far are kept: a kill -9 loses at most one */
		if (bstore_step_set(s->bs, r->seq, "running", data))
			return -1;
	}
	json_object_set_new(data, "verdict",
			    json_string(c == BISECT_UNSURE ? "skip" : bisect_call_name(c)));
	json_object_set_new(data, "why", json_string(why));
	return bstore_step_set(s->bs, r->seq, "decided", data);
}

/* the data of the step's row (a copy), or a new object */
static json_t *step_data(const struct bstore_steps *steps, long long seq)
{
	json_t *data = NULL;

	for (size_t i = 0; i < steps->n; i++)
		if (steps->v[i].seq == seq) {
			json_decref(data);
			data = json_deep_copy(steps->v[i].data);
		}
	return data ? data : json_object();
}

/* a list bisection's state after its verdicts, as the progress; *next as bisect_list_progress() */
static int list_update(struct bisect_session *s, char **next)
{
	char *progress = bisect_list_progress(s, next);
	int ret = session_set_progress(s, progress);

	free(progress);
	return ret;
}

/* one step: measure and decide unless decided, tell git unless told; 0, 1, -1 */
static int step(struct bisect_session *s, const char *commit, unsigned int stepno)
{
	struct bisect_round r = { .commit = commit };
	struct bstore_steps steps = { 0 };
	struct step_data d = { 0 };
	json_t *data = NULL;
	const char *term;
	char why[512], *line = NULL, *out = NULL;
	int ret = -1;

	r.seq = bstore_step_open(s->bs, commit, "step");
	if (r.seq < 0)
		return -1;
	bstore_step_list(s->bs, &steps);
	data = step_data(&steps, r.seq);
	line = session_commit_line(s, commit);
	step_data_from_json(data, &d); /* a step whose data does not read is measured */
	if (!d.verdict) {
		lab_info("bisect: step %u: testing %s", stepno, line ? line : commit);
		ret = measure_step(s, &steps, &r, data, why, sizeof(why));
		if (ret)
			goto out;
		ret = -1;
		step_data_release(&d);
		step_data_from_json(data, &d);
	}
	term = d.verdict ?: "skip";
	lab_info("bisect: %s is %s: %s", line ? line : commit, term, d.why ?: "");
	if (strcmp(term, "skip"))
		term = session_term(s, !strcmp(term, "bad"));
	if (!bisect_is_list(s->p) && !session_git_has_verdict(s, commit) &&
	    session_tell_git(s, term, commit, &out))
		goto out;
	if (bstore_step_set(s->bs, r.seq, "done", data) ||
	    (bisect_is_list(s->p) && list_update(s, NULL)) || bisect_write_log(s))
		goto out;
	ret = 0;
out:
	step_data_release(&d);
	free(out);
	free(line);
	json_decref(data);
	bstore_steps_release(&steps);
	return ret;
}

/* the endpoints measured and worth bisecting: 0, or -1 with *why */
static int check_endpoints(struct bisect_session *s, enum bisect_failure *fail)
{
	char why[1024];
	json_t *r;
	int rc;

	for (int i = 0; i < 2; i++) {
		rc = endpoint(s, i ? "bad" : "good");
		if (rc > 0) {
			lab_err("bisect: interrupted; 'mmlab bisect run' goes on from here");
			*fail = BISECT_FAIL_INTERRUPTED;
			return -1;
		}
		if (rc) {
			bstore_set_status(s->bs, bisect_status_name(BISECT_FAILED), NULL);
			return -1;
		}
	}
	if (!step_endpoints_ok(s, why, sizeof(why))) {
		r = bisect_refusal_json(why);
		bstore_set_status(s->bs, bisect_status_name(BISECT_REFUSED), r);
		json_decref(r);
		bisect_write_log(s);
		lab_err("bisect: refusing to bisect: the endpoints do not differ as asked: %s",
			why);
		return -1;
	}
	lab_info("bisect: the endpoints differ: %s", why);
	bisect_write_log(s);
	return 0;
}

/* the steps a run before this one finished */
static unsigned int steps_done(struct bisect_session *s)
{
	struct bstore_steps steps;
	unsigned int n = 0;

	bstore_step_list(s->bs, &steps);
	for (size_t i = 0; i < steps.n; i++)
		n += bstore_step_is(&steps.v[i], "step", "done");
	bstore_steps_release(&steps);
	return n;
}

/* steps until git is finished: 0, or -1 with *why */
static int search(struct bisect_session *s, json_t **result, enum bisect_failure *why)
{
	unsigned int stepno = steps_done(s) + 1;
	char *commit = NULL;
	int rc;

	for (;; stepno++) {
		const char *out;

		if (bisect_is_list(s->p) && list_update(s, NULL))
			return -1;
		out = s->state.progress ? s->state.progress : "";

		if (bisect_git_finished(out, session_new_term(s)))
			break;
		if (strstr(out, "Bisecting:")) {
			char *l = bisect_progress_line(out);

			lab_info("bisect: %s", l);
			free(l);
		}
		free(commit);
		if (bisect_is_list(s->p) ? list_update(s, &commit) || !commit :
					   session_head(s, &commit))
			return -1;
		rc = step(s, commit, stepno);
		if (rc) {
			free(commit);
			if (rc < 0)
				return -1;
			lab_err("bisect: interrupted; 'mmlab bisect run' goes on from here");
			*why = BISECT_FAIL_INTERRUPTED;
			return -1;
		}
	}
	free(commit);
	return bisect_conclude(s, s->state.progress, result);
}

/*
 * --kernels with --tree: the commits between the two releases the list
 * named, a commit bisection in the state's tree/ (started, or resumed);
 * its result, with the list's as "list". 0, or -1 with why.
 */
static int list_then_tree(struct bisect_session *s, json_t **result, enum bisect_failure *why)
{
	struct bisect_env env = *s->env;
	struct bisect_start_args a;
	struct bisect_params tp;
	char *dir = xasprintf("%s/tree", s->dir), *db = xasprintf("%s/bisect.db", dir);
	char *progress = NULL;
	json_t *tres = NULL;
	int ret = -1;

	*why = BISECT_FAIL_RUN;
	env.state_dir = dir;
	if (path_exists(db) ||
	    (bisect_list_tree_args(s, &a) && !bisect_start(&env, &a, &tp, &progress))) {
		if (progress) {
			lab_info("bisect: git: %s", progress);
			bisect_params_release(&tp);
		}
		ret = bisect_run(&env, &tres, why);
	}
	if (tres) {
		json_object_set(tres, "list", *result);
		json_decref(*result);
		*result = tres;
	}
	free(progress);
	free(db);
	free(dir);
	return ret;
}

int bisect_run(const struct bisect_env *env, json_t **result, enum bisect_failure *why)
{
	struct bisect_session s;
	int ret = -1;

	*result = NULL;
	*why = BISECT_FAIL_RUN;
	if (session_open(&s, env) || session_lock(&s, "wait for it or stop it first")) {
		session_close(&s);
		*why = BISECT_FAIL_USAGE;
		return -1;
	}
	switch (s.state.status) {
	case BISECT_DONE:
		lab_info("bisect: already finished");
		ret = bisect_conclude(&s, s.state.progress ? s.state.progress : "", result);
		goto out;
	case BISECT_REFUSED:
		lab_err("bisect: refused: %s", bisect_refusal_why(s.state.result) ?: "?");
		goto out;
	default:
		break;
	}
	s.store = store_open(env->results_dir);
	if (!s.store || bstore_set_status(s.bs, bisect_status_name(BISECT_RUNNING), NULL))
		goto out;
	ret = check_endpoints(&s, why);
	if (!ret)
		ret = search(&s, result, why);
out:
	if (!ret && *result && bisect_is_list(s.p) && s.p->tree)
		ret = list_then_tree(&s, result, why);
	session_close(&s);
	return ret;
}
