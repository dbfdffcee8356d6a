/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - the batch queue: jobs expanded into work items (one boot of a
 * variant: its iterations), in SQLite (WAL) beside the results index
 * (RESULTS/queue.db), so "mmlab queue run" can be killed at any moment and
 * restarted. See docs/queue.md.
 *
 * Items are boots, or kernel builds: one build item per kernel request
 * (kcache_request()), shared by every job whose variants need it; a boot
 * waits until the builds it needs are done.
 *
 * Item states and the only transitions allowed:
 *
 *   queued    -> running (claimed) | cancelled | failed (a build it needs failed)
 *   running   -> done | failed | queued (interrupted, or its owner died)
 *   failed    -> queued (retry)
 *   cancelled -> queued (retry)
 *   done      (final)
 *
 * A claim is one BEGIN IMMEDIATE transaction that records the owner: pid,
 * host name and the host's boot id, and a heartbeat the owner refreshes.
 * An item is "done" only when every iteration of its boot is stored.
 */
#ifndef MMLAB_QUEUE_H
#define MMLAB_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum item_state {
	ITEM_QUEUED,
	ITEM_RUNNING,
	ITEM_DONE,
	ITEM_FAILED,
	ITEM_CANCELLED,
	ITEM_NSTATES,
};
const char *item_state_name(enum item_state s);
int item_state_parse(const char *name); /* -1 if unknown */
bool item_transition_ok(enum item_state from, enum item_state to);

struct queue;

/* open (create) DIR/queue.db; NULL after a message */
struct queue *queue_open(const char *results_dir);
void queue_close(struct queue *q);

/* who we are: pid, host name, boot id (tests may fake them) */
struct queue_owner {
	long long pid;
	char host[256];
	char boot[64];
};
void queue_owner_self(struct queue_owner *o);

/*
 * Add a created run (runner_create()) with its boots (its record's boot
 * plan, run_record.h) as items, in order. A boot with a build request
 * needs that kernel build: the build item of the request is made once, by
 * the first job that needs it (a failed one is queued again). slurm: NULL
 * for local work, else the Slurm job ids as JSON text.
 * Returns the queue job id (> 0) or -1.
 */
struct run_boot;
long long queue_add(struct queue *q, const char *run, const char *job_name, int priority,
		    const struct run_boot *boots, size_t nboots, const char *slurm);
int queue_set_slurm(struct queue *q, long long job, const char *slurm);

enum item_kind { ITEM_BOOT, ITEM_BUILD };

/*
 * A build item's job, run and variant are those of the first job that
 * needed it (the others are in queue_build_users()); first = -1, count 0.
 */
struct queue_item {
	long long id, job;
	char run[256], variant[128];
	unsigned int first, count;
	enum item_state state;
	unsigned int attempts;
	enum item_kind kind;
	char request[65]; /* a build's kcache request hash */
};

/*
 * Claim the first queued local item (priority, builds before boots, then
 * age, then run order) that fits(item, arg) accepts (NULL = any): state
 * running, owner o. Boots wait for their builds to be done; a build is
 * claimable only while a queued local boot (not Slurm's) needs it, even if
 * a Slurm job made it. 0 claimed, 1 nothing claimable, -1 error.
 */
typedef bool (*queue_fits_fn)(const struct queue_item *it, void *arg);
int queue_claim(struct queue *q, const struct queue_owner *o, queue_fits_fn fits, void *arg,
		struct queue_item *out);
/*
 * Claim item id, of any job, if it is queued (a Slurm build step claims
 * its build this way). 0 claimed, 1 not queued (*out has its state),
 * -1 error.
 */
int queue_claim_item(struct queue *q, const struct queue_owner *o, long long id,
		     struct queue_item *out);
/* running -> to (done, failed, queued), with an optional error and placement */
int queue_finish(struct queue *q, long long item, enum item_state to, const char *error);
int queue_set_placement(struct queue *q, long long item, long long worker_pid,
			const char *placement_json);
/* refresh the heartbeat of o's running items and runner row */
int queue_heartbeat(struct queue *q, const struct queue_owner *o);

/*
 * Requeue running items whose owner is dead: same host and (another boot
 * id, or the pid gone), or another host with no heartbeat for stale_s.
 * stored(item, arg) says whether every iteration of the item is already in
 * the store: such items become done instead. Returns how many were
 * recovered, or -1.
 */
typedef bool (*queue_stored_fn)(const struct queue_item *it, void *arg);
int queue_recover(struct queue *q, const struct queue_owner *self, double stale_s,
		  queue_stored_fn stored, void *arg);

/*
 * Register self as the store's queue runner. 0 registered, 1 another live
 * runner holds the store (its pid in *other), -1 error.
 */
int queue_runner_register(struct queue *q, const struct queue_owner *self, double stale_s,
			  long long *other);
void queue_runner_unregister(struct queue *q, const struct queue_owner *self);

/* cancel queued items of a job / requeue its failed and cancelled ones; count or -1 */
int queue_cancel(struct queue *q, long long job);
int queue_retry(struct queue *q, long long job);

/*
 * [{"id","run","job","priority","slurm","counts":{state:n},"items":[..],
 *   "mean_item_s","eta_s"}], oldest first; eta from measured durations
 * divided over `parallel` concurrent VMs. A new reference, NULL on error.
 * Read it with queue_status_from_json() (queue_status.h), not by key.
 */
json_t *queue_status(struct queue *q, unsigned int parallel);
/* the job's counts: all items final (done/failed/cancelled)? any not done? */
int queue_job_final(struct queue *q, long long job, bool *final, bool *all_done,
		    bool *any_cancelled);
/* a build's outcome (kernel_info_json() of it), stored by the build's worker */
int queue_build_set_result(struct queue *q, long long build, json_t *result);
/* the result of request's build (a new reference; NULL if none yet), its state and item id */
json_t *queue_build_result(struct queue *q, const char *request, enum item_state *state,
			   long long *build);
/* who needs a build: a job's run and variant */
struct queue_build_user {
	long long job;
	char *run, *variant;
};

struct queue_build_users {
	struct queue_build_user *v;
	size_t n;
};

/* who needs build, by job; 0, or -1 after a message (out empty) */
int queue_build_users(struct queue *q, long long build, struct queue_build_users *out);
void queue_build_users_free(struct queue_build_users *u);
/* a failed build fails the queued boots that need it (with error); count or -1 */
int queue_fail_waiting(struct queue *q, long long build, const char *error);

/* a note this host keeps in the queue (malloc'd; NULL if none), and setting one */
char *queue_note_get(struct queue *q, const char *key);
int queue_note_set(struct queue *q, const char *key, const char *value);

/* the job id of a run, or -1 (no message) */
long long queue_job_of_run(struct queue *q, const char *run);
/* job's run (malloc'd) and how many of its boots run now; 0, or -1 (no message) */
int queue_job_run(struct queue *q, long long job, char **run, unsigned int *running);

#endif
