// SPDX-License-Identifier: GPL-2.0
/*
 * bisect_git.c - git in the bisection's worktree: running it, git's terms,
 * reading what it says (bisect_git.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect_git.h"
#include "bisect/internal.h"
#include "kernel/gitops.h"
#include "lib/spawn.h"
#include "lib/util.h"

int bisect_git(const char *dir, const char *const args[], char **out)
{
	struct spawn_result r;
	int rc = git_run(dir, args, &r);

	if (out)
		*out = xstrdup(r.out ? r.out : "");
	spawn_result_free(&r);
	return rc;
}

const char *session_term(const struct bisect_session *s, bool bad)
{
	if (s->p->reverse)
		return bad ? "broken" : "fixed";
	return bad ? "bad" : "good";
}

const char *session_new_term(const struct bisect_session *s)
{
	return s->p->reverse ? "fixed" : "bad";
}

bool bisect_git_finished(const char *out, const char *term)
{
	char *first = xasprintf("is the first %s commit", term);
	bool done = strstr(out, first) || strstr(out, "only 'skip'ped commits left");

	free(first);
	return done;
}

char *bisect_progress_line(const char *out)
{
	const char *p = strstr(out, "Bisecting:");

	if (!p)
		p = out;
	return xstrndup(p, strcspn(p, "\n"));
}

char *bisect_commit_line(const char *tree, const char *commit)
{
	const char *args[] = { "log", "-1", "--no-show-signature", "--format=%h %s", commit, NULL };

	return git_out(tree, args);
}

int session_head(struct bisect_session *s, char **commit)
{
	const char *args[] = { "rev-parse", "--verify", "-q", "BISECT_HEAD", NULL };

	*commit = git_out(s->wt, args);
	if (!*commit) {
		lab_err("bisect: git has no commit to test in %s (BISECT_HEAD); "
			"'mmlab bisect status' shows the state",
			s->wt);
		return -1;
	}
	return 0;
}

bool session_git_has_verdict(struct bisect_session *s, const char *commit)
{
	const char *args[] = { "bisect", "log", NULL };
	const char *terms[] = { session_term(s, false), session_term(s, true), "skip" };
	char *log = NULL;
	bool has = false;

	if (bisect_git(s->wt, args, &log) == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(terms) && !has; i++) {
			char *needle = xasprintf("git bisect %s %s\n", terms[i], commit);

			has = strstr(log, needle) != NULL;
			free(needle);
		}
	}
	free(log);
	return has;
}
