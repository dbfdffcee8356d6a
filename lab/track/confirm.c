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

/* the two variants: each point's settings under its label */
static json_t *pair_variants(json_t *before, json_t *after)
{
	return json_pack("[{s:O, s:O}, {s:O, s:O}]", "name", json_object_get(before, "label"),
			 "set", json_object_get(before, "set"), "name",
			 json_object_get(after, "label"), "set", json_object_get(after, "set"));
}

/* the metrics of the significant candidates of key, comma-joined (malloc'd) */
static char *key_metrics(json_t *cands, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *c;
	size_t i;

	json_array_foreach(cands, i, c) {
		char *k = track_change_key(json_string_value(json_object_get(c, "job")),
					   json_string_value(json_object_get(c, "before")),
					   json_string_value(json_object_get(c, "after")));

		if (json_is_true(json_object_get(c, "significant")) && !strcmp(k, key))
			strbuf_addsep(&sb, ",", json_string_value(json_object_get(c, "metric")));
		free(k);
	}
	return strbuf_detach(&sb);
}

/* the confirmation run of key: created, or found and resumed; its id (malloc'd) */
static char *confirm_run(struct track *t, size_t j, const char *key, json_t *before, json_t *after,
			 const char *metrics)
{
	json_t *vars = pair_variants(before, after);
	char *file = xasprintf("confirm--%s--%s..%s.yaml", t->def.jobs[j].name,
			       json_string_value(json_object_get(before, "label")),
			       json_string_value(json_object_get(after, "label")));
	bool existed;
	char *path = track_job_file(t, j, file, vars, t->def.iterations, &existed), *found;
	struct run_opts ro = { .cache_dir = t->env->cache_dir,
			       .connect_uri = t->env->connect_uri,
			       .seeded = true,
			       .until_significant = true,
			       .precision = 0.02,
			       .metrics = metrics };
	struct run_result res = { 0 };
	char *run = NULL;
	int rc;

	json_decref(vars);
	free(file);
	if (!path)
		return NULL;
	ro.seed = (unsigned long)(t->def.seed ^ track_hash("confirm", key));
	ro.max_iterations = t->def.confirm_max ? t->def.confirm_max : 3 * t->def.iterations;
	if (ro.max_iterations < t->def.iterations + 2)
		ro.max_iterations = t->def.iterations + 2;
	found = existed ? track_find_run(t, path) : NULL;
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
	if (res.run_id && !res.interrupted && (rc == 0 || rc == EXIT_RUN_FAILED))
		run = xstrdup(res.run_id);
	else if (!res.interrupted)
		lab_err("track %s: the confirmation run of %s failed (above)", t->def.name, key);
	run_result_release(&res);
	free(found);
	free(path);
	return run;
}

/* compare's test of one metric between the two kernels of the run */
static json_t *test_metric(struct track *t, const char *run, json_t *c, json_t *before,
			   json_t *after)
{
	const char *metric = json_string_value(json_object_get(c, "metric"));
	double *a = xcalloc(CONFIRM_MAX_SAMPLES, sizeof(double));
	double *b = xcalloc(CONFIRM_MAX_SAMPLES, sizeof(double));
	int na = track_samples(t, run, json_string_value(json_object_get(before, "label")), metric,
			       a, CONFIRM_MAX_SAMPLES);
	int nb = track_samples(t, run, json_string_value(json_object_get(after, "label")), metric,
			       b, CONFIRM_MAX_SAMPLES);
	struct stats_summary sa, sb;
	struct stats_test w = { 0 };
	double dir = json_number_value(json_object_get(c, "mean_after")) -
		     json_number_value(json_object_get(c, "mean_before"));
	bool agrees, ok;
	json_t *out;

	stats_summarize(a, na > 0 ? (size_t)na : 0, false, &sa);
	stats_summarize(b, nb > 0 ? (size_t)nb : 0, false, &sb);
	stats_welch(&sa, &sb, 0.95, &w);
	agrees = (sb.mean - sa.mean) * dir > 0;
	ok = w.valid && w.p < t->def.alpha && agrees;
	out = json_pack("{s:s, s:i, s:i, s:f, s:f, s:b, s:b}", "metric", metric, "n_before", na,
			"n_after", nb, "mean_before", sa.mean, "mean_after", sb.mean, "agrees",
			agrees, "confirmed", ok);
	if (w.valid && isfinite(w.p))
		json_object_set_new(out, "p", json_real(w.p));
	if (w.valid && isfinite(w.t))
		json_object_set_new(out, "t", json_real(w.t));
	if (!w.valid)
		json_object_set_new(out, "why", json_string(w.why ? w.why : "no test"));
	if (isfinite(w.rel))
		json_object_set_new(out, "rel", json_real(w.rel));
	if (isfinite(w.ci_low) && isfinite(w.ci_high))
		json_object_set_new(out, "ci", json_pack("[f, f]", w.ci_low, w.ci_high));
	free(a);
	free(b);
	return out;
}

static int confirm_key(struct track *t, json_t *cands, const char *key, json_t *c)
{
	json_t *conf = json_object_get(t->state, "confirm"), *entry, *tests, *x;
	json_t *before = track_point(t, json_string_value(json_object_get(c, "before")));
	json_t *after = track_point(t, json_string_value(json_object_get(c, "after")));
	size_t j = job_index(t, json_string_value(json_object_get(c, "job"))), i;
	char *metrics = key_metrics(cands, key), *run;
	bool any = false;

	if (!before || !after || j == t->def.njobs) {
		free(metrics);
		return 0;
	}
	entry = json_pack("{s:s, s:s}", "status", "running", "metrics", metrics);
	json_object_set_new(conf, key, entry);
	if (track_save(t))
		goto fail;
	run = confirm_run(t, j, key, before, after, metrics);
	if (!run)
		goto fail;
	json_object_set_new(entry, "run", json_string(run));
	tests = json_array();
	json_array_foreach(cands, i, x) {
		char *k = track_change_key(json_string_value(json_object_get(x, "job")),
					   json_string_value(json_object_get(x, "before")),
					   json_string_value(json_object_get(x, "after")));

		if (json_is_true(json_object_get(x, "significant")) && !strcmp(k, key)) {
			json_t *r = test_metric(t, run, x, before, after);

			any |= json_is_true(json_object_get(r, "confirmed"));
			json_array_append_new(tests, r);
		}
		free(k);
	}
	json_object_set_new(entry, "tests", tests);
	json_object_set_new(entry, "status", json_string(any ? "confirmed" : "not confirmed"));
	lab_info("track %s: %s %s (run %s)", t->def.name, key, any ? "confirmed" : "not confirmed",
		 run);
	free(run);
	free(metrics);
	return track_save(t);
fail:
	free(metrics);
	return -1;
}

int track_confirm(struct track *t)
{
	json_t *cands = json_object_get(json_object_get(t->state, "analysis"), "candidates"), *c;
	size_t i;

	if (!json_is_object(json_object_get(t->state, "confirm")))
		json_object_set_new(t->state, "confirm", json_object());
	json_array_foreach(cands, i, c) {
		char *key = track_change_key(json_string_value(json_object_get(c, "job")),
					     json_string_value(json_object_get(c, "before")),
					     json_string_value(json_object_get(c, "after")));
		json_t *e = json_object_get(json_object_get(t->state, "confirm"), key);
		const char *st = json_string_value(json_object_get(e, "status"));
		int ret = 0;

		if (json_is_true(json_object_get(c, "significant")) &&
		    (!st || !strcmp(st, "running")))
			ret = confirm_key(t, cands, key, c);
		free(key);
		if (ret)
			return -1;
	}
	return 0;
}
