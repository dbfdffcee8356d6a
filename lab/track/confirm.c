// SPDX-License-Identifier: GPL-2.0
/*
 * confirm.c - no change point is reported before it is measured again
 * (docs/track.md, "Confirmation"): the two kernels on either side of it
 * run together in one run, interleaved in a seeded random order, with the
 * track's iterations and then rounds of one more each until the changed
 * metrics are precise or confirm.max_iterations is reached (the runner's
 * --until-significant). Each changed metric is then tested as "mmlab
 * compare" tests it (Welch's t-test); the change is confirmed when the test
 * is significant at confirm.alpha and agrees in direction with the change
 * point.
 *
 * The changes of one job at the same two kernels share that run. The run's
 * job file is jobs/confirm--JOB--BEFORE..AFTER.yaml; a track run killed
 * during the run finds it by that file and resumes it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "job/job.h"
#include "lib/strbuf.h"
#include "run/runner.h"
#include "track/internal.h"

#define CONFIRM_MAX_SAMPLES 4096

static size_t job_index(const struct track *t, const char *name)
{
	for (size_t j = 0; j < t->def.njobs; j++)
		if (!strcmp(t->def.jobs[j].name, name))
			return j;
	return t->def.njobs;
}

/* the metrics of the significant candidates of key, comma-joined (malloc'd) */
static char *key_metrics(const struct track_analysis *an, const char *key)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < an->ncands; i++) {
		const struct track_cand *c = &an->cands[i];
		char *k = track_change_key(c->job, c->before, c->after);

		if (c->significant && !strcmp(k, key))
			strbuf_addsep(&sb, ",", c->metric);
		free(k);
	}
	return strbuf_detach(&sb);
}

/*
 * The confirmation run of key: created, or found and resumed; its id
 * (malloc'd), or NULL (after a message, or interrupted). A run that
 * measured, even with iterations not ok, is one; a run that could not
 * start or measure nothing is not (the next track run tries again).
 */
static char *confirm_run(struct track *t, size_t j, const char *key,
			 const struct track_point *before, const struct track_point *after,
			 const char *metrics)
{
	const struct track_variant vars[] = { { before->label, before->set },
					      { after->label, after->set } };
	char *file = xasprintf("confirm--%s--%s..%s.yaml", t->def.jobs[j].name, before->label,
			       after->label);
	bool existed;
	char *path = track_job_file(t, j, file, vars, 2, t->def.iterations, &existed), *found;
	struct run_opts ro = { .cache_dir = t->env->cache_dir,
			       .connect_uri = t->env->connect_uri,
			       .seeded = true,
			       .until_significant = true,
			       .precision = 0.02,
			       .metrics = metrics };
	struct run_result res = { 0 };
	char *run = NULL;
	int rc;

	free(file);
	if (!path)
		return NULL;
	ro.seed = (unsigned long)(t->def.seed ^ track_hash("confirm", key));
	ro.max_iterations = t->def.confirm_max ? t->def.confirm_max : 3 * t->def.iterations;
	if (ro.max_iterations < t->def.iterations + 2)
		ro.max_iterations = t->def.iterations + 2;
	found = existed ? track_find_run(t, path, false) : NULL;
	if (found) {
		lab_info("track %s: resuming the confirmation run %s of %s", t->def.name, found,
			 key);
		ro.resume = found;
	} else {
		ro.job = track_load_job(t, j, path);
		if (!ro.job) {
			free(path);
			return NULL;
		}
		lab_info("track %s: confirming %s (%s): both kernels again, up to %u iterations "
			 "each",
			 t->def.name, key, metrics, ro.max_iterations);
	}
	rc = runner_run(t->store, &ro, &res);
	if (res.run_id && !res.interrupted && (rc == 0 || res.failed_iterations))
		run = xstrdup(res.run_id);
	else if (!res.interrupted)
		lab_err("track %s: the confirmation run of %s failed (above)", t->def.name, key);
	run_result_release(&res);
	free(found);
	free(path);
	return run;
}

/*
 * compare's test of one metric between the two kernels of the run into x;
 * false when its means are no numbers (no sample of a kernel): no test
 */
static bool test_metric(struct track *t, const char *run, const struct track_cand *c,
			const struct track_point *before, const struct track_point *after,
			struct track_test *x)
{
	double *a = xcalloc(CONFIRM_MAX_SAMPLES, sizeof(double));
	double *b = xcalloc(CONFIRM_MAX_SAMPLES, sizeof(double));
	int na = track_samples(t, run, before->label, c->metric, a, CONFIRM_MAX_SAMPLES);
	int nb = track_samples(t, run, after->label, c->metric, b, CONFIRM_MAX_SAMPLES);
	struct stats_summary sa, sb;
	struct stats_test w = { 0 };
	double dir = c->mean_after - c->mean_before;

