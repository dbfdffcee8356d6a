/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect_git.h - git in the bisection's worktree (bisect_git.c). For the
 * files of lab/bisect/ and their unit tests only.
 */
#ifndef MMLAB_BISECT_GIT_H
#define MMLAB_BISECT_GIT_H

#include <stdbool.h>

struct bisect_session;

/* git ARGS in dir; its output in *out (may be NULL); git's exit status */
int bisect_git(const char *dir, const char *const args[], char **out);
/* git's term for a commit judged good or bad: good/bad; with --reverse fixed/broken */
const char *session_term(const struct bisect_session *s, bool bad);
/* the term of the commit git looks for: bad, or fixed */
const char *session_new_term(const struct bisect_session *s);
/* git's output says it is finished: the first new commit, or only skips left */
bool bisect_git_finished(const char *out, const char *term);
/* "abc123def456 subject" of commit, NULL after a message */
char *bisect_commit_line(const char *tree, const char *commit);
/* the commit git wants tested next */
int session_head(struct bisect_session *s, char **commit);
/* git's verdict on commit is in its log already (a kill came after telling it) */
bool session_git_has_verdict(struct bisect_session *s, const char *commit);

#endif
