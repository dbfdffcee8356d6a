// SPDX-License-Identifier: GPL-2.0
/*
 * queue.c - the batch queue in SQLite (see queue.h and docs/queue.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "batch/queue.h"
#include "store/run_record.h"
#include "lib/db.h"
#include "lib/util.h"

struct queue {
	char *path;
	sqlite3 *db;
};

static const char *const state_names[ITEM_NSTATES] = {
	"queued", "running", "done", "failed", "cancelled",
};

const char *item_state_name(enum item_state s)
{
	return (unsigned int)s < ITEM_NSTATES ? state_names[s] : "?";
}

int item_state_parse(const char *name)
{
	for (int i = 0; i < ITEM_NSTATES; i++)
		if (name && !strcmp(name, state_names[i]))
			return i;
	return -1;
}

bool item_transition_ok(enum item_state from, enum item_state to)
{
	switch (from) {
	case ITEM_QUEUED:
		/* failed: a kernel build it needs failed */
		return to == ITEM_RUNNING || to == ITEM_CANCELLED || to == ITEM_FAILED;
	case ITEM_RUNNING:
		return to == ITEM_DONE || to == ITEM_FAILED || to == ITEM_QUEUED;
	case ITEM_FAILED:
	case ITEM_CANCELLED:
		return to == ITEM_QUEUED;
	default:
		return false;
	}
}

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS jobs("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT NOT NULL UNIQUE,"
	"  job TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0,"
	"  added REAL NOT NULL, slurm TEXT);"
	"CREATE TABLE IF NOT EXISTS items("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT, job INTEGER NOT NULL REFERENCES jobs(id),"
	"  kind TEXT NOT NULL DEFAULT 'boot', seq INTEGER NOT NULL,"
	"  variant TEXT NOT NULL, first INTEGER NOT NULL, count INTEGER NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'queued', attempts INTEGER NOT NULL DEFAULT 0,"
	"  owner_pid INTEGER, owner_host TEXT, owner_boot TEXT, worker_pid INTEGER,"
	"  heartbeat REAL, started REAL, finished REAL, placement TEXT, error TEXT,"
	"  UNIQUE(job, variant, first));"
	"CREATE INDEX IF NOT EXISTS items_state ON items(state, job, seq);"
	"CREATE TABLE IF NOT EXISTS runners("
	"  pid INTEGER NOT NULL, host TEXT NOT NULL, boot TEXT NOT NULL,"
	"  started REAL NOT NULL, heartbeat REAL NOT NULL, PRIMARY KEY(pid, host, boot));"
	/* kernel builds: an item of kind 'build' per request, shared by every job */
	"CREATE TABLE IF NOT EXISTS builds("
	"  item INTEGER PRIMARY KEY REFERENCES items(id), request TEXT NOT NULL UNIQUE,"
	"  result TEXT);"
	"CREATE TABLE IF NOT EXISTS needs("
	"  item INTEGER NOT NULL REFERENCES items(id), build INTEGER NOT NULL REFERENCES items(id),"
	"  PRIMARY KEY(item, build));"
	"CREATE INDEX IF NOT EXISTS needs_build ON needs(build);"
	/* what this host last saw of a Slurm task's record (fold.c) */
	"CREATE TABLE IF NOT EXISTS notes(key TEXT PRIMARY KEY, value TEXT NOT NULL);";

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int qexec(struct queue *q, const char *sql)
{
	return db_exec(q->db, "queue", sql);
}

static sqlite3_stmt *prep(struct queue *q, const char *sql)
{
	return db_prepare(q->db, "queue", sql);
}

static int step_done(struct queue *q, sqlite3_stmt *st)
{
	return db_step_done(q->db, "queue", st);
}

struct queue *queue_open(const char *results_dir)
{
	struct queue *q = xcalloc(1, sizeof(*q));

	if (mkdir_p(results_dir, 0755))
		goto fail;
	q->path = xasprintf("%s/queue.db", results_dir);
	q->db = db_open(q->path, "queue", DB_CREATE);
	if (!q->db || qexec(q, schema))
		goto fail;
	return q;
fail:
	queue_close(q);
	return NULL;
}

char *queue_note_get(struct queue *q, const char *key)
{
	sqlite3_stmt *st = prep(q, "SELECT value FROM notes WHERE key = ?1");
	char *v = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	if (db_step(q->db, "queue", st) > 0)
		v = xstrdup((const char *)sqlite3_column_text(st, 0) ?: "");
	sqlite3_finalize(st);
	return v;
}

int queue_note_set(struct queue *q, const char *key, const char *value)
{
	sqlite3_stmt *st = prep(q, "INSERT OR REPLACE INTO notes(key, value) VALUES(?1, ?2)");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	return step_done(q, st);
}

void queue_close(struct queue *q)
{
	if (!q)
		return;
	db_close(q->db);
	free(q->path);
	free(q);
}

void queue_owner_self(struct queue_owner *o)
{
	char *b = host_boot_id();

	memset(o, 0, sizeof(*o));
	o->pid = getpid();
	if (gethostname(o->host, sizeof(o->host) - 1))
		snprintf(o->host, sizeof(o->host), "localhost");
	snprintf(o->boot, sizeof(o->boot), "%s", b);
	free(b);
}

static int set_state(struct queue *q, long long item, enum item_state to, const char *error,
		     const struct queue_owner *o);

/*
 * The build item of request: the one already queued (by any job) or a new
 * one of this job. A failed one is queued again: a new job asks for it.
 * Inside the caller's transaction. Its id, or -1.
 */
static long long build_item(struct queue *q, long long job, const char *variant,
			    const char *request)
{
	sqlite3_stmt *st = prep(q, "SELECT items.id, items.state FROM builds JOIN items"
				   " ON items.id = builds.item WHERE builds.request=?1");
	long long id = 0;
	int state = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, request, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		state = item_state_parse((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (id) {
		if (state == ITEM_FAILED || state == ITEM_CANCELLED) {
			st = prep(q, "UPDATE builds SET result=NULL WHERE item=?1");
			if (!st)
				return -1;
			sqlite3_bind_int64(st, 1, id);
			if (step_done(q, st) || set_state(q, id, ITEM_QUEUED, NULL, NULL))
				return -1;
		}
		return id;
	}
	st = prep(q, "INSERT INTO items(job, kind, seq, variant, first, count)"
		     " VALUES(?1,'build',-1,?2,-1,0)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, variant, -1, SQLITE_TRANSIENT);
	if (step_done(q, st))
		return -1;
	id = sqlite3_last_insert_rowid(q->db);
	st = prep(q, "INSERT INTO builds(item, request) VALUES(?1,?2)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, request, -1, SQLITE_TRANSIENT);
	return step_done(q, st) ? -1 : id;
}

long long queue_add(struct queue *q, const char *run, const char *job_name, int priority,
		    const struct run_boot *boots, size_t nboots, const char *slurm)
{
	sqlite3_stmt *st;
	long long job;

	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(q, "INSERT INTO jobs(run, job, priority, added, slurm) VALUES(?1,?2,?3,?4,?5)");
	if (!st)
		goto fail;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, job_name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, priority);
	sqlite3_bind_double(st, 4, now_wall());
	if (slurm)
		sqlite3_bind_text(st, 5, slurm, -1, SQLITE_TRANSIENT);
	if (step_done(q, st))
		goto fail;
	job = sqlite3_last_insert_rowid(q->db);
	for (size_t i = 0; i < nboots; i++) {
		const struct run_boot *b = &boots[i];
		long long build = 0, item;

		if (b->build) {
			build = build_item(q, job, b->variant, b->build);
			if (build < 0)
				goto fail;
		}
		st = prep(
			q,
			"INSERT INTO items(job, seq, variant, first, count) VALUES(?1,?2,?3,?4,?5)");
		if (!st)
			goto fail;
		sqlite3_bind_int64(st, 1, job);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, b->variant, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 4, b->first);
		sqlite3_bind_int64(st, 5, b->count);
		if (step_done(q, st))
			goto fail;
		item = sqlite3_last_insert_rowid(q->db);
		if (build) {
			st = prep(q, "INSERT OR IGNORE INTO needs(item, build) VALUES(?1,?2)");
			if (!st)
				goto fail;
			sqlite3_bind_int64(st, 1, item);
			sqlite3_bind_int64(st, 2, build);
			if (step_done(q, st))
				goto fail;
		}
	}
	if (qexec(q, "COMMIT;"))
		goto fail;
	return job;
fail:
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

int queue_set_slurm(struct queue *q, long long job, const char *slurm)
{
	sqlite3_stmt *st = prep(q, "UPDATE jobs SET slurm=?2 WHERE id=?1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, slurm, -1, SQLITE_TRANSIENT);
	return step_done(q, st);
}

static void row_item(sqlite3_stmt *st, struct queue_item *it)
{
	memset(it, 0, sizeof(*it));
	it->id = sqlite3_column_int64(st, 0);
	it->job = sqlite3_column_int64(st, 1);
	snprintf(it->run, sizeof(it->run), "%s", (const char *)sqlite3_column_text(st, 2));
	snprintf(it->variant, sizeof(it->variant), "%s", (const char *)sqlite3_column_text(st, 3));
	it->first = (unsigned int)sqlite3_column_int(st, 4);
	it->count = (unsigned int)sqlite3_column_int(st, 5);
	it->state = item_state_parse((const char *)sqlite3_column_text(st, 6));
	it->attempts = (unsigned int)sqlite3_column_int(st, 7);
	it->kind = strcmp((const char *)sqlite3_column_text(st, 8) ?: "", "build") ? ITEM_BOOT :
										     ITEM_BUILD;
	snprintf(it->request, sizeof(it->request), "%s",
		 (const char *)sqlite3_column_text(st, 9) ?: "");
}

/* ITEM_FROM: items joined with their job and (build items) their request */
#define ITEM_COLS                                                                 \
	"items.id, items.job, jobs.run, items.variant, items.first, items.count," \
	" items.state, items.attempts, items.kind, builds.request"
#define ITEM_FROM                                      \
	" FROM items JOIN jobs ON jobs.id = items.job" \
	" LEFT JOIN builds ON builds.item = items.id"

/* state change of one item, checked against item_transition_ok() */
static int set_state(struct queue *q, long long item, enum item_state to, const char *error,
		     const struct queue_owner *o)
{
	sqlite3_stmt *st = prep(q, "SELECT state FROM items WHERE id=?1");
	int from = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, item);
	if (sqlite3_step(st) == SQLITE_ROW)
		from = item_state_parse((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (from < 0 || !item_transition_ok((enum item_state)from, to)) {
		lab_err("queue %s: item %lld cannot go from %s to %s; this is a bug", q->path, item,
			from < 0 ? "nowhere" : item_state_name(from), item_state_name(to));
		return -1;
	}
	st = prep(
		q,
		to == ITEM_RUNNING ?
			"UPDATE items SET state=?2, error=NULL, attempts=attempts+1, started=?3,"
			" heartbeat=?3, finished=NULL, owner_pid=?4, owner_host=?5, owner_boot=?6,"
			" worker_pid=NULL WHERE id=?1" :
			"UPDATE items SET state=?2, error=?7, finished=CASE WHEN ?2 IN ('done','failed')"
			" THEN ?3 ELSE NULL END, owner_pid=NULL, worker_pid=NULL WHERE id=?1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, item);
	sqlite3_bind_text(st, 2, item_state_name(to), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, now_wall());
	if (to == ITEM_RUNNING) {
		sqlite3_bind_int64(st, 4, o->pid);
		sqlite3_bind_text(st, 5, o->host, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, o->boot, -1, SQLITE_TRANSIENT);
	} else if (error) {
		sqlite3_bind_text(st, 7, error, -1, SQLITE_TRANSIENT);
	}
	return step_done(q, st);
}

int queue_claim(struct queue *q, const struct queue_owner *o, queue_fits_fn fits, void *arg,
		struct queue_item *out)
{
	sqlite3_stmt *st;
	int ret = 1;

	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	/*
	 * a boot whose kernel builds are all done; a build some queued boot
	 * waits for (not one every job needing it cancelled); builds first
	 */
	st = prep(q, "SELECT " ITEM_COLS ITEM_FROM " WHERE items.state='queued' AND"
		     " ((items.kind='boot' AND jobs.slurm IS NULL AND NOT EXISTS (SELECT 1 FROM"
		     "   needs JOIN items b ON b.id = needs.build WHERE needs.item = items.id AND"
		     "   b.state != 'done'))"
		     "  OR (items.kind='build' AND EXISTS (SELECT 1 FROM needs JOIN items w"
		     "   ON w.id = needs.item JOIN jobs wj ON wj.id = w.job WHERE"
		     "   needs.build = items.id AND w.state = 'queued' AND wj.slurm IS NULL)))"
		     " ORDER BY jobs.priority DESC, items.kind = 'build' DESC, jobs.id, items.seq");
	if (!st)
		goto fail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		row_item(st, out);
		if (!fits || fits(out, arg)) {
			ret = 0;
			break;
		}
	}
	sqlite3_finalize(st);
	if (!ret && set_state(q, out->id, ITEM_RUNNING, NULL, o))
		goto fail;
	if (!ret) {
		out->state = ITEM_RUNNING;
		out->attempts++;
	}
	if (qexec(q, "COMMIT;"))
		goto fail;
	return ret;
fail:
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

int queue_claim_item(struct queue *q, const struct queue_owner *o, long long id,
		     struct queue_item *out)
{
	sqlite3_stmt *st;
	int ret = 1;

	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(q, "SELECT " ITEM_COLS ITEM_FROM " WHERE items.id=?1");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		lab_err("queue %s has no item %lld", q->path, id);
		goto fail;
	}
	row_item(st, out);
	sqlite3_finalize(st);
	if (out->state == ITEM_QUEUED) {
		if (set_state(q, id, ITEM_RUNNING, NULL, o))
			goto fail;
		out->state = ITEM_RUNNING;
		out->attempts++;
		ret = 0;
	}
	if (qexec(q, "COMMIT;"))
		goto fail;
	return ret;
fail:
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

int queue_finish(struct queue *q, long long item, enum item_state to, const char *error)
{
	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	if (set_state(q, item, to, error, NULL)) {
		sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
		return -1;
	}
	return qexec(q, "COMMIT;");
}

int queue_set_placement(struct queue *q, long long item, long long worker_pid,
			const char *placement_json)
{
	sqlite3_stmt *st = prep(q, "UPDATE items SET worker_pid=?2, placement=?3 WHERE id=?1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, item);
	sqlite3_bind_int64(st, 2, worker_pid);
	sqlite3_bind_text(st, 3, placement_json, -1, SQLITE_TRANSIENT);
	return step_done(q, st);
}

int queue_heartbeat(struct queue *q, const struct queue_owner *o)
{
	const char *sqls[] = {
		"UPDATE items SET heartbeat=?4 WHERE state='running' AND owner_pid=?1"
		" AND owner_host=?2 AND owner_boot=?3",
		"UPDATE runners SET heartbeat=?4 WHERE pid=?1 AND host=?2 AND boot=?3",
	};

	for (size_t i = 0; i < ARRAY_SIZE(sqls); i++) {
		sqlite3_stmt *st = prep(q, sqls[i]);

		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, o->pid);
		sqlite3_bind_text(st, 2, o->host, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, o->boot, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 4, now_wall());
		if (step_done(q, st))
			return -1;
	}
	return 0;
}

static bool owner_dead(const struct queue_owner *self, long long pid, const char *host,
		       const char *boot, double heartbeat, double stale_s)
{
	if (!host || strcmp(host, self->host))
		return now_wall() - heartbeat > stale_s;
	if (!boot || strcmp(boot, self->boot))
		return true; /* this host rebooted since */
	if (pid == self->pid)
		return false;
	return !process_alive(pid, NULL); /* a zombie owner is dead too */
}

int queue_recover(struct queue *q, const struct queue_owner *self, double stale_s,
		  queue_stored_fn stored, void *arg)
{
	struct queue_item *items = NULL;
	size_t n = 0;
	sqlite3_stmt *st;
	int count = 0;

	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(q, "SELECT " ITEM_COLS ", items.owner_pid, items.owner_host,"
		     " items.owner_boot, items.heartbeat" ITEM_FROM " WHERE items.state='running'");
	if (!st)
		goto fail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct queue_item it;

		row_item(st, &it);
		if (!owner_dead(self, sqlite3_column_int64(st, 10),
				(const char *)sqlite3_column_text(st, 11),
				(const char *)sqlite3_column_text(st, 12),
				sqlite3_column_double(st, 13), stale_s))
			continue;
		items = xrealloc(items, (n + 1) * sizeof(*items));
		items[n++] = it;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		/* a build runs again: a cache hit if it had finished */
		bool done = items[i].kind == ITEM_BOOT && stored && stored(&items[i], arg);

		if (set_state(q, items[i].id, done ? ITEM_DONE : ITEM_QUEUED,
			      done ? NULL : "requeued: its queue runner died", NULL))
			goto fail;
		count++;
	}
	free(items);
	if (qexec(q, "COMMIT;"))
		return -1;
	return count;
fail:
	free(items);
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

int queue_runner_register(struct queue *q, const struct queue_owner *self, double stale_s,
			  long long *other)
{
	sqlite3_stmt *st;
	int ret = 0;

	*other = 0;
	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(q, "SELECT pid, host, boot, heartbeat FROM runners");
	if (!st)
		goto fail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!owner_dead(self, sqlite3_column_int64(st, 0),
				(const char *)sqlite3_column_text(st, 1),
				(const char *)sqlite3_column_text(st, 2),
				sqlite3_column_double(st, 3), stale_s)) {
			*other = sqlite3_column_int64(st, 0);
			ret = 1;
			break;
		}
	}
	sqlite3_finalize(st);
	if (ret) {
		qexec(q, "ROLLBACK;");
		return 1;
	}
	if (qexec(q, "DELETE FROM runners;"))
		goto fail;
	st = prep(
		q,
		"INSERT INTO runners(pid, host, boot, started, heartbeat) VALUES(?1,?2,?3,?4,?4)");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, self->pid);
	sqlite3_bind_text(st, 2, self->host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, self->boot, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 4, now_wall());
	if (step_done(q, st) || qexec(q, "COMMIT;"))
		goto fail;
	return 0;
fail:
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

void queue_runner_unregister(struct queue *q, const struct queue_owner *self)
{
	sqlite3_stmt *st = prep(q, "DELETE FROM runners WHERE pid=?1 AND host=?2 AND boot=?3");

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, self->pid);
	sqlite3_bind_text(st, 2, self->host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, self->boot, -1, SQLITE_TRANSIENT);
	step_done(q, st);
}

static int job_exists(struct queue *q, long long job)
{
	sqlite3_stmt *st = prep(q, "SELECT 1 FROM jobs WHERE id=?1");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		lab_err("the queue %s has no job %lld; 'mmlab queue status' lists them", q->path,
			job);
		return -1;
	}
	return 0;
}

static int move_items(struct queue *q, long long job, const char *from_sql, enum item_state to)
{
	/*
	 * the job's boots; on retry also the failed builds they need (which
	 * may belong to another job); builds are never cancelled: one that no
	 * queued boot waits for is simply not claimed
	 */
	char *sql =
		to == ITEM_QUEUED ?
			xasprintf(
				"SELECT id FROM items WHERE job=?1 AND kind='boot' AND state IN (%s)"
				" UNION SELECT b.id FROM items w JOIN needs ON needs.item = w.id"
				" JOIN items b ON b.id = needs.build WHERE w.job=?1 AND"
				" w.state IN (%s) AND b.state IN (%s)",
				from_sql, from_sql, from_sql) :
			xasprintf(
				"SELECT id FROM items WHERE job=?1 AND kind='boot' AND state IN (%s)",
				from_sql);
	sqlite3_stmt *st;
	long long *ids = NULL;
	size_t n = 0;

	if (job_exists(q, job) || qexec(q, "BEGIN IMMEDIATE;")) {
		free(sql);
		return -1;
	}
	st = prep(q, sql);
	free(sql);
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, job);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		if (set_state(q, ids[i], to, to == ITEM_CANCELLED ? "cancelled" : NULL, NULL))
			goto fail;
	if (to == ITEM_QUEUED &&
	    qexec(q, "UPDATE builds SET result=NULL WHERE item IN"
		     " (SELECT id FROM items WHERE kind='build' AND state='queued');"))
		goto fail;
	free(ids);
	if (qexec(q, "COMMIT;"))
		return -1;
	return (int)n;
fail:
	free(ids);
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}

int queue_cancel(struct queue *q, long long job)
{
	return move_items(q, job, "'queued'", ITEM_CANCELLED);
}

int queue_retry(struct queue *q, long long job)
{
	return move_items(q, job, "'failed','cancelled'", ITEM_QUEUED);
}

static json_t *job_items(struct queue *q, long long job, json_t *counts, json_t *bcounts,
			 double *dur_sum, unsigned int *ndur, unsigned int *left)
{
	sqlite3_stmt *st = prep(q,
				"SELECT id, variant, first, count, state, attempts,"
				" started, finished, placement, error, owner_pid, worker_pid, kind,"
				" (SELECT request FROM builds WHERE builds.item = items.id),"
				" (SELECT count(*) FROM needs WHERE needs.build = items.id)"
				" FROM items WHERE job=?1 ORDER BY seq");
	json_t *a = json_array();

	if (!st)
		return a;
	sqlite3_bind_int64(st, 1, job);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 4);
		const char *pl = (const char *)sqlite3_column_text(st, 8);
		json_t *it = json_pack("{s:I, s:s, s:i, s:i, s:s, s:i}", "id",
				       (json_int_t)sqlite3_column_int64(st, 0), "variant",
				       (const char *)sqlite3_column_text(st, 1), "first",
				       sqlite3_column_int(st, 2), "count",
				       sqlite3_column_int(st, 3), "state", state, "attempts",
				       sqlite3_column_int(st, 5));

		bool build = !strcmp((const char *)sqlite3_column_text(st, 12), "build");

		if (build) {
			/* a kernel build: counted apart, not in the ETA */
			json_object_set_new(
				bcounts, state,
				json_integer(json_integer_value(json_object_get(bcounts, state)) +
					     1));
			json_object_set_new(it, "kind", json_string("build"));
			json_object_set_new(it, "request",
					    json_string((const char *)sqlite3_column_text(st, 13) ?:
								""));
			json_object_set_new(it, "needed_by",
					    json_integer(sqlite3_column_int64(st, 14)));
			json_object_del(it, "first");
			json_object_del(it, "count");
		} else {
			json_object_set_new(it, "kind", json_string("boot"));
			json_object_set_new(
				counts, state,
				json_integer(json_integer_value(json_object_get(counts, state)) +
					     1));
		}
		if (!build && !strcmp(state, "done") && sqlite3_column_type(st, 7) != SQLITE_NULL &&
		    sqlite3_column_type(st, 6) != SQLITE_NULL) {
			*dur_sum += sqlite3_column_double(st, 7) - sqlite3_column_double(st, 6);
			(*ndur)++;
		}
		if (!build && (!strcmp(state, "queued") || !strcmp(state, "running")))
			(*left)++;
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			json_object_set_new(it, "started", json_real(sqlite3_column_double(st, 6)));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL)
			json_object_set_new(it, "finished",
					    json_real(sqlite3_column_double(st, 7)));
		if (pl) {
			json_t *p = json_loads(pl, 0, NULL);

			if (p)
				json_object_set_new(it, "placement", p);
		}
		if (sqlite3_column_type(st, 9) != SQLITE_NULL)
			json_object_set_new(it, "error",
					    json_string((const char *)sqlite3_column_text(st, 9)));
		if (sqlite3_column_type(st, 10) != SQLITE_NULL)
			json_object_set_new(it, "owner_pid",
					    json_integer(sqlite3_column_int64(st, 10)));
		if (sqlite3_column_type(st, 11) != SQLITE_NULL)
			json_object_set_new(it, "worker_pid",
					    json_integer(sqlite3_column_int64(st, 11)));
		json_array_append_new(a, it);
	}
	sqlite3_finalize(st);
	return a;
}

