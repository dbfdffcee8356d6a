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

/* a commit as the report names it, from git log */
static void commit_of(const char *tree, const char *commit, struct track_commit *c)
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
	track_commit_release(c);
	c->commit = xstrdup(n ? f[0] : commit);
	c->shortc = xstrdup(shortc);
	c->subject = xstrdup(f[1]);
	c->author = xstrdup(f[2]);
	c->date = xstrdup(f[3]);
	free(out);
}

/* the metric to bisect on: the confirmed test with the smallest p */
static const struct track_test *primary_test(const struct track_confirmation *conf)
{
	const struct track_test *best = NULL;

	for (size_t i = 0; i < conf->ntests; i++) {
		const struct track_test *x = &conf->tests[i];

		if (!x->confirmed)
			continue;
		if (!best || track_or0(x->p) < track_or0(best->p))
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
static unsigned int bisect_n(const struct track *t, const struct track_test *test)
{
	json_int_t n = test->n_before < test->n_after ? test->n_before : test->n_after;

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

static void set_str(char **field, const char *s)
{
	free(*field);
	*field = s ? xstrdup(s) : NULL;
}

/* the bisect engine's result into the entry: done with a first bad commit, or failed */
static void take_result(struct track_bisection *entry, json_t *result, int ret)
{
	struct track_commit first;

	if (result && !track_result_first(result, &first)) {
		track_commit_release(&entry->first);
		entry->first = first;
		entry->has_first = true;
		json_decref(entry->result);
		entry->result = json_incref(result);
		set_str(&entry->status, "done");
	} else if (ret == 2 || ret == 1) {
		set_str(&entry->status, "failed");
		set_str(&entry->why, "the bisection stopped without a first bad commit: 'mmlab "
				     "bisect status' with its state directory");
	}
}

/* the job of a change key ("JOB/BEFORE..AFTER"), or t->def.njobs */
static size_t key_job(const struct track *t, const char *key)
{
	size_t jlen = strcspn(key, "/"), j;

	for (j = 0; j < t->def.njobs; j++)
		if (strlen(t->def.jobs[j].name) == jlen && !strncmp(t->def.jobs[j].name, key, jlen))
			break;
	return j;
}

static int run_bisection(struct track *t, const char *key, const struct track_point *before,
			 const struct track_point *after, const struct track_test *test)
{
	char *name = safe_name(key), *dir = xasprintf("%s/bisect/%s", t->dir, name);
	struct bisect_env env = { .results_dir = t->env->results_dir,
				  .state_dir = dir,
				  .cache_dir = t->env->cache_dir,
				  .connect_uri = t->env->connect_uri };
	double up = test->mean_after - test->mean_before;
	size_t j = key_job(t, key);
	const struct track_slot *slot =
		j < t->def.njobs ?
			track_point_slot((struct track_point *)after, t->def.jobs[j].name) :
			NULL;
	char *jdir = NULL, *progress = NULL;
	struct bisect_params p = { 0 };
	struct track_bisection *entry;
	json_t *result = NULL;
	int ret = -1;

	if (!slot || !slot->job_file)
		goto out;
	jdir = track_job_dir(t, j);
	if (!path_exists(dir)) {
		struct bisect_start_args a = {
			.job = slot->job_file,
			.job_dir = jdir,
			.good = before->commit,
			.bad = after->commit,
			.metric = test->metric,
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
	entry = track_state_bisect(&t->state, key);
	set_str(&entry->dir, dir);
	set_str(&entry->status, "running");
	if (track_save(t))
		goto out;
	ret = bisect_run(&env, &result);
	take_result(track_state_bisect(&t->state, key), result, ret);
	ret = track_save(t);
out:
	bisect_params_release(&p);
	json_decref(result);
	free(jdir);
	free(dir);
	free(name);
	return ret;
}

static int bisect_key(struct track *t, const char *key, const struct track_confirmation *conf)
{
	struct track_bisection *entry = track_state_bisect(&t->state, key);
	const char *k2 = strstr(key, "/");
	const struct track_test *test = primary_test(conf);
	struct track_point *before, *after;
	char *ids = xstrdup(k2 ? k2 + 1 : key), *dots = strstr(ids, "..");
	long n;
	int ret = 0;

	if (entry && entry->status && strcmp(entry->status, "running"))
		goto out;
	if (!dots || !test)
		goto out;
	*dots = '\0';
	before = track_point(t, ids);
	after = track_point(t, dots + 2);
	if (!before || !after || !before->commit || !after->commit || !t->def.tree)
		goto out;
	entry = track_state_bisect_add(&t->state, key);
	n = commits_between(t->def.tree, before->commit, after->commit);
	if (n < 0) {
		ret = -1;
		goto out;
	}
	entry->has_range = true;
	entry->range_commits = n;
	if (n <= 1) {
		commit_of(t->def.tree, after->commit, &entry->first);
		entry->has_first = true;
		set_str(&entry->status, "done");
		set_str(&entry->why, "the two kernels are one commit apart");
		ret = track_save(t);
		goto out;
	}
	ret = run_bisection(t, key, before, after, test);
out:
	free(ids);
	return ret;
}

int track_bisect(struct track *t)
{
	t->state.has_bisect = true;
	for (size_t i = 0; i < t->state.nconfirm; i++) {
		const struct track_confirmation *e = &t->state.confirm[i];

		if (strcmp(e->status ?: "", "confirmed"))
			continue;
		if (bisect_key(t, e->key, e))
			return -1;
	}
	return 0;
}
