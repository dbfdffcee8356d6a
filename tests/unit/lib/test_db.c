// SPDX-License-Identifier: GPL-2.0
/*
 * test_db.c - the SQLite helper every store opens through (lib/db.h): the
 * settings read back from the connection, the busy timeout honoured when a
 * second connection writes, and errors that name the store, the file and
 * the SQL.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "lib/db.h"
#include "lib/util.h"

struct tmp {
	char dir[64];
	char *path;
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	snprintf(t->dir, sizeof(t->dir), "/tmp/mmlab-test-db-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->path = xasprintf("%s/store.db", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;

	rm_rf(t->dir);
	free(t->path);
	free(t);
	return 0;
}

/* the single value of a one-row, one-column query, as text */
static char *query1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = db_prepare(db, "test", sql);
	char *v;

	assert_non_null(st);
	assert_int_equal(db_step(db, "test", st), 1);
	v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static void assert_query(sqlite3 *db, const char *sql, const char *want)
{
	char *v = query1(db, sql);

	assert_string_equal(v, want);
	free(v);
}

static void test_open_settings(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = db_open(t->path, "test store", DB_CREATE);
	char ms[16];

	assert_non_null(db);
	assert_true(path_exists(t->path));
	assert_query(db, "PRAGMA journal_mode", "wal");
	assert_query(db, "PRAGMA synchronous", "2"); /* FULL */
	snprintf(ms, sizeof(ms), "%d", DB_BUSY_TIMEOUT_MS);
	assert_query(db, "PRAGMA busy_timeout", ms);
	assert_int_equal(db_exec(db, "test store",
				 "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);"
				 "INSERT INTO t VALUES(1, 'one');"),
			 0);
	db_close(db);

	/* again, without DB_CREATE: the file is there, the data too */
	db = db_open(t->path, "test store", 0);
	assert_non_null(db);
	assert_query(db, "SELECT v FROM t WHERE k = 1", "one");
	assert_query(db, "PRAGMA synchronous", "2");
	db_close(db);
}

struct holder {
	sqlite3 *db;
	unsigned int hold_ms;
	int rc; /* of the COMMIT (checked by the main thread) */
};

/* ends the write transaction of h->db after h->hold_ms */
static void *release_later(void *arg)
{
	struct holder *h = arg;
	struct timespec ts = { h->hold_ms / 1000, (long)(h->hold_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	h->rc = db_exec(h->db, "holder", "COMMIT");
	return NULL;
}

/* a writer waits for another connection's transaction instead of failing */
static void test_busy_timeout(void **state)
{
	struct tmp *t = *state;
	struct holder h = { .hold_ms = 400 };
	sqlite3 *a, *b, *raw;
	pthread_t th;
	double t0, waited;

	a = db_open(t->path, "holder", DB_CREATE);
	b = db_open(t->path, "waiter", DB_CREATE);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(db_exec(a, "holder", "CREATE TABLE t(k INTEGER PRIMARY KEY)"), 0);
	assert_int_equal(db_exec(a, "holder", "BEGIN IMMEDIATE; INSERT INTO t VALUES(1)"), 0);

	/* without a busy timeout, a second writer fails at once */
	assert_int_equal(sqlite3_open(t->path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "INSERT INTO t VALUES(3)", NULL, NULL, NULL),
			 SQLITE_BUSY);
	sqlite3_close(raw);

	h.db = a;
	assert_int_equal(pthread_create(&th, NULL, release_later, &h), 0);
	t0 = now_monotonic();
	assert_int_equal(db_exec(b, "waiter", "INSERT INTO t VALUES(2)"), 0);
	waited = now_monotonic() - t0;
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(h.rc, 0);
	assert_true(waited >= 0.3);
	assert_true(waited < DB_BUSY_TIMEOUT_MS / 1000.0);
	assert_query(b, "SELECT count(*) FROM t", "2");
	db_close(a);
	db_close(b);
}

static void test_bad_path(void **state)
{
	struct tmp *t = *state;
	char *missing = xasprintf("%s/no/such/dir/queue.db", t->dir);
	char *absent = xasprintf("%s/absent.db", t->dir);
	struct capture c;
	char *errs;

	(void)state;
	capture_start(&c);
	assert_null(db_open(missing, "queue", DB_CREATE));
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "mmlab: error: cannot open the queue "));
	assert_non_null(strstr(errs, missing));
	assert_non_null(strstr(errs, "check that its directory exists"));
	assert_null(strchr(strchr(errs, '\n') + 1, '\n')); /* one message */
	free(errs);

	/* without DB_CREATE a missing file is an error, and is not created */
	capture_start(&c);
	assert_null(db_open(absent, "bisect state", 0));
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "cannot open the bisect state "));
	assert_non_null(strstr(errs, absent));
	assert_false(path_exists(absent));
	free(errs);
	free(missing);
	free(absent);
}

/* prepare, step and exec errors name the store, its file and the SQL */
static void test_errors_name_sql(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = db_open(t->path, "results index", DB_CREATE);
	sqlite3_stmt *st;
	struct capture c;
	char *errs;

	assert_non_null(db);
	assert_int_equal(db_exec(db, "results index", "CREATE TABLE t(k INTEGER PRIMARY KEY)"), 0);
	capture_start(&c);
	assert_null(db_prepare(db, "results index", "SELECT nosuch FROM t"));
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "results index "));
	assert_non_null(strstr(errs, t->path));
	assert_non_null(strstr(errs, "cannot prepare 'SELECT nosuch FROM t'"));
	assert_non_null(strstr(errs, "no such column: nosuch"));
	free(errs);

	st = db_prepare(db, "results index", "INSERT INTO t VALUES(?1)");
	assert_non_null(st);
	sqlite3_bind_int(st, 1, 7);
	assert_int_equal(db_step_done(db, "results index", st), 0);
	st = db_prepare(db, "results index", "INSERT INTO t VALUES(?1)");
	sqlite3_bind_int(st, 1, 7);
	capture_start(&c);
	assert_int_equal(db_step_done(db, "results index", st), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "UNIQUE constraint failed"));
	assert_non_null(strstr(errs, "(in 'INSERT INTO t VALUES(?1)')"));
	free(errs);

	capture_start(&c);
	assert_int_equal(db_exec(db, "results index", "CREATE TABLE t(x)"), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "table t already exists (in 'CREATE TABLE t(x)')"));
	free(errs);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_sql, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
