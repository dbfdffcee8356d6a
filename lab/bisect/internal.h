/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of the bisect engine share (session.h is
 * what the command sees): the open bisection, git in its worktree, the
 * data of a measured step, the result and the log. For the files of
 * lab/bisect/ and their unit tests only.
 */
#ifndef MMLAB_BISECT_INTERNAL_H
#define MMLAB_BISECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "bisect/bisect.h"
#include "bisect/bisect_store.h"
#include "bisect/params.h"
#include "bisect/session.h"
#include "repro/recipe.h"

#define BISECT_LOG_TAG "# mmlab-bisect "

/* an open bisection (session.c) */
struct bisect_session {
	const struct bisect_env *env;
	char *dir, *wt, *lock; /* RESULTS/bisect, its wt/ and lock */
	int lock_fd;
	struct bstore *bs;
	struct bisect_state state;
	const struct bisect_params *p; /* &state.params */
	struct store *store; /* the results store, while measuring */
	struct expr *metric; /* metric mode */
	struct expectation sig; /* pass/fail mode */
	bool sig_mode;
	struct bisect_rule rule;
};

/* the paths of env's bisection; nothing opened */
void session_init(struct bisect_session *s, const struct bisect_env *env);
/* open the existing bisection: 0, or -1 after a message */
int session_open(struct bisect_session *s, const struct bisect_env *env);
void session_close(struct bisect_session *s);
/* one holder at a time (bisect run, reset); what says what to do instead */
int session_lock(struct bisect_session *s, const char *what);
/*
 * A new bisection of p: the worktree, git bisect start (or replay of
 * replay_file), the state with steps (done steps read from a log, may be
 * NULL) and the log. git's output in *out. 0, or -1 after a message with
 * nothing left behind.
 */
int session_create(struct bisect_session *s, const struct bisect_env *env,
		   const struct bisect_params *p, json_t *steps, const char *replay_file,
		   char **out);
/* git's last output, kept in the state */
int session_set_progress(struct bisect_session *s, const char *out);

/* git bisect TERM COMMIT; its output (also kept as progress) in *out */
int session_tell_git(struct bisect_session *s, const char *term, const char *commit, char **out);

/*
 * Decide a step from its data and the endpoints' in steps: the call and
 * why; *final false when it is unsure and may grow. Sets "position" and
 * "p_wrong" in data.
 */
enum bisect_call step_decide(struct bisect_session *s, const struct bstore_steps *steps,
			     json_t *data, char *why, size_t len, bool *final);
/* are the endpoints worth bisecting? why gets the numbers */
bool step_endpoints_ok(struct bisect_session *s, char *why, size_t len);

/* result.c; a new reference */
json_t *bisect_make_result(struct bisect_session *s, const char *out);
/* git finished: store the result and the log; 0, or -1 without a first bad commit */
int bisect_conclude(struct bisect_session *s, const char *out, json_t **result);
int bisect_write_log(struct bisect_session *s);
/*
 * A log's "# mmlab-bisect" lines: *params the last params line's object
 * (NULL when none), steps gets each step line's object. Lines that are
 * not JSON objects are skipped.
 */
void bisect_log_parse(const char *text, json_t **params, json_t *steps);

#endif
