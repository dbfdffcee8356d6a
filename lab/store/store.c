// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - the results store: one directory per run holding JSON files
 * written atomically, indexed in SQLite (WAL) for listing and queries.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/iteration.h"
#include "store/store.h"
#include "store/run_data.h"
#include "store/run_record.h"
#include "lib/db.h"
#include "lib/timefmt.h"
#include "lib/util.h"

struct store {
	char *dir;
	sqlite3 *db; /* NULL: the files alone (store_open_files()) */
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs("
	"  id TEXT PRIMARY KEY, job TEXT NOT NULL, status TEXT NOT NULL,"
	"  created TEXT NOT NULL, finished TEXT);"
	"CREATE TABLE IF NOT EXISTS iterations("
	"  run TEXT NOT NULL, variant TEXT NOT NULL, idx INTEGER NOT NULL,"
	"  status TEXT NOT NULL, PRIMARY KEY(run, variant, idx));"
	"CREATE TABLE IF NOT EXISTS metrics("
	"  run TEXT NOT NULL, variant TEXT NOT NULL, idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL, value REAL, PRIMARY KEY(run, variant, idx, name));"
	"CREATE TABLE IF NOT EXISTS synced("
	"  run TEXT PRIMARY KEY, stamp TEXT NOT NULL);";

static int store_exec(struct store *s, const char *sql)
{
	return db_exec(s->db, "results index", sql);
}

static int store_reindex_all(struct store *s);

struct store *store_open(const char *dir)
{
	struct store *s = xcalloc(1, sizeof(*s));
	char *dbpath;
	int fresh;

	s->dir = xstrdup(dir);
	if (mkdir_p(dir, 0755))
		goto fail;
	dbpath = xasprintf("%s/mmlab.db", dir);
	fresh = !path_exists(dbpath);
	s->db = db_open(dbpath, "results index", DB_CREATE);
	free(dbpath);
	if (!s->db || store_exec(s, schema))
		goto fail;
	if (fresh ? store_reindex_all(s) : store_sync(s))
		goto fail;
	return s;
fail:
	store_close(s);
	return NULL;
}

struct store *store_open_files(const char *dir)
{
	struct store *s;

	if (!is_dir(dir)) {
		lab_err("no results store at %s (a Slurm task needs the store the run was "
			"submitted to, at the same path)",
			dir);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->dir = xstrdup(dir);
	return s;
}

bool store_indexed(const struct store *s)
{
	return s->db != NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	db_close(s->db);
	free(s->dir);
	free(s);
}

const char *store_dir(const struct store *s)
{
	return s->dir;
}

char *store_run_create(struct store *s, const char *job_name)
{
	char stamp[TIME_STR_LEN];
	unsigned char rnd[2];
	time_t t = time(NULL);

	time_stamp(t, false, stamp);
	for (int tries = 0; tries < 16; tries++) {
		char *id, *path;

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			rnd[0] = (unsigned char)getpid();
			rnd[1] = (unsigned char)tries;
		}
		id = xasprintf("%s-%s-%02x%02x", stamp, job_name, rnd[0], rnd[1]);
		path = store_run_path(s, id);
		if (mkdir(path, 0755) == 0) {
			free(path);
			return id;
		}
		if (errno != EEXIST) {
			lab_err("cannot create run directory %s: %s", path, strerror(errno));
			free(path);
			free(id);
			return NULL;
		}
		free(path);
		free(id);
	}
	lab_err("cannot find a free run id under %s", s->dir);
	return NULL;
}

char *store_run_path(const struct store *s, const char *run)
{
	return xasprintf("%s/%s", s->dir, run);
}

static bool valid_component(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/')
			return false;
	return true;
}

static int write_json(const char *path, json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	int ret;

	if (!text) {
		lab_err("cannot encode %s as JSON", path);
		return -1;
	}
	ret = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	return ret;
}

static json_t *read_json(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	if (!j)
		lab_err("%s:%d:%d: %s", path, e.line, e.column, e.text);
	return j;
}

static const char *jstr(json_t *o, const char *key, const char *def)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : def;
}

static int index_run(struct store *s, const struct run_record *r)
{
	sqlite3_stmt *st;

	if (!s->db)
		return 0;
	st = db_prepare(s->db, "results index",
			"INSERT INTO runs(id, job, status, created, finished)"
			" VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO UPDATE SET"
			" job=?2, status=?3, created=?4, finished=?5");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, r->run ? r->run : "?", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r->job ? r->job : "?", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->status ? r->status : "?", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, r->created ? r->created : "", -1, SQLITE_TRANSIENT);
	if (r->finished)
		sqlite3_bind_text(st, 5, r->finished, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	return db_step_done(s->db, "results index", st);
}

/* run.json written whole, atomically; the caller indexes it */
static int run_json_write(struct store *s, const char *run, json_t *runjson)
{
	char *path;
	int ret;

	if (!valid_component(run)) {
		lab_err("bad run id '%s'", run);
		return -1;
	}
	path = xasprintf("%s/%s/run.json", s->dir, run);
	ret = write_json(path, runjson);
	free(path);
	return ret;
}

char *store_kernel_file(const struct store *s, const char *run, const char *variant)
{
	return xasprintf("%s/%s/kernels/%s.json", s->dir, run, variant);
}

/*
 * A kernel a Slurm build job built, in <run>/kernels/<variant>.json
 * ({"request", "kernel"}), for a variant whose run.json still waits for
 * that request: the tasks on other hosts never rewrite run.json, so the
 * kernel is read from there until this host writes run.json again.
 */
static void kernels_overlay(struct store *s, const char *run, struct run_record *rec)
{
	for (size_t i = 0; i < rec->nvariants; i++) {
		struct run_variant *v = &rec->variants[i];
		char *path, *buf;
		json_t *f;
		size_t len;

		if (!v->has_kernel || !v->kernel.build_pending || !valid_component(v->name))
			continue;
		path = store_kernel_file(s, run, v->name);
		buf = path_exists(path) ? read_file(path, &len, STORE_MAX_KERNEL_FILE) : NULL;
		f = buf ? json_loadb(buf, len, 0, NULL) : NULL;
		if (f)
			run_kernel_from_file(&v->kernel, f);
		json_decref(f);
		free(buf);
		free(path);
	}
}

/* run.json as it is on disk: a new reference, or NULL after a message */
static json_t *run_json_read(struct store *s, const char *run)
{
	char *path;
	json_t *j;

	if (!valid_component(run)) {
		lab_err("bad run id '%s'", run);
		return NULL;
	}
	path = xasprintf("%s/%s/run.json", s->dir, run);
	if (!path_exists(path)) {
		lab_err("no run '%s' in %s ('mmlab results list' shows the runs)", run, s->dir);
		free(path);
		return NULL;
	}
	j = read_json(path);
	free(path);
	return j;
}

int store_record_read(struct store *s, const char *run, struct run_record *rec)
{
	json_t *j = run_json_read(s, run);
	int ret;

	memset(rec, 0, sizeof(*rec));
	if (!j)
		return -1;
	ret = run_record_from_json(j, rec);
	json_decref(j);
	if (ret)
		lab_err("run %s: run.json in %s is not a JSON object; it cannot be resumed", run,
			store_dir(s));
	else
		kernels_overlay(s, run, rec);
	return ret;
}

int store_record_write(struct store *s, const char *run, const struct run_record *rec)
{
	json_t *j = run_record_to_json(rec);
	int ret = run_json_write(s, run, j);

	json_decref(j);
	if (ret == 0)
		ret = index_run(s, rec);
	return ret;
}

char *store_iteration_path(const struct store *s, const char *run, const char *variant,
			   unsigned int index)
{
	return xasprintf("%s/%s/%s/%u", s->dir, run, variant, index);
}

static int index_iteration(struct store *s, const char *run, const char *variant,
			   unsigned int index, json_t *it)
{
	sqlite3_stmt *st = NULL;
	const char *key;
	json_t *v;
	int rc;

	if (!s->db)
		return 0;
	if (store_exec(s, "BEGIN IMMEDIATE"))
		return -1;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO iterations(run, variant, idx, status)"
			       " VALUES(?1, ?2, ?3, ?4)",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, variant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, (int)index);
	sqlite3_bind_text(st, 4, jstr(it, "status", "?"), -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	/* a boot stored again (a requeued attempt) leaves no metric of the last */
	if (sqlite3_prepare_v2(s->db,
			       "DELETE FROM metrics WHERE run = ?1 AND variant = ?2 AND idx = ?3",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, variant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, (int)index);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO metrics(run, variant, idx, name, value)"
			       " VALUES(?1, ?2, ?3, ?4, ?5)",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	json_object_foreach(json_object_get(it, "metrics"), key, v) {
		if (!json_is_number(v))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 2, variant, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 3, (int)index);
		sqlite3_bind_text(st, 4, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 5, json_number_value(v));
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
	}
	sqlite3_finalize(st);
	return store_exec(s, "COMMIT");
fail:
	lab_err("results index: %s", sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int store_iteration_write(struct store *s, const char *run, const char *variant, unsigned int index,
			  json_t *iteration)
{
	char *dir, *path;
	int ret;

	if (!valid_component(run) || !valid_component(variant)) {
		lab_err("bad run or variant name '%s/%s'", run, variant);
		return -1;
	}
	dir = store_iteration_path(s, run, variant, index);
	if (mkdir_p(dir, 0755)) {
		free(dir);
		return -1;
	}
	path = xasprintf("%s/iteration.json", dir);
	ret = write_json(path, iteration);
	free(path);
	free(dir);
	if (ret == 0)
		ret = index_iteration(s, run, variant, index, iteration);
	return ret;
}

static bool final_status(const char *st)
{
	return st && (!strcmp(st, "ok") || !strcmp(st, "crashed") || !strcmp(st, "timeout") ||
		      !strcmp(st, "failed"));
}

bool store_iteration_done(struct store *s, const char *run, const char *variant, unsigned int index)
{
	char *dir = store_iteration_path(s, run, variant, index);
	char *path = xasprintf("%s/iteration.json", dir);
	json_t *j = NULL;
	bool done = false;

	if (path_exists(path)) {
		j = json_load_file(path, 0, NULL);
		done = j && final_status(jstr(j, "status", NULL));
	}
	json_decref(j);
	free(path);
	free(dir);
	return done;
}

static int cmp_rev(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

static int list_run_dirs(struct store *s, struct strlist *out)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;

	if (!d) {
		lab_err("cannot read the results directory %s: %s", s->dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/run.json", s->dir, e->d_name);
		if (path_exists(p))
			strlist_push(out, e->d_name);
		free(p);
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_rev);
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* the iteration numbers under DIR/<run>/<variant>/, sorted; count in *n */
static unsigned int *iteration_dirs(struct store *s, const char *run, const char *variant,
				    size_t *n)
{
	char *vdir = xasprintf("%s/%s/%s", s->dir, run, variant);
	DIR *d = opendir(vdir);
	unsigned int *idx = NULL;
	size_t alloc = 0;
	struct dirent *e;

	free(vdir);
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		uint64_t k;

		if (parse_uint(e->d_name, &k) || k > STORE_MAX_ITERATIONS)
			continue;
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			idx = xrealloc(idx, alloc * sizeof(*idx));
		}
		idx[(*n)++] = (unsigned int)k;
	}
	closedir(d);
	if (*n)
		qsort(idx, *n, sizeof(*idx), cmp_uint);
	return idx;
}

/* every stored iteration of the run, whatever order its boots finished in */
static int reindex_iterations(struct store *s, const char *run, const struct run_record *r)
{
	size_t n;

	for (size_t i = 0; i < r->nvariants; i++) {
		const char *name = r->variants[i].name;
		unsigned int *idx =
			name && valid_component(name) ? iteration_dirs(s, run, name, &n) : NULL;

		for (size_t k = 0; idx && k < n; k++) {
			char *dir = store_iteration_path(s, run, name, idx[k]);
			char *p = xasprintf("%s/iteration.json", dir);
			json_t *it = path_exists(p) ? json_load_file(p, 0, NULL) : NULL;

			if (json_is_object(it))
				index_iteration(s, run, name, idx[k], it);
			json_decref(it);
			free(p);
			free(dir);
		}
		free(idx);
	}
	return 0;
}

int store_index_run(struct store *s, const char *run)
{
	struct run_record r;
	int ret = store_record_read(s, run, &r) ? -1 : index_run(s, &r);

	if (!ret)
		reindex_iterations(s, run, &r);
	run_record_release(&r);
	return ret;
}

/* rebuild the index from the files (a new or lost mmlab.db) */
static int store_reindex_all(struct store *s)
{
	struct strlist runs = { 0 };

	if (list_run_dirs(s, &runs))
		return -1;
	for (size_t i = 0; i < runs.n; i++)
		store_index_run(s, runs.v[i]);
	strlist_free(&runs);
	return 0;
}

int store_reindex(struct store *s)
{
	if (!s->db) {
		lab_err("the store %s was opened without its index", s->dir);
		return -1;
	}
	/* each iteration is its own transaction: a reader may see it half rebuilt */
	if (store_exec(s, "BEGIN IMMEDIATE; DELETE FROM metrics; DELETE FROM iterations;"
			  " DELETE FROM runs; DELETE FROM synced; COMMIT;"))
		return -1;
	return store_reindex_all(s);
}

/*
 * What other hosts changed of a run, as the file server sees it: the
 * mtimes of run.json and of its tasks/ directory (a task record renamed
 * into place changes it). Compared for equality only, never with a clock.
 * NULL if the run has no task records (only this host writes it).
 */
static char *run_stamp(struct store *s, const char *run)
{
	char *rp = xasprintf("%s/%s/run.json", s->dir, run);
	char *tp = xasprintf("%s/%s/tasks", s->dir, run);
	char *stamp = NULL;
	struct stat a, b;

	if (!stat(rp, &a) && !stat(tp, &b) && S_ISDIR(b.st_mode))
		stamp = xasprintf("%lld.%09ld %lld.%09ld", (long long)a.st_mtim.tv_sec,
				  a.st_mtim.tv_nsec, (long long)b.st_mtim.tv_sec,
				  b.st_mtim.tv_nsec);
	free(rp);
	free(tp);
	return stamp;
}

/* 1 the run's stamp is the one its index rows were made at, 0 not, -1 error */
static int stamp_same(struct store *s, const char *run, const char *stamp)
{
	sqlite3_stmt *st =
		db_prepare(s->db, "results index", "SELECT stamp = ?2 FROM synced WHERE run = ?1");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, stamp, -1, SQLITE_TRANSIENT);
	rc = db_step(s->db, "results index", st);
	if (rc > 0)
		rc = sqlite3_column_int(st, 0) ? 1 : 0;
	sqlite3_finalize(st);
	return rc;
}

static int stamp_set(struct store *s, const char *run, const char *stamp)
{
	sqlite3_stmt *st = db_prepare(s->db, "results index",
				      "INSERT OR REPLACE INTO synced(run, stamp) VALUES(?1, ?2)");

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, stamp, -1, SQLITE_TRANSIENT);
	return db_step_done(s->db, "results index", st);
}

int store_sync(struct store *s)
{
	struct strlist runs = { 0 };
	int ret = 0;

	if (!s->db)
		return 0;
	if (list_run_dirs(s, &runs))
		return -1;
	for (size_t i = 0; i < runs.n && !ret; i++) {
		char *stamp = run_stamp(s, runs.v[i]);
		int same = stamp ? stamp_same(s, runs.v[i], stamp) : 1;

		if (same < 0)
			ret = -1;
		else if (!same && !store_index_run(s, runs.v[i]))
			ret = stamp_set(s, runs.v[i], stamp);
		free(stamp);
	}
	strlist_free(&runs);
	return ret;
}

static json_t *load_iterations(struct store *s, const char *run, const char *variant)
{
	json_t *arr = json_array();
	size_t n;
	unsigned int *idx = iteration_dirs(s, run, variant, &n);

	for (size_t i = 0; i < n; i++) {
		char *dir = store_iteration_path(s, run, variant, idx[i]);
		char *p = xasprintf("%s/iteration.json", dir);
		json_t *it = path_exists(p) ? read_json(p) : NULL;

		if (it)
			json_array_append_new(arr, it);
		free(p);
		free(dir);
	}
	free(idx);
	return arr;
}

/* a run's iterations and those ok: from the index, or the files when there is none */
static void run_counts(struct store *s, const char *run, const struct run_record *r,
		       json_int_t *nit, json_int_t *nok)
{
	sqlite3_stmt *st;
	json_t *it;
	size_t k;

	*nit = *nok = 0;
	if (!s->db) {
		for (size_t i = 0; i < r->nvariants; i++) {
			const char *name = r->variants[i].name;
			json_t *its = name && valid_component(name) ?
					      load_iterations(s, run, name) :
					      NULL;

			json_array_foreach(its, k, it) {
				(*nit)++;
				*nok += !strcmp(jstr(it, "status", ""), "ok");
			}
			json_decref(its);
		}
		return;
	}
	if (sqlite3_prepare_v2(s->db,
			       "SELECT count(*), sum(status = 'ok') FROM iterations"
			       " WHERE run = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*nit = sqlite3_column_int64(st, 0);
		*nok = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

int store_run_rows(struct store *s, struct run_row **rows, size_t *n)
{
	struct strlist runs = { 0 };

	*rows = NULL;
	*n = 0;
	if (list_run_dirs(s, &runs))
		return -1;
	for (size_t i = 0; i < runs.n; i++) {
		struct run_record r;
		json_int_t nit, nok;

		if (store_record_read(s, runs.v[i], &r))
			continue;
		run_counts(s, runs.v[i], &r, &nit, &nok);
		*rows = xrealloc(*rows, (*n + 1) * sizeof(**rows));
		(*rows)[(*n)++] = (struct run_row){
			.run = xstrdup(runs.v[i]),
			.job = xstrdup(r.job ? r.job : "?"),
			.created = xstrdup(r.created ? r.created : ""),
			.status = xstrdup(run_record_status(&r)),
			.job_file = r.job_file ? xstrdup(r.job_file) : NULL,
			.variants = r.nvariants,
			.iterations = nit,
			.iterations_ok = nok,
		};
		run_record_release(&r);
	}
	strlist_free(&runs);
	return 0;
}

void run_rows_free(struct run_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].run);
		free(rows[i].job);
		free(rows[i].created);
		free(rows[i].status);
		free(rows[i].job_file);
	}
	free(rows);
}

char *store_run_resolve(struct store *s, const char *run)
{
	struct strlist runs = { 0 };
	char *found = NULL;
	size_t matches = 0;

	if (run && valid_component(run)) {
		char *p = xasprintf("%s/%s/run.json", s->dir, run);
		bool ok = path_exists(p);

		free(p);
		if (ok)
			return xstrdup(run);
	}
	if (list_run_dirs(s, &runs))
		return NULL;
	if (!run || !strcmp(run, "latest")) {
		if (runs.n) {
			/* run ids start with a UTC timestamp: the greatest is the newest */
			found = xstrdup(runs.v[0]);
		} else {
			lab_err("no runs in %s yet; 'mmlab run JOB' makes one", s->dir);
		}
		strlist_free(&runs);
		return found;
	}
	for (size_t i = 0; i < runs.n; i++) {
		if (!strncmp(runs.v[i], run, strlen(run)) || strstr(runs.v[i], run)) {
			if (!found)
				found = xstrdup(runs.v[i]);
			matches++;
		}
	}
	strlist_free(&runs);
	if (matches == 1)
		return found;
	free(found);
	if (matches == 0)
		lab_err("no run matches '%s' in %s ('mmlab results list' shows the runs)", run,
			s->dir);
	else
		lab_err("'%s' matches %zu runs in %s; give more of the run id", run, matches,
			s->dir);
	return NULL;
}

/* an imported run's provenance (<run>/import.json), when there is one */
static void load_import(struct store *s, const char *run, struct run_import *imp)
{
	char *p = xasprintf("%s/%s/import.json", s->dir, run), *buf;
	size_t len;
	json_t *j;

	buf = path_exists(p) ? read_file(p, &len, 65536) : NULL;
	j = buf ? json_loadb(buf, len, 0, NULL) : NULL;
	run_import_from_json(j, imp);
	json_decref(j);
	free(buf);
	free(p);
}

/* the iterations of each variant of d->rec (run id): 0, or -1 after a message */
static int load_variants(struct store *s, const char *id, struct run_data *d)
{
	d->vars = xcalloc(d->rec.nvariants + 1, sizeof(*d->vars));
	for (size_t i = 0; i < d->rec.nvariants; i++) {
		const char *name = d->rec.variants[i].name;
		json_t *its = valid_component(name) ? load_iterations(s, id, name) : json_array();
		char *where = xasprintf("run %s variant %s", id, name);
		int rc = run_data_variant_from_json(its, &d->vars[i], where);

		free(where);
		json_decref(its);
		if (rc)
			return -1;
	}
	return 0;
}

int store_run_load(struct store *s, const char *run, struct run_data *d)
{
	char *id = store_run_resolve(s, run);
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (!id || store_record_read(s, id, &d->rec)) {
		free(id);
		return -1;
	}
	if (run_record_status(&d->rec) != d->rec.status) { /* "running" reported as "incomplete" */
		char *st = xstrdup(run_record_status(&d->rec));

		free(d->rec.status);
		d->rec.status = st;
	}
	if (!load_variants(s, id, d)) {
		load_import(s, id, &d->import);
		rc = 0;
	}
	free(id);
	return rc;
}

int store_variant_iterations(struct store *s, const char *run, const char *variant,
			     struct iteration_record **recs, size_t *n)
{
	json_t *its = valid_component(variant) ? load_iterations(s, run, variant) : json_array();
	char *where = xasprintf("variant %s", variant);
	int rc = iteration_records_from_json(its, recs, n, where);

	free(where);
	json_decref(its);
	return rc;
}

int store_kernels_used(const char *results_dir, struct kernel_uses *out)
{
	struct store s = { .dir = (char *)results_dir };
	struct strlist runs = { 0 };

	memset(out, 0, sizeof(*out));
	if (!results_dir || !is_dir(results_dir))
		return 0; /* no runs yet: none uses a kernel */
	if (list_run_dirs(&s, &runs))
		return -1;
	for (size_t i = 0; i < runs.n; i++) {
		struct run_record r;

		if (store_record_read(&s, runs.v[i], &r))
			continue; /* said; a broken run keeps nothing */
		for (size_t k = 0; k < r.nvariants; k++) {
			const struct run_kernel *rk = &r.variants[k].kernel;
			const char *pkg = run_kernel_package_sha256(rk);

			if (!r.variants[k].has_kernel || (!rk->cache_key && !pkg))
				continue;
			out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n++] = (struct kernel_use){
				.run = xstrdup(runs.v[i]),
				.cache_key = rk->cache_key ? xstrdup(rk->cache_key) : NULL,
				.package_sha256 = pkg ? xstrdup(pkg) : NULL,
			};
		}
		run_record_release(&r);
	}
	strlist_free(&runs);
	return 0;
}
