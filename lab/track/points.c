// SPDX-License-Identifier: GPL-2.0
/*
 * points.c - the series of a track: a branch's first-parent commits from
 * since: (every Nth, and always the newest), the tags matching a glob in
 * version order, or the file's list. Points are only ever appended to the
 * state: a point once measured keeps its place and its runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "track/internal.h"

#define GIT_OUT_MAX (16u << 20)

char *track_git(const char *tree, const char *const *args)
{
	const char *argv[16] = { "git", "-C", tree };
	struct spawn_opts so = { .timeout_s = 300, .capture_max = GIT_OUT_MAX };
	struct spawn_result r;
	size_t n = 3;
	char *out = NULL;

	for (size_t i = 0; args[i] && n + 1 < ARRAY_SIZE(argv); i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (spawn_run(argv, &so, &r)) {
		lab_err("git in %s could not be started", tree);
		return NULL;
	}
	if (r.exit_code == 0)
		out = xstrdup(r.out ? r.out : "");
	else
		lab_err("git %s %s in %s failed: %s", args[0], args[1] ? args[1] : "", tree,
			spawn_tail(&r, 3));
	spawn_result_free(&r);
	return out;
}

/* the subject of a commit (malloc'd), or NULL */
static char *subject(const char *tree, const char *commit)
{
	const char *args[] = { "log", "-1", "--format=%s", commit, NULL };
	char *s = track_git(tree, args), *nl;

	if (s && (nl = strchr(s, '\n')))
		*nl = '\0';
	return s;
}

/* the commit a ref names (41 bytes into out), or -1 after a message */
static int rev_parse(const char *tree, const char *ref, char out[41])
{
	char *arg = xasprintf("%s^{commit}", ref);
	const char *args[] = { "rev-parse", "--verify", "--quiet", arg, NULL };
	char *s = track_git(tree, args);

	free(arg);
	if (!s || strlen(s) < 40) {
		if (s)
			lab_err("%s: no such commit in %s", ref, tree);
		free(s);
		return -1;
	}
	memcpy(out, s, 40);
	out[40] = '\0';
	free(s);
	return 0;
}

static json_t *commit_point(const char *tree, const char *sha, const char *tag)
{
	char label[16], *subj = subject(tree, sha);
	json_t *pt;

	snprintf(label, sizeof(label), "%.12s", sha);
	/* a tag names its point when it can name a variant and a file too */
	if (tag && (strlen(tag) > 64 ||
		    strspn(tag, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				"0123456789._-") != strlen(tag) ||
		    tag[0] == '.' || tag[0] == '-'))
		tag = NULL;
	pt = json_pack("{s:s, s:s, s:s, s:{s:s}}", "id", sha, "label", tag ? tag : label, "commit",
		       sha, "set", "ref", sha);
	if (subj)
		json_object_set_new(pt, "subject", json_string(subj));
	free(subj);
	return pt;
}

/* the commits of since..branch (first parent), oldest first, with since itself */
static json_t *branch_points(const struct track_def *d)
{
	char base[41], *range, *out, *save = NULL;
	const char *args[] = { "rev-list", "--first-parent", "--reverse", NULL, NULL };
	json_t *all = json_array(), *pts;
	size_t n;

	if (rev_parse(d->tree, d->since, base))
		goto fail;
	range = xasprintf("%s..%s", base, d->branch);
	args[3] = range;
	out = track_git(d->tree, args);
	free(range);
	if (!out)
		goto fail;
	json_array_append_new(all, json_string(base));
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strlen(l) == 40)
			json_array_append_new(all, json_string(l));
	free(out);
	n = json_array_size(all);
	if (n > TRACK_MAX_POINTS * (size_t)d->every) {
		lab_err("%s..%s holds %zu commits; a track takes at most %d points: raise every: "
			"or move since: later",
			d->since, d->branch, n, TRACK_MAX_POINTS);
		goto fail;
	}
	pts = json_array();
	for (size_t i = 0; i < n; i++)
		if (i % d->every == 0 || i + 1 == n)
			json_array_append_new(
				pts, commit_point(d->tree,
						  json_string_value(json_array_get(all, i)), NULL));
	json_decref(all);
	return pts;
fail:
	json_decref(all);
	return NULL;
}

static json_t *tag_points(const struct track_def *d)
{
	const char *args[] = { "tag", "-l", "--sort=version:refname", d->tags, NULL };
	char *out = track_git(d->tree, args), *save = NULL;
	json_t *pts;

	if (!out)
		return NULL;
	pts = json_array();
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char sha[41];

		if (json_array_size(pts) >= TRACK_MAX_POINTS || rev_parse(d->tree, l, sha))
			break;
		json_array_append_new(pts, commit_point(d->tree, sha, l));
	}
	free(out);
	return pts;
}

/* the file's list: each point's settings as given, refs resolved to commits */
static json_t *list_points(const struct track_def *d)
{
	json_t *pts = json_array(), *p;
	size_t i;

	json_array_foreach(d->list, i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		const char *ref = json_string_value(json_object_get(p, "ref"));
		json_t *set = json_deep_copy(p), *pt;
		char sha[41];

		json_object_del(set, "name");
		pt = json_pack("{s:s, s:s, s:o}", "id", name, "label", name, "set", set);
		if (ref) {
			if (!d->tree) {
				lab_err("%s: kernels.list[%zu] has ref: %s but kernels.tree is not "
					"given",
					d->file, i, ref);
				json_decref(pt);
				json_decref(pts);
				return NULL;
			}
			if (rev_parse(d->tree, ref, sha)) {
				json_decref(pt);
				json_decref(pts);
				return NULL;
			}
			json_object_set_new(pt, "commit", json_string(sha));
			json_object_set_new(set, "ref", json_string(sha));
		}
		json_array_append_new(pts, pt);
	}
	return pts;
}

json_t *track_point(struct track *t, const char *id)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(t->state, "points"), i, p) {
		if (!strcmp(json_string_value(json_object_get(p, "id")), id))
			return p;
	}
	return NULL;
}

int track_points_update(struct track *t, size_t *added)
{
	const struct track_def *d = &t->def;
	json_t *want = d->list ? list_points(d) : d->tags ? tag_points(d) : branch_points(d);
	json_t *have = json_object_get(t->state, "points"), *p;
	char now[TIME_STR_LEN];
	size_t i;

	*added = 0;
	if (!want)
		return -1;
	time_iso_now(now);
	json_array_foreach(want, i, p) {
		const char *id = json_string_value(json_object_get(p, "id"));

		if (track_point(t, id))
			continue;
		json_object_set_new(p, "added", json_string(now));
		json_array_append(have, p);
		(*added)++;
	}
	json_decref(want);
	return 0;
}
