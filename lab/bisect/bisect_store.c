// SPDX-License-Identifier: GPL-2.0
/*
 * bisect_store.c - a bisection's state in SQLite; see bisect_store.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <sqlite3.h>

#include "bisect/bisect_store.h"
#include "bisect/step_json.h"
#include "lib/db.h"
#include "lib/util.h"

struct bstore {
	sqlite3 *db;
	char *path;
};

static const char schema[] = "CREATE TABLE IF NOT EXISTS bisect("
			     " id INTEGER PRIMARY KEY CHECK (id = 1), params TEXT NOT NULL,"
			     " status TEXT NOT NULL, progress TEXT, result TEXT,"
			     " started REAL NOT NULL, finished REAL);"
			     "CREATE TABLE IF NOT EXISTS steps("
			     " seq INTEGER PRIMARY KEY AUTOINCREMENT, commit_id TEXT NOT NULL,"
			     " role TEXT NOT NULL, state TEXT NOT NULL, data TEXT NOT NULL,"
			     " started REAL NOT NULL, finished REAL);";

static double now_wall(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static int bexec(struct bstore *b, const char *sql)
{
	return db_exec(b->db, "bisect state", sql);
}

static sqlite3_stmt *prep(struct bstore *b, const char *sql)
{
	return db_prepare(b->db, "bisect state", sql);
}

static int finish(struct bstore *b, sqlite3_stmt *st)
{
	return db_step_done(b->db, "bisect state", st);
}

static void bind_json(sqlite3_stmt *st, int i, json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	if (s)
		sqlite3_bind_text(st, i, s, -1, free);
	else
		sqlite3_bind_null(st, i);
}

static json_t *col_json(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	json_t *j = s ? json_loads(s, 0, NULL) : NULL;

	return j ? j : json_null();
}

static json_t *col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() :
							   json_real(sqlite3_column_double(st, i));
}

static json_t *col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? json_string(s) : json_null();
}

struct bstore *bstore_open(const char *dir, bool create)
{
	struct bstore *b = xcalloc(1, sizeof(*b));

	b->path = xasprintf("%s/bisect.db", dir);
	if (create && mkdir_p(dir, 0755))
		goto fail;
	if (!create && !path_exists(b->path)) {
		lab_err("no bisection here: %s does not exist; start one with 'mmlab bisect "
			"start' (see 'mmlab bisect --help')",
			b->path);
		goto fail;
	}
	b->db = db_open(b->path, "bisect state", create ? DB_CREATE : 0);
	if (!b->db || bexec(b, schema))
		goto fail;
	return b;
fail:
	bstore_close(b);
	return NULL;
}

void bstore_close(struct bstore *b)
{
	if (!b)
		return;
	db_close(b->db);
	free(b->path);
	free(b);
}

int bstore_init(struct bstore *b, json_t *params)
{
	sqlite3_stmt *st = prep(b, "INSERT INTO bisect(id, params, status, started) "
				   "VALUES(1, ?1, 'started', ?2)");

	if (!st)
		return -1;
	bind_json(st, 1, params);
	sqlite3_bind_double(st, 2, now_wall());
	return finish(b, st);
}

json_t *bstore_get(struct bstore *b)
{
	sqlite3_stmt *st = prep(b, "SELECT params, status, progress, result, started, finished "
				   "FROM bisect WHERE id = 1");
	json_t *o = NULL;

	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "params", col_json(st, 0), "status",
			      col_text(st, 1), "progress", col_text(st, 2), "result",
			      col_json(st, 3), "started", col_real(st, 4), "finished",
			      col_real(st, 5));
	sqlite3_finalize(st);
	return o;
}

int bstore_set_status(struct bstore *b, const char *status, json_t *result)
{
	sqlite3_stmt *st = prep(
		b,
		result ? "UPDATE bisect SET status = ?1, result = ?2, finished = ?3 WHERE id = 1" :
			 "UPDATE bisect SET status = ?1 WHERE id = 1");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	if (result) {
		bind_json(st, 2, result);
		sqlite3_bind_double(st, 3, now_wall());
	}
	return finish(b, st);
}

int bstore_set_progress(struct bstore *b, const char *text)
{
	sqlite3_stmt *st = prep(b, "UPDATE bisect SET progress = ?1 WHERE id = 1");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	return finish(b, st);
}

long long bstore_step_open(struct bstore *b, const char *commit, const char *role)
{
	sqlite3_stmt *st;
	long long seq = -1;

	if (bexec(b, "BEGIN IMMEDIATE;"))
		return -1;
	st = prep(b, "SELECT seq FROM steps WHERE commit_id = ?1 AND role = ?2 "
		     "AND state != 'done' ORDER BY seq DESC LIMIT 1");
	if (!st)
		goto out;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, role, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (seq < 0) {
		st = prep(b, "INSERT INTO steps(commit_id, role, state, data, started) "
			     "VALUES(?1, ?2, 'running', '{}', ?3)");
		if (!st)
			goto out;
		sqlite3_bind_text(st, 1, commit, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, role, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 3, now_wall());
		if (!finish(b, st))
			seq = sqlite3_last_insert_rowid(b->db);
	}
out:
	if (bexec(b, seq < 0 ? "ROLLBACK;" : "COMMIT;"))
		seq = -1;
	return seq;
}

int bstore_step_set(struct bstore *b, long long seq, const char *state, json_t *data)
{
	sqlite3_stmt *st = prep(b, "UPDATE steps SET state = ?1, data = ?2, "
				   "finished = CASE WHEN ?1 = 'done' THEN ?3 ELSE finished END "
				   "WHERE seq = ?4");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_TRANSIENT);
	bind_json(st, 2, data);
	sqlite3_bind_double(st, 3, now_wall());
	sqlite3_bind_int64(st, 4, seq);
	return finish(b, st);
}

int bstore_step_add_done(struct bstore *b, const char *commit, const char *role, json_t *data,
			 double started, double finished)
{
	sqlite3_stmt *st = prep(b, "INSERT INTO steps(commit_id, role, state, data, started, "
				   "finished) VALUES(?1, ?2, 'done', ?3, ?4, ?5)");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, role, -1, SQLITE_TRANSIENT);
	bind_json(st, 3, data);
	sqlite3_bind_double(st, 4, started);
	sqlite3_bind_double(st, 5, finished);
	return finish(b, st);
}

json_t *bstore_steps(struct bstore *b)
{
	sqlite3_stmt *st = prep(b, "SELECT seq, commit_id, role, state, data, started, finished "
				   "FROM steps ORDER BY seq");
	json_t *a = json_array();

	if (!st)
		return a;
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(a,
				      json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "seq",
						(json_int_t)sqlite3_column_int64(st, 0), "commit",
						col_text(st, 1), "role", col_text(st, 2), "state",
						col_text(st, 3), "data", col_json(st, 4), "started",
						col_real(st, 5), "finished", col_real(st, 6)));
	sqlite3_finalize(st);
	return a;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? xstrdup(s) : NULL;
}

static double col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

void bstore_step_list(struct bstore *b, struct bstore_steps *out)
{
	sqlite3_stmt *st = prep(b, "SELECT seq, commit_id, role, state, data, started, finished "
				   "FROM steps ORDER BY seq");
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct bstore_step *r;

		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		r = &out->v[out->n++];
		r->seq = sqlite3_column_int64(st, 0);
		r->commit = col_str(st, 1);
		r->role = col_str(st, 2);
		r->state = col_str(st, 3);
		r->data = col_json(st, 4);
		if (step_data_from_json(r->data, &r->d))
			lab_err("bisect state %s: the data of step %lld does not read as a "
				"step's; it counts as not measured",
				b->path, r->seq);
		r->started = col_double(st, 5);
		r->finished = col_double(st, 6);
	}
	if (st)
		sqlite3_finalize(st);
}

void bstore_steps_release(struct bstore_steps *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].commit);
		free(l->v[i].role);
		free(l->v[i].state);
		json_decref(l->v[i].data);
		step_data_release(&l->v[i].d);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

bool bstore_step_is(const struct bstore_step *st, const char *role, const char *state)
{
	return (!role || (st->role && !strcmp(st->role, role))) &&
	       (!state || (st->state && !strcmp(st->state, state)));
}

const struct step_data *bstore_step_endpoint(const struct bstore_steps *steps, const char *role)
{
	for (size_t i = 0; i < steps->n; i++)
		if (bstore_step_is(&steps->v[i], role, "done"))
			return &steps->v[i].d;
	return NULL;
}

/* the typed state ---------------------------------------------------------- */

