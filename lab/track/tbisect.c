// SPDX-License-Identifier: GPL-2.0
/*
 * tbisect.c - a confirmed change between two commits of the tree names its
 * first bad commit (docs/track.md, "Bisection"): when the two kernels are
 * one commit apart, that commit; when they are further apart, "mmlab
 * bisect" on the change's metric between them, with the existing engine
 * and its statistics, its state in the track's bisect/KEY/ (so a user's own
 * bisection in RESULTS/bisect/ and the track's do not meet). A bisection
 * interrupted goes on where it stopped at the next "track run".
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/params.h"
#include "bisect/session.h"
#include "track/internal.h"

/* the commits in before..after, or -1 after a message */
static long commits_between(const char *tree, const char *before, const char *after)
{
	char *range = xasprintf("%s..%s", before, after);
	const char *args[] = { "rev-list", "--count", range, NULL };
	char *out = track_git(tree, args);
	long n = out ? strtol(out, NULL, 10) : -1;

	free(out);
	free(range);
	return n;
}

/* {"commit", "short", "subject", "author", "date"} of a commit */
static json_t *commit_json(const char *tree, const char *commit)
{
	const char *args[] = { "log", "-1", "--format=%H%n%s%n%an <%ae>%n%aI", commit, NULL };
	char *out = track_git(tree, args), *save = NULL;
	const char *f[4] = { "", "", "", "" };
	char shortc[16];
	size_t n = 0;

	for (char *l = out ? strtok_r(out, "\n", &save) : NULL; l && n < 4;
	     l = strtok_r(NULL, "\n", &save))
		f[n++] = l;
	snprintf(shortc, sizeof(shortc), "%.12s", commit);
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit", n ? f[0] : commit, "short",
			      shortc, "subject", f[1], "author", f[2], "date", f[3]);
	free(out);
	return j;
}

/* the metric to bisect on: the confirmed test with the smallest p */
static json_t *primary_test(json_t *conf)
{
	json_t *best = NULL, *x;
	size_t i;

	json_array_foreach(json_object_get(conf, "tests"), i, x) {
		if (!json_is_true(json_object_get(x, "confirmed")))
			continue;
		if (!best || json_number_value(json_object_get(x, "p")) <
				     json_number_value(json_object_get(best, "p")))
			best = x;
	}
	return best;
}

/*
 * Iterations per commit of the bisection: as many as the confirmation
 * measured of each kernel (the smaller side), at least the track's and 3.
 * The bisect engine first measures the endpoints and refuses them when
 * they do not differ; with 2 iterations Welch's test has 1 degree of
 * freedom, and a change of 0 -> 11 +- 1.4 came out at p = 0.0577.
 */
static unsigned int bisect_n(const struct track *t, json_t *test)
{
	json_int_t nb = json_integer_value(json_object_get(test, "n_before"));
	json_int_t na = json_integer_value(json_object_get(test, "n_after"));
	json_int_t n = nb < na ? nb : na;

	if (n < (json_int_t)t->def.iterations)
		n = t->def.iterations;
	if (n < 3)
		n = 3;
	return n > 100 ? 100 : (unsigned int)n;
}

static char *safe_name(const char *key)
{
	char *s = xstrdup(key);

	for (char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '.' && *c != '_')
			*c = '_';
	return s;
}