	stats_summarize(a, na > 0 ? (size_t)na : 0, false, &sa);
	stats_summarize(b, nb > 0 ? (size_t)nb : 0, false, &sb);
	stats_welch(&sa, &sb, 0.95, &w);
	free(a);
	free(b);
	if (!isfinite(sa.mean) || !isfinite(sb.mean))
		return false;
	*x = (struct track_test){
		.metric = xstrdup(c->metric),
		.n_before = na,
		.n_after = nb,
		.mean_before = sa.mean,
		.mean_after = sb.mean,
		.agrees = (sb.mean - sa.mean) * dir > 0,
		.p = w.valid ? w.p : NAN,
		.t = w.valid ? w.t : NAN,
		.rel = w.rel,
		.ci_low = NAN,
		.ci_high = NAN,
		.why = w.valid ? NULL : xstrdup(w.why ? w.why : "no test"),
	};
	x->confirmed = w.valid && w.p < t->def.alpha && x->agrees;
	if (isfinite(w.ci_low) && isfinite(w.ci_high)) {
		x->ci_low = w.ci_low;
		x->ci_high = w.ci_high;
	}
	return true;
}

/* the tests of the significant candidates of key in the confirmation run */
static bool test_key(struct track *t, const char *key, const char *run,
		     const struct track_point *before, const struct track_point *after,
		     struct track_confirmation *entry)
{
	const struct track_analysis *an = &t->state.analysis;
	bool any = false;

	track_tests_release(entry->tests, entry->ntests);
	entry->tests = xcalloc(an->ncands + 1, sizeof(*entry->tests));
	entry->ntests = 0;
	entry->has_tests = true;
	for (size_t i = 0; i < an->ncands; i++) {
		const struct track_cand *x = &an->cands[i];
		char *k = track_change_key(x->job, x->before, x->after);

		if (x->significant && !strcmp(k, key) &&
		    test_metric(t, run, x, before, after, &entry->tests[entry->ntests])) {
			any |= entry->tests[entry->ntests].confirmed;
			entry->ntests++;
		}
		free(k);
	}
	return any;
}

static void set_str(char **field, const char *s)
{
	free(*field);
	*field = s ? xstrdup(s) : NULL;
}

static int confirm_key(struct track *t, const char *key, const struct track_cand *c)
{
	struct track_point *before = track_point(t, c->before);
	struct track_point *after = track_point(t, c->after);
	size_t j = job_index(t, c->job);
	struct track_confirmation *entry;
	char *metrics, *run;
	bool any;

	if (!before || !after || j == t->def.njobs)
		return 0;
	metrics = key_metrics(&t->state.analysis, key);
	/* the entry is written anew: a run interrupted before is found by its job file */
	entry = track_state_confirm_add(&t->state, key);
	set_str(&entry->status, "running");
	set_str(&entry->metrics, metrics);
	set_str(&entry->run, NULL);
	track_tests_release(entry->tests, entry->ntests);
	entry->tests = NULL;
	entry->ntests = 0;
	entry->has_tests = false;
	free(metrics);
	if (track_save(t))
		return -1;
	run = confirm_run(t, j, key, before, after, entry->metrics);
	if (!run)
		return -1;
	entry = track_state_confirm(&t->state, key);
	set_str(&entry->run, run);
	any = test_key(t, key, run, before, after, entry);
	set_str(&entry->status, any ? "confirmed" : "not confirmed");
	lab_info("track %s: %s %s (run %s)", t->def.name, key, any ? "confirmed" : "not confirmed",
		 run);
	free(run);
	return track_save(t);
}

int track_confirm(struct track *t)
{
	const struct track_analysis *an = &t->state.analysis;

	t->state.has_confirm = true;
	for (size_t i = 0; i < an->ncands; i++) {
		const struct track_cand *c = &an->cands[i];
		char *key = track_change_key(c->job, c->before, c->after);
		const struct track_confirmation *e = track_state_confirm(&t->state, key);
		const char *st = e ? e->status : NULL;
		int ret = 0;

		if (c->significant && (!st || !strcmp(st, "running")))
			ret = confirm_key(t, key, c);
		free(key);
		if (ret)
			return -1;
	}
	return 0;
}
