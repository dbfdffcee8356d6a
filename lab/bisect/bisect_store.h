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
 *
 * bstore_get() and bstore_init() are the JSON level; the engine reads and
 * starts the bisection through bstore_load() and bstore_create(), which
 * convert the parameters to and from struct bisect_params (params.h) here,
 * at the store boundary.
 */
#ifndef MMLAB_BISECT_STORE_H
#define MMLAB_BISECT_STORE_H

#include <stdbool.h>

#include <jansson.h>

#include "bisect/params.h"
#include "bisect/step_data.h"

struct bstore;

/* the bisection's status, stored by name */
enum bisect_status {
	BISECT_STARTED, /* "started": nothing measured yet */
	BISECT_RUNNING, /* "running": a 'bisect run' went on */
	BISECT_REFUSED, /* "refused": the endpoints do not differ as asked */
	BISECT_FAILED, /* "failed": an endpoint could not be measured */
	BISECT_DONE, /* "done": git named the commit (or only skips are left) */
};
const char *bisect_status_name(enum bisect_status s);

/* the bisection row, typed */
struct bisect_state {
	struct bisect_params params;
	enum bisect_status status;
	char *progress; /* git's last output ("" when none) */
	json_t *result; /* the result, {"refused": why}, or NULL */
	double started; /* unix time */
	double finished; /* unix time, NaN until the result is stored */
};
void bisect_state_release(struct bisect_state *st);
/* {"params", "status", "progress", "result", "started", "finished"} as stored; a new reference */
json_t *bisect_state_json(const struct bisect_state *st);

/* open dir/bisect.db (create: make it and its tables); NULL + message */
struct bstore *bstore_open(const char *dir, bool create);
void bstore_close(struct bstore *b);

/* the one bisection: start it (params, status "started"), read and update it */
int bstore_init(struct bstore *b, json_t *params);
/* {"params", "status", "progress", "result", "started", "finished"}, NULL when none */
/* a new reference */
json_t *bstore_get(struct bstore *b);
/*
 * The bisection, typed: 0; 1 when there is none (no message); -1 after one
 * message when its row does not read as a bisection (a damaged state).
 */
int bstore_load(struct bstore *b, struct bisect_state *st);
/* bstore_init() of p's stored form */
int bstore_create(struct bstore *b, const struct bisect_params *p);
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
int bstore_step_add_done(struct bstore *b, const char *commit, const char *role, json_t *data,
			 double started, double finished);
/* [{"seq", "commit", "role", "state", "data", "started", "finished"}] by seq; a new reference */
json_t *bstore_steps(struct bstore *b);

/* a step row, typed */
struct bstore_step {
	long long seq;
	char *commit, *role, *state; /* NULL when the column is */
	json_t *data; /* the step's data, a new reference; JSON null when none */
	struct step_data d; /* the same, typed (empty when it does not read: a message) */
	double started, finished; /* NaN when not set */
};
struct bstore_steps {
	struct bstore_step *v;
	size_t n;
};
/* the steps by seq (none when the table cannot be read: a message) */
void bstore_step_list(struct bstore *b, struct bstore_steps *out);
void bstore_steps_release(struct bstore_steps *l);
bool bstore_step_is(const struct bstore_step *st, const char *role, const char *state);
/* the done endpoint's data among the steps (role "good" or "bad"), or NULL */
const struct step_data *bstore_step_endpoint(const struct bstore_steps *steps, const char *role);

#endif
