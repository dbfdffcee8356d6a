/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect_store.h - the state of a bisection, in SQLite (WAL) at
 * RESULTS/bisect/bisect.db next to the lab's git worktree that holds git's
 * own bisect state (docs/bisect.md, "State"):
 *
 *   bisect(id = 1, params, status, progress, result, started, finished)
 *   steps(seq, commit_id, role, state, data, started, finished)
 *
 * role is "good" or "bad" (the endpoint measurements) or "step"; state is
 * "running" (measuring), "decided" (verdict stored, git not told yet) or
 * "done". data is a JSON object: runs, values, verdict, why, builds, ...
 * Every change is one transaction with synchronous=FULL: after a kill -9
 * the state is the last change made.
 */
#ifndef MMLAB_BISECT_STORE_H
#define MMLAB_BISECT_STORE_H

#include <stdbool.h>

#include <jansson.h>

struct bstore;

/* open dir/bisect.db (create: make it and its tables); NULL + message */
struct bstore *bstore_open(const char *dir, bool create);
void bstore_close(struct bstore *b);

/* the one bisection: start it (params, status "started"), read and update it */
int bstore_init(struct bstore *b, json_t *params);
/* {"params", "status", "progress", "result", "started", "finished"}, NULL when none */
json_t *bstore_get(struct bstore *b);
/* status (and result when not NULL; finished is set when result is) */
int bstore_set_status(struct bstore *b, const char *status, json_t *result);
int bstore_set_progress(struct bstore *b, const char *text);

/*
 * The step row of (commit, role) that is not done, or a new one (state
 * "running"). Returns its seq, -1 after a message.
 */
long long bstore_step_open(struct bstore *b, const char *commit, const char *role);
/* replace a step's state and data (finished is set when state is "done") */
int bstore_step_set(struct bstore *b, long long seq, const char *state, json_t *data);
/* insert a finished step as read from a log (replay) */
int bstore_step_add_done(struct bstore *b, const char *commit, const char *role,
			 json_t *data, double started, double finished);
/* [{"seq", "commit", "role", "state", "data", "started", "finished"}] by seq */
json_t *bstore_steps(struct bstore *b);

#endif
