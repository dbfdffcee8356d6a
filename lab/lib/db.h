/* SPDX-License-Identifier: GPL-2.0 */
/*
 * db.h - how every SQLite store of mmlab is opened and used: the batch
 * queue (queue.db), the bisect state (bisect.db) and the results index
 * (mmlab.db). One set of settings for all of them, and errors that name
 * the store, its file and the SQL.
 *
 * db_open() sets, on every connection:
 *
 *   journal_mode=WAL   a reader never blocks the writer nor sees half a
 *                      transaction; the file stays consistent through any
 *                      crash.
 *   synchronous=FULL   the WAL is fsync'd at each commit, so a committed
 *                      transaction is durable across power loss as well as
 *                      kill -9: an item marked done stays done. NORMAL would
 *                      keep the file consistent and survive kill -9, but a
 *                      power loss could roll back the last commits, and the
 *                      queue would then run a finished boot again. A store
 *                      commits a few times per boot; an fsync each is
 *                      nothing next to booting a VM.
 *   busy_timeout       DB_BUSY_TIMEOUT_MS: a connection waits that long for
 *                      another's write transaction (queue workers, a second
 *                      mmlab on the same store) before giving up.
 *
 * Each function that fails prints one message (util.h) and returns NULL
 * or -1; "what" names the store in messages ("queue", "bisect state",
 * "results index").
 */
#ifndef MMLAB_DB_H
#define MMLAB_DB_H

#include <sqlite3.h>

#define DB_BUSY_TIMEOUT_MS 30000

#define DB_CREATE 1u /* create the file when missing */

/* the store at path with the settings above, or NULL after a message */
sqlite3 *db_open(const char *path, const char *what, unsigned int flags);
void db_close(sqlite3 *db);

/* run sql (one or more statements: a schema, BEGIN, COMMIT); 0 or -1 */
int db_exec(sqlite3 *db, const char *what, const char *sql);
/* a prepared statement, or NULL after a message naming the SQL */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *what, const char *sql);
/* one step: 1 a row, 0 done, -1 after a message (st stays to finalize) */
int db_step(sqlite3 *db, const char *what, sqlite3_stmt *st);
/* step a statement that returns no row, then finalize it; 0 or -1 */
int db_step_done(sqlite3 *db, const char *what, sqlite3_stmt *st);

#endif