static const char *const status_names[] = {
	[BISECT_STARTED] = "started", [BISECT_RUNNING] = "running", [BISECT_REFUSED] = "refused",
	[BISECT_FAILED] = "failed",   [BISECT_DONE] = "done",
};

const char *bisect_status_name(enum bisect_status s)
{
	return (size_t)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

static int status_from_name(const char *name, enum bisect_status *s)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(status_names); i++) {
		if (!strcmp(name, status_names[i])) {
			*s = (enum bisect_status)i;
			return 0;
		}
	}
	return -1;
}

void bisect_state_release(struct bisect_state *st)
{
	bisect_params_release(&st->params);
	free(st->progress);
	json_decref(st->result);
	memset(st, 0, sizeof(*st));
}

json_t *bisect_state_json(const struct bisect_state *st)
{
	return json_pack("{s:o, s:s, s:s?, s:o, s:f, s:o}", "params",
			 bisect_params_to_json(&st->params), "status",
			 bisect_status_name(st->status), "progress", st->progress, "result",
			 st->result ? json_incref(st->result) : json_null(), "started", st->started,
			 "finished",
			 isfinite(st->finished) ? json_real(st->finished) : json_null());
}

/* the bisection row's columns into st; 0, or -1 with why in err */
static int load_row(sqlite3_stmt *q, struct bisect_state *st, char *err, size_t len)
{
	json_t *params = col_json(q, 0), *result = col_json(q, 3);
	const char *status = (const char *)sqlite3_column_text(q, 1);
	int ret = -1;

	if (bisect_params_from_json(params, &st->params, err, len))
		goto out;
	if (status_from_name(status, &st->status)) {
		snprintf(err, len, "the status '%s' is not one mmlab writes",
			 status ? status : "(none)");
		goto out;
	}
	st->progress = col_str(q, 2);
	st->result = json_is_null(result) ? NULL : json_incref(result);
	st->started = sqlite3_column_double(q, 4);
	st->finished = col_double(q, 5);
	ret = 0;
out:
	json_decref(params);
	json_decref(result);
	return ret;
}

int bstore_load(struct bstore *b, struct bisect_state *st)
{
	sqlite3_stmt *q = prep(b, "SELECT params, status, progress, result, started, finished "
				  "FROM bisect WHERE id = 1");
	char err[256];
	int ret = 1;

	memset(st, 0, sizeof(*st));
	if (!q)
		return 1;
	if (sqlite3_step(q) == SQLITE_ROW) {
		ret = load_row(q, st, err, sizeof(err));
		if (ret) {
			lab_err("the bisect state in %s is damaged (%s); 'mmlab bisect reset' and "
				"start again",
				b->path, err);
			bisect_state_release(st);
		}
	}
	sqlite3_finalize(q);
	return ret;
}

int bstore_create(struct bstore *b, const struct bisect_params *p)
{
	json_t *j = bisect_params_to_json(p);
	int ret = bstore_init(b, j);

	json_decref(j);
	return ret;
}
