// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - a bisection's directory (RESULTS/bisect), its lock, its git
 * worktree and git's bisect commands there; the 'start' half that makes
 * them, 'reset', 'status' and 'log'. See session.h and internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bisect/bisect_git.h"
#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "bisect/step_json.h"
#include "analysis/expr.h"
#include "kernel/gitops.h"
#include "store/store.h"
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/util.h"

/* the open bisection --------------------------------------------------------- */

void session_init(struct bisect_session *s, const struct bisect_env *env)
{
	memset(s, 0, sizeof(*s));
	s->env = env;
	s->lock_fd = -1;
	s->dir = env->state_dir ? xstrdup(env->state_dir) :
				  xasprintf("%s/bisect", env->results_dir);
	s->wt = xasprintf("%s/wt", s->dir);
	s->lock = xasprintf("%s/lock", s->dir);
}

void session_close(struct bisect_session *s)
{
	if (s->metric)
		expr_free(s->metric);
	if (s->sig_mode)
		expect_release(&s->sig);
	if (s->store)
		store_close(s->store);
	bstore_close(s->bs);
	bisect_state_release(&s->state);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->dir);
	free(s->wt);
	free(s->lock);
	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
}

/* the mode and the rules of the loaded parameters; 0 or -1 after a message */
static int load_mode(struct bisect_session *s)
{
	const struct bisect_params *p = &s->state.params;
	char err[256];

	s->p = p;
	s->rule.alpha = p->alpha;
	s->rule.min_change = p->min_change;
	s->rule.better = p->better;
	s->rule.near = 1.0 / 3;
	if (p->metric) {
		s->metric = expr_parse(p->metric, err, sizeof(err));
		if (!s->metric) {
			lab_err("--metric '%s': %s", p->metric, err);
			return -1;
		}
	} else {
		if (expect_from_signature(p->signature, p->k, &s->sig, err, sizeof(err))) {
			lab_err("--signature: %s", err);
			return -1;
		}
		s->sig_mode = true;
	}
	return 0;
}

int session_open(struct bisect_session *s, const struct bisect_env *env)
{
	int rc;

	session_init(s, env);
	s->bs = bstore_open(s->dir, false);
	if (!s->bs)
		return -1;
	rc = bstore_load(s->bs, &s->state);
	if (rc > 0)
		lab_err("no bisection in %s; start one with 'mmlab bisect start'", s->dir);
	if (rc)
		return -1;
	return load_mode(s);
}

int session_lock(struct bisect_session *s, const char *what)
{
	s->lock_fd = open(s->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0) {
		lab_err("cannot open %s: %s", s->lock, strerror(errno));
		return -1;
	}
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB)) {
		lab_err("another 'mmlab bisect run' is working on %s; %s", s->dir, what);
		return -1;
	}
	return 0;
}

int session_set_progress(struct bisect_session *s, const char *out)
{
	free(s->state.progress);
	s->state.progress = xstrdup(out);
	return bstore_set_progress(s->bs, out);
}

int session_tell_git(struct bisect_session *s, const char *term, const char *commit, char **out)
{
	const char *args[] = { "bisect", term, commit, NULL };
	int rc = bisect_git(s->wt, args, out);

	if (rc != 0 && !bisect_git_finished(*out, session_new_term(s))) {
		lab_err("bisect: 'git bisect %s %.12s' failed in %s: %s", term, commit, s->wt,
			*out);
		return -1;
	}
	return session_set_progress(s, *out);
}

/* making and removing the bisection -------------------------------------------- */

/* remove the worktree wt of tree (and git's record of it) */
static void remove_worktree(const char *tree, const char *wt)
{
	const char *rm[] = { "worktree", "remove", "--force", wt, NULL };
	const char *prune[] = { "worktree", "prune", NULL };

	if (tree)
		git_run(tree, rm, NULL);
	rm_rf(wt);
	if (tree)
		git_run(tree, prune, NULL);
}

/* git bisect start (or replay); its output in *out */
static int git_start(struct bisect_session *s, const struct bisect_params *p,
		     const char *replay_file, char **out)
{
	const char *start[24] = { "bisect", "start", "--no-checkout" };
	const char *replay[] = { "bisect", "replay", replay_file, NULL };
	size_t n = 3;

	if (replay_file) {
		if (bisect_git(s->wt, replay, out) &&
		    !bisect_git_finished(*out, p->reverse ? "fixed" : "bad")) {
			lab_err("git bisect replay %s failed: %s", replay_file, *out);
			return -1;
		}
		return 0;
	}
	if (p->reverse) {
		start[n++] = "--term-old=broken";
		start[n++] = "--term-new=fixed";
	}
	start[n++] = p->reverse ? p->good : p->bad;
	start[n++] = p->reverse ? p->bad : p->good;
	start[n++] = "--";
	for (size_t i = 0; i < p->paths.n && n < ARRAY_SIZE(start) - 1; i++)
		start[n++] = p->paths.v[i];
	start[n] = NULL;
	if (bisect_git(s->wt, start, out)) {
		lab_err("git bisect start failed: %s", *out);
		return -1;
	}
	return 0;
}

/* the state: the parameters, git's output, the steps of a log */
static int fill_state(struct bisect_session *s, const struct bisect_params *p, json_t *steps,
		      const char *out)
{
	json_t *st;
	size_t i;

	s->bs = bstore_open(s->dir, true);
	if (!s->bs || bstore_create(s->bs, p) || bstore_set_progress(s->bs, out))
		return -1;
	json_array_foreach(steps, i, st) {
		struct step_row r;

		step_row_from_json(st, &r);
		if (bstore_step_add_done(s->bs, r.commit, r.role, r.data, r.started, r.finished))
			return -1;
	}
	if (bstore_load(s->bs, &s->state))
		return -1;
	return load_mode(s);
}

