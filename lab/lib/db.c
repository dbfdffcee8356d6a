// SPDX-License-Identifier: GPL-2.0
/*
 * db.c - open and use an SQLite store with mmlab's settings (db.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "lib/db.h"
#include "lib/util.h"

/* the connection's file, for messages */
static const char *db_file(sqlite3 *db)
{
	const char *f = sqlite3_db_filename(db, "main");

	return f && *f ? f : "(in memory)";
}

/* whether the filesystem of the connection's file has no space left */
static bool db_fs_full(sqlite3 *db)
{
	const char *f = sqlite3_db_filename(db, "main");
	char *dir, *slash;
	struct statvfs sv;
	bool full;

	if (!f || !*f)
		return false;
	dir = xstrdup(f);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	full = statvfs(slash ? (*dir ? dir : "/") : ".", &sv) == 0 && !sv.f_bavail;
	free(dir);
	return full;
}

/*
 * What to do next after err: a store held too long, a full filesystem
 * (SQLite says "disk I/O error" when it cannot extend its -shm file; a
 * write that fails leaves the database as it was), or a damaged file.
 */
static const char *db_hint(sqlite3 *db, int err)
{
	if (err == SQLITE_BUSY || err == SQLITE_LOCKED)
		return "another mmlab held the store longer than the busy timeout; retry "
		       "when it is done";
	if ((err == SQLITE_FULL || err == SQLITE_IOERR) && db_fs_full(db))
		return "its filesystem is full: free space there and retry";
	return "check the file with sqlite3's 'PRAGMA integrity_check'";
}

sqlite3 *db_open(const char *path, const char *what, unsigned int flags)
{
	int oflags = SQLITE_OPEN_READWRITE | (flags & DB_CREATE ? SQLITE_OPEN_CREATE : 0);
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, oflags, NULL) != SQLITE_OK) {
		lab_err("cannot open the %s %s: %s; check that its directory exists and is "
			"writable",
			what, path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, DB_BUSY_TIMEOUT_MS);
	if (db_exec(db, what, "PRAGMA journal_mode=WAL;") ||
	    db_exec(db, what, "PRAGMA synchronous=FULL;")) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

void db_close(sqlite3 *db)
{
	sqlite3_close(db);
}

int db_exec(sqlite3 *db, const char *what, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		lab_err("%s %s: %s (in '%.80s'); %s", what, db_file(db),
			msg ? msg : sqlite3_errmsg(db), sql, db_hint(db, rc));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *what, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK) {
		lab_err("%s %s: cannot prepare '%.80s': %s; %s", what, db_file(db), sql,
			sqlite3_errmsg(db), db_hint(db, rc));
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

int db_step(sqlite3 *db, const char *what, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	lab_err("%s %s: %s (in '%.80s'); %s", what, db_file(db), sqlite3_errmsg(db),
		sqlite3_sql(st), db_hint(db, rc));
	return -1;
}

int db_step_done(sqlite3 *db, const char *what, sqlite3_stmt *st)
{
	int rc = db_step(db, what, st);

	if (rc > 0)
		lab_err("%s %s: '%.80s' returned a row where none was expected", what, db_file(db),
			sqlite3_sql(st));
	sqlite3_finalize(st);
	return rc ? -1 : 0;
}
