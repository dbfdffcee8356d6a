/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - the batch queue: jobs expanded into work items (one boot of a
 * variant: its iterations), in SQLite (WAL) beside the results index
 * (RESULTS/queue.db), so "mmlab queue run" can be killed at any moment and
 * restarted. See docs/queue.md.
 *
 * Item states and the only transitions allowed:
 *
 *   queued    -> running (claimed) | cancelled
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
int item_state_parse(const char *name);		/* -1 if unknown */
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
 * Add a created run (runner_create()) with its boots as items, in order.
 * slurm: NULL for local work, else the Slurm job ids as JSON text.
 * Returns the queue job id (> 0) or -1.
 */
long long queue_add(struct queue *q, const char *run, const char *job_name, int priority,
		    json_t *boots, const char *slurm);
int queue_set_slurm(struct queue *q, long long job, const char *slurm);

struct queue_item {
	long long id, job;
	char run[256], variant[128];
	unsigned int first, count;
	enum item_state state;
	unsigned int attempts;
};

/*
 * Claim the first queued local item (priority, then age, then run order)
 * that fits(item, arg) accepts (NULL = any): state running, owner o. 0
 * claimed, 1 nothing claimable, -1 error.
 */
typedef bool (*queue_fits_fn)(const struct queue_item *it, void *arg);
int queue_claim(struct queue *q, const struct queue_owner *o, queue_fits_fn fits,
		void *arg, struct queue_item *out);
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
 * divided over `parallel` concurrent VMs.
 */
json_t *queue_status(struct queue *q, unsigned int parallel);
/* the job's counts: all items final (done/failed/cancelled)? any not done? */
int queue_job_final(struct queue *q, long long job, bool *final, bool *all_done,
		    bool *any_cancelled);
/* the job id of a run, or -1 (no message) */
long long queue_job_of_run(struct queue *q, const char *run);

#endif