/* a job's ETA: its mean item time, else the mean over every job (mean_all, -1 without) */
static json_t *job_eta(const double *mean, unsigned int left, double mean_all,
		       unsigned int parallel)
{
	double m = mean ? *mean : mean_all;

	return !left ? json_real(0) : m < 0 ? json_null() : json_real(m * left / parallel);
}

json_t *queue_status(struct queue *q, unsigned int parallel)
{
	sqlite3_stmt *st =
		prep(q, "SELECT id, run, job, priority, added, slurm FROM jobs ORDER BY id");
	json_t *out = json_array();
	double all_sum = 0, *means = NULL;
	unsigned int all_n = 0, *lefts = NULL;
	bool *has_mean = NULL;
	size_t n = 0;

	if (!st)
		return NULL;
	if (!parallel)
		parallel = 1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *counts = json_object(), *bcounts = json_object(), *j, *sj;
		double sum = 0;
		unsigned int nd = 0, left = 0;
		const char *slurm = (const char *)sqlite3_column_text(st, 5);
		json_t *items = job_items(q, sqlite3_column_int64(st, 0), counts, bcounts, &sum,
					  &nd, &left);

		j = json_pack("{s:I, s:s, s:s, s:i, s:f, s:o, s:o, s:o}", "id",
			      (json_int_t)sqlite3_column_int64(st, 0), "run",
			      (const char *)sqlite3_column_text(st, 1), "job",
			      (const char *)sqlite3_column_text(st, 2), "priority",
			      sqlite3_column_int(st, 3), "added", sqlite3_column_double(st, 4),
			      "counts", counts, "builds", bcounts, "items", items);
		sj = slurm ? json_loads(slurm, 0, NULL) : NULL;
		json_object_set_new(j, "slurm", sj ? sj : json_null());
		json_object_set_new(j, "mean_item_s", nd ? json_real(sum / nd) : json_null());
		means = xrealloc(means, (n + 1) * sizeof(*means));
		lefts = xrealloc(lefts, (n + 1) * sizeof(*lefts));
		has_mean = xrealloc(has_mean, (n + 1) * sizeof(*has_mean));
		has_mean[n] = nd != 0;
		means[n] = nd ? sum / nd : 0;
		lefts[n++] = left;
		all_sum += sum;
		all_n += nd;
		json_array_append_new(out, j);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		json_object_set_new(json_array_get(out, i), "eta_s",
				    job_eta(has_mean[i] ? &means[i] : NULL, lefts[i],
					    all_n ? all_sum / all_n : -1, parallel));
	free(means);
	free(lefts);
	free(has_mean);
	return out;
}

