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

/* the points a series wants, before those the state has are left out */
struct pvec {
	struct track_point *p;
	size_t n;
};

static struct track_point *pvec_add(struct pvec *v)
{
	struct track_point *p;

	v->p = xrealloc(v->p, (v->n + 1) * sizeof(*v->p));
	p = &v->p[v->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

static void pvec_release(struct pvec *v)
{
	struct track_state st = { .points = v->p, .npoints = v->n };

	track_state_release(&st);
	v->p = NULL;
	v->n = 0;
}

static void commit_point(struct track_point *pt, const char *tree, const char *sha, const char *tag)
{
	char label[16];

	snprintf(label, sizeof(label), "%.12s", sha);
	/* a tag names its point when it can name a variant and a file too */
	if (tag && (strlen(tag) > 64 ||
		    strspn(tag, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				"0123456789._-") != strlen(tag) ||
		    tag[0] == '.' || tag[0] == '-'))
		tag = NULL;
	pt->id = xstrdup(sha);
	pt->label = xstrdup(tag ? tag : label);
	pt->commit = xstrdup(sha);
	pt->set = json_pack("{s:s}", "ref", sha);
	pt->subject = subject(tree, sha);
}

/* the commits of since..branch (first parent), oldest first, with since itself */
static int branch_points(const struct track_def *d, struct pvec *pts)
{
	char base[41], *range, *out, *save = NULL;
	const char *args[] = { "rev-list", "--first-parent", "--reverse", NULL, NULL };
	struct strlist all = { 0 };
	int ret = -1;

	if (rev_parse(d->tree, d->since, base))
		goto out;
	range = xasprintf("%s..%s", base, d->branch);
	args[3] = range;
	out = track_git(d->tree, args);
	free(range);
	if (!out)
		goto out;
	strlist_push(&all, base);
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strlen(l) == 40)
			strlist_push(&all, l);
	free(out);
	if (all.n > TRACK_MAX_POINTS * (size_t)d->every) {
		lab_err("%s..%s holds %zu commits; a track takes at most %d points: raise every: "
			"or move since: later",
			d->since, d->branch, all.n, TRACK_MAX_POINTS);
		goto out;
	}
	for (size_t i = 0; i < all.n; i++)
		if (i % d->every == 0 || i + 1 == all.n)
			commit_point(pvec_add(pts), d->tree, all.v[i], NULL);
	ret = 0;
out:
	strlist_free(&all);
	return ret;
}

static int tag_points(const struct track_def *d, struct pvec *pts)
{
	const char *args[] = { "tag", "-l", "--sort=version:refname", d->tags, NULL };
	char *out = track_git(d->tree, args), *save = NULL;

	if (!out)
		return -1;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char sha[41];

		if (pts->n >= TRACK_MAX_POINTS || rev_parse(d->tree, l, sha))
			break;
		commit_point(pvec_add(pts), d->tree, sha, l);
	}
	free(out);
	return 0;
}

/* the file's list: each point's settings as given, refs resolved to commits */
static int list_points(const struct track_def *d, struct pvec *pts)
{
	for (size_t i = 0; i < d->nlist; i++) {
		const struct track_list_point *lp = &d->list[i];
		struct track_point *pt = pvec_add(pts);
		char sha[41];

		pt->id = xstrdup(lp->name);
		pt->label = xstrdup(lp->name);
		pt->set = json_deep_copy(lp->set);
		if (!lp->ref)
			continue;
		if (!d->tree) {
			lab_err("%s: kernels.list[%zu] has ref: %s but kernels.tree is not given",
				d->file, i, lp->ref);
			return -1;
		}
		if (rev_parse(d->tree, lp->ref, sha))
			return -1;
		pt->commit = xstrdup(sha);
		json_object_set_new(pt->set, "ref", json_string(sha));
	}
	return 0;
}

int track_points_update(struct track *t, size_t *added)
{
	const struct track_def *d = &t->def;
	struct track_state *st = &t->state;
	struct pvec want = { 0 };
	char now[TIME_STR_LEN];
	int ret = d->list ? list_points(d, &want) :
		  d->tags ? tag_points(d, &want) :
			    branch_points(d, &want);

	*added = 0;
	if (ret) {
		pvec_release(&want);
		return -1;
	}
	time_iso_now(now);
	for (size_t i = 0; i < want.n; i++) {
		struct track_point *p = &want.p[i];

		if (track_point(t, p->id))
			continue;
		st->points = xrealloc(st->points, (st->npoints + 1) * sizeof(*st->points));
		st->points[st->npoints] = *p;
		st->points[st->npoints++].added = xstrdup(now);
		memset(p, 0, sizeof(*p));
		(*added)++;
	}
	pvec_release(&want);
	return 0;
}