/* a failed create leaves neither a worktree nor a state behind */
static void undo_create(struct bisect_session *s, const char *tree)
{
	char *db = xasprintf("%s/bisect.db", s->dir);
	char *wal = xasprintf("%s-wal", db), *shm = xasprintf("%s-shm", db);

	bstore_close(s->bs);
	s->bs = NULL;
	remove_worktree(tree, s->wt);
	unlink(db);
	unlink(wal);
	unlink(shm);
	free(db);
	free(wal);
	free(shm);
}

static int list_create(struct bisect_session *s, const struct bisect_params *p, json_t *steps,
		       char **out)
{
	char *progress = NULL;
	int ret = fill_state(s, p, steps, "");

	if (!ret) {
		progress = bisect_list_progress(s, NULL);
		ret = session_set_progress(s, progress) || bisect_write_log(s) ? -1 : 0;
	}
	if (ret) {
		undo_create(s, NULL);
		free(progress);
		return -1;
	}
	*out = progress;
	return 0;
}

int session_create(struct bisect_session *s, const struct bisect_env *env,
		   const struct bisect_params *p, json_t *steps, const char *replay_file,
		   char **out)
{
	const char *add[] = { "worktree", "add", "--detach", "--no-checkout", NULL, NULL, NULL };
	char *dbpath;

	session_init(s, env);
	*out = NULL;
	dbpath = xasprintf("%s/bisect.db", s->dir);
	if (path_exists(dbpath)) {
		lab_err("a bisection is already in %s; 'mmlab bisect status' shows it, "
			"'mmlab bisect reset' ends it",
			s->dir);
		free(dbpath);
		return -1;
	}
	free(dbpath);
	if (path_exists(s->wt))
		remove_worktree(p->tree, s->wt);
	if (mkdir_p(s->dir, 0755))
		return -1;
	if (bisect_is_list(p)) /* no git: the search is bisect_list.c's */
		return list_create(s, p, steps, out);
	add[4] = s->wt;
	add[5] = p->reverse ? p->good : p->bad;
	if (bisect_git(p->tree, add, out)) {
		lab_err("cannot make the bisect worktree %s of %s: %s", s->wt, p->tree, *out);
		return -1;
	}
	free(*out);
	*out = NULL;
	if (git_start(s, p, replay_file, out) || fill_state(s, p, steps, *out) ||
	    bisect_write_log(s)) {
		undo_create(s, p->tree);
		return -1;
	}
	return 0;
}

/* reset, status, log ----------------------------------------------------------- */

int bisect_reset(const struct bisect_env *env, char **kept, enum bisect_failure *why)
{
	struct bisect_session s;
	char stamp[TIME_STR_LEN], *to;
	int ret = 0;

	*kept = NULL;
	*why = BISECT_FAIL_RUN;
	if (session_open(&s, env) || session_lock(&s, "stop it before resetting")) {
		session_close(&s);
		*why = BISECT_FAIL_USAGE;
		return -1;
	}
	remove_worktree(s.p->tree, s.wt);
	if (bisect_is_list(s.p) && s.p->tree) { /* --tree's commit bisection in tree/ */
		char *wt = xasprintf("%s/tree/wt", s.dir);

		if (path_exists(wt))
			remove_worktree(s.p->tree, wt);
		free(wt);
	}
	time_stamp(time(NULL), true, stamp);
	to = xasprintf("%s-%s", s.dir, stamp);
	/* two resets in one second: the second gets a suffix */
	for (int i = 2; path_exists(to) && i < 1000; i++) {
		free(to);
		to = xasprintf("%s-%s-%d", s.dir, stamp, i);
	}
	if (rename(s.dir, to)) {
		lab_err("cannot move %s to %s: %s", s.dir, to, strerror(errno));
		ret = -1;
		free(to);
	} else {
		*kept = to;
	}
	session_close(&s);
	return ret;
}

int bisect_status(const struct bisect_env *env, bool with_result, struct bisect_report *r)
{
	struct bisect_session s;

	memset(r, 0, sizeof(*r));
	if (session_open(&s, env)) {
		session_close(&s);
		return -1;
	}
	r->steps = bstore_steps(s.bs);
	bstore_step_list(s.bs, &r->rows);
	if (with_result) {
		json_t *res = bisect_make_result(&s, NULL);

		/* made here: it reads */
		r->has_result = !bisect_result_from_json(res, &r->result);
		json_decref(res);
	}
	/* the state moves to the report */
	r->state = s.state;
	memset(&s.state, 0, sizeof(s.state));
	session_close(&s);
	return 0;
}

void bisect_report_release(struct bisect_report *r)
{
	bisect_state_release(&r->state);
	json_decref(r->steps);
	bisect_result_release(&r->result);
	bstore_steps_release(&r->rows);
	memset(r, 0, sizeof(*r));
}

json_t *bisect_report_json(const struct bisect_report *r)
{
	json_t *o = bisect_state_json(&r->state);

	json_object_set(o, "steps", r->steps);
	return o;
}

char *bisect_log(const struct bisect_env *env, size_t *len)
{
	char *path = env->state_dir ? xasprintf("%s/bisect.log", env->state_dir) :
				      xasprintf("%s/bisect/bisect.log", env->results_dir);
	char *text = path_exists(path) ? read_file(path, len, 64u << 20) : NULL;

	if (!text)
		lab_err("no bisect log at %s; start a bisection with 'mmlab bisect start'", path);
	free(path);
	return text;
}