int queue_job_final(struct queue *q, long long job, bool *final, bool *all_done,
		    bool *any_cancelled)
{
	sqlite3_stmt *st = prep(q, "SELECT state, count(*) FROM items WHERE job=?1 AND"
				   " kind='boot' GROUP BY state");

	if (!st)
		return -1;
	*final = *all_done = true;
	*any_cancelled = false;
	sqlite3_bind_int64(st, 1, job);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		if (!strcmp(s, "queued") || !strcmp(s, "running"))
			*final = false;
		if (strcmp(s, "done"))
			*all_done = false;
		if (!strcmp(s, "cancelled"))
			*any_cancelled = true;
	}
	sqlite3_finalize(st);
	return 0;
}

long long queue_job_of_run(struct queue *q, const char *run)
{
	sqlite3_stmt *st = prep(q, "SELECT id FROM jobs WHERE run=?1");
	long long id = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

int queue_job_run(struct queue *q, long long job, char **run, unsigned int *running)
{
	sqlite3_stmt *st = prep(q, "SELECT run, (SELECT count(*) FROM items WHERE job=?1 AND"
				   " kind='boot' AND state='running') FROM jobs WHERE id=?1");
	int ret = -1;

	*run = NULL;
	*running = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		*run = xstrdup((const char *)sqlite3_column_text(st, 0));
		*running = (unsigned int)sqlite3_column_int64(st, 1);
		ret = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

int queue_build_set_result(struct queue *q, long long build, json_t *result)
{
	sqlite3_stmt *st = prep(q, "UPDATE builds SET result=?2 WHERE item=?1");
	char *text = json_dumps(result, JSON_COMPACT);

	if (!st) {
		free(text);
		return -1;
	}
	sqlite3_bind_int64(st, 1, build);
	sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	free(text);
	return step_done(q, st);
}

json_t *queue_build_result(struct queue *q, const char *request, enum item_state *state,
			   long long *build)
{
	sqlite3_stmt *st = prep(q, "SELECT builds.result, items.state, items.id FROM builds"
				   " JOIN items ON items.id = builds.item WHERE builds.request=?1");
	json_t *r = NULL;

	*state = ITEM_NSTATES;
	if (build)
		*build = 0;
	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, request, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		r = t ? json_loads(t, 0, NULL) : NULL;
		*state = item_state_parse((const char *)sqlite3_column_text(st, 1));
		if (build)
			*build = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return r;
}

int queue_build_users(struct queue *q, long long build, struct queue_build_users *out)
{
	sqlite3_stmt *st =
		prep(q, "SELECT DISTINCT items.job, jobs.run, items.variant FROM needs"
			" JOIN items ON items.id = needs.item JOIN jobs ON jobs.id = items.job"
			" WHERE needs.build=?1 ORDER BY items.job");

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, build);
	while (sqlite3_step(st) == SQLITE_ROW) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = (struct queue_build_user){
			.job = sqlite3_column_int64(st, 0),
			.run = xstrdup((const char *)sqlite3_column_text(st, 1)),
			.variant = xstrdup((const char *)sqlite3_column_text(st, 2)),
		};
	}
	sqlite3_finalize(st);
	return 0;
}

void queue_build_users_free(struct queue_build_users *u)
{
	for (size_t i = 0; i < u->n; i++) {
		free(u->v[i].run);
		free(u->v[i].variant);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

int queue_fail_waiting(struct queue *q, long long build, const char *error)
{
	sqlite3_stmt *st;
	long long *ids = NULL;
	size_t n = 0;

	if (qexec(q, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(q, "SELECT items.id FROM needs JOIN items ON items.id = needs.item"
		     " WHERE needs.build=?1 AND items.state='queued'");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, build);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ids = xrealloc(ids, (n + 1) * sizeof(*ids));
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		if (set_state(q, ids[i], ITEM_FAILED, error, NULL))
			goto fail;
	free(ids);
	if (qexec(q, "COMMIT;"))
		return -1;
	return (int)n;
fail:
	free(ids);
	sqlite3_exec(q->db, "ROLLBACK;", NULL, NULL, NULL);
	return -1;
}