static int run_bisection(struct track *t, const char *key, json_t *entry, json_t *before,
			 json_t *after, json_t *test)
{
	char *name = safe_name(key), *dir = xasprintf("%s/bisect/%s", t->dir, name);
	const char *job = key;
	size_t jlen = strcspn(key, "/"), j;
	struct bisect_env env = { .results_dir = t->env->results_dir,
				  .state_dir = dir,
				  .cache_dir = t->env->cache_dir,
				  .connect_uri = t->env->connect_uri };
	double up = json_number_value(json_object_get(test, "mean_after")) -
		    json_number_value(json_object_get(test, "mean_before"));
	char *job_file = NULL, *jdir = NULL, *progress = NULL;
	enum bisect_failure why = BISECT_FAIL_RUN;
	struct bisect_params p = { 0 };
	json_t *result = NULL;
	int ret = -1;

	for (j = 0; j < t->def.njobs; j++)
		if (strlen(t->def.jobs[j].name) == jlen && !strncmp(t->def.jobs[j].name, job, jlen))
			break;
	if (j == t->def.njobs)
		goto out;
	{
		const char *jf = json_string_value(json_object_get(
			json_object_get(
				json_object_get(json_object_get(t->state, "runs"),
						json_string_value(json_object_get(after, "id"))),
				t->def.jobs[j].name),
			"job_file"));

		if (!jf)
			goto out;
		job_file = xstrdup(jf);
	}
	jdir = track_job_dir(t, j);
	if (!path_exists(dir)) {
		struct bisect_start_args a = {
			.job = job_file,
			.job_dir = jdir,
			.good = json_string_value(json_object_get(before, "commit")),
			.bad = json_string_value(json_object_get(after, "commit")),
			.metric = json_string_value(json_object_get(test, "metric")),
			.better = up > 0 ? -1 : 1,
			.min_change = t->def.min_rel,
			.alpha = t->def.alpha,
			.iterations = bisect_n(t, test),
		};

		lab_info("track %s: bisecting %s on %s", t->def.name, key, a.metric);
		if (bisect_start(&env, &a, &p, &progress))
			goto out;
		free(progress);
	}
	json_object_set_new(entry, "dir", json_string(dir));
	json_object_set_new(entry, "status", json_string("running"));
	if (track_save(t))
		goto out;
	ret = bisect_run(&env, &result, &why);
	if (result && json_is_object(json_object_get(result, "first"))) {
		json_object_set(entry, "first", json_object_get(result, "first"));
		json_object_set(entry, "result", result);
		json_object_set_new(entry, "status", json_string("done"));
	} else if (ret && why != BISECT_FAIL_INTERRUPTED) {
		json_object_set_new(entry, "status", json_string("failed"));
		json_object_set_new(entry, "why",
				    json_string("the bisection stopped without a first bad commit: "
						"'mmlab bisect status' with its state directory"));
	}
	ret = track_save(t);
out:
	bisect_params_release(&p);
	json_decref(result);
	free(job_file);
	free(jdir);
	free(dir);
	free(name);
	return ret;
}

static int bisect_key(struct track *t, const char *key, json_t *conf)
{
	json_t *bis = json_object_get(t->state, "bisect"), *entry = json_object_get(bis, key);
	const char *st = json_string_value(json_object_get(entry, "status"));
	const char *k2 = strstr(key, "/");
	json_t *test = primary_test(conf), *before, *after;
	char *ids = xstrdup(k2 ? k2 + 1 : key), *dots = strstr(ids, "..");
	long n;
	int ret = 0;

	if (st && strcmp(st, "running"))
		goto out;
	if (!dots || !test)
		goto out;
	*dots = '\0';
	before = track_point(t, ids);
	after = track_point(t, dots + 2);
	if (!before || !after || !json_object_get(before, "commit") ||
	    !json_object_get(after, "commit") || !t->def.tree)
		goto out;
	if (!entry) {
		entry = json_object();
		json_object_set_new(bis, key, entry);
	}
	n = commits_between(t->def.tree, json_string_value(json_object_get(before, "commit")),
			    json_string_value(json_object_get(after, "commit")));
	if (n < 0) {
		ret = -1;
		goto out;
	}
	json_object_set_new(entry, "range_commits", json_integer(n));
	if (n <= 1) {
		json_object_set_new(entry, "first",
				    commit_json(t->def.tree, json_string_value(json_object_get(
								     after, "commit"))));
		json_object_set_new(entry, "status", json_string("done"));
		json_object_set_new(entry, "why",
				    json_string("the two kernels are one commit apart"));
		ret = track_save(t);
		goto out;
	}
	ret = run_bisection(t, key, entry, before, after, test);
out:
	free(ids);
	return ret;
}

int track_bisect(struct track *t)
{
	json_t *conf = json_object_get(t->state, "confirm"), *e;
	const char *key;

	if (!json_is_object(json_object_get(t->state, "bisect")))
		json_object_set_new(t->state, "bisect", json_object());
	json_object_foreach(conf, key, e) {
		if (strcmp(json_string_value(json_object_get(e, "status")) ?: "", "confirmed"))
			continue;
		if (bisect_key(t, key, e))
			return -1;
	}
	return 0;
}
