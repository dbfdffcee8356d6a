// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lab/store/store.c: the store, its index and its JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "store/import.h"
#include "store/iteration.h"
#include "store/store.h"
#include "store/run_data.h"
#include "store/run_record.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "json_text.h"
#include "store_fixture.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-results-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static json_t *iteration(int idx, const char *status, double pgfault)
{
	return json_pack("{s:i, s:s, s:{s:f, s:f}}", "index", idx, "status", status, "metrics",
			 "vmstat.pgfault", pgfault, "time.elapsed_s", 1.5);
}

static char *make_run(struct store *s, const char *status, json_int_t pid)
{
	char *id = store_run_create(s, "unit");
	json_t *r;

	assert_non_null(id);
	r = json_pack("{s:s, s:s, s:s, s:s, s:I, s:[{s:s}, {s:s}]}", "run", id, "job", "unit",
		      "status", status, "created", "2026-12-02T00:00:00Z", "pid", pid, "variants",
		      "name", "a", "name", "b");
	assert_int_equal(run_json_write(s, id, r), 0);
	json_decref(r);
	return id;
}

static void test_run_roundtrip(void **state)
{
	char *dir = tmpdir(), *id;
	struct store *s = store_open(dir);
	json_t *it, *run, *v, *back;
	struct run_data d;

	(void)state;
	assert_non_null(s);
	id = make_run(s, "complete", 1);
	assert_true(strstr(id, "-unit-") != NULL);
	for (int i = 2; i >= 0; i--) {
		it = iteration(i, i == 1 ? "crashed" : "ok", 100.0 + i);
		assert_int_equal(store_iteration_write(s, id, "a", (unsigned int)i, it), 0);
		json_decref(it);
	}
	assert_true(store_iteration_done(s, id, "a", 0));
	assert_true(store_iteration_done(s, id, "a", 1));
	assert_false(store_iteration_done(s, id, "a", 3));
	assert_false(store_iteration_done(s, id, "b", 0));

	assert_int_equal(store_run_load(s, NULL, &d), 0); /* the latest */
	assert_string_equal(d.rec.run, id);
	assert_int_equal(d.rec.nvariants, 2);
	assert_int_equal(d.vars[0].n, 3);
	/* sorted by index, whatever the write order */
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(d.vars[0].its[i].index, i);
		assert_int_equal(iteration_ok(&d.vars[0].its[i]), i != 1);
	}
	assert_true(iteration_metric(&d.vars[0].its[2], "vmstat.pgfault") == 102.0);
	assert_int_equal(d.vars[1].n, 0);
	assert_false(d.import.present);
	/* results show --json: run.json with each variant's iterations as stored */
	run = run_data_to_json(&d);
	assert_string_equal(json_string_value(json_object_get(run, "run")), id);
	v = json_array_get(json_object_get(run, "variants"), 0);
	assert_int_equal(json_array_size(json_object_get(v, "iterations")), 3);
	for (int i = 0; i < 3; i++) {
		json_t *x = json_array_get(json_object_get(v, "iterations"), (size_t)i);
		json_t *want = iteration(i, i == 1 ? "crashed" : "ok", 100.0 + i);

		assert_true(json_equal(x, want));
		json_decref(want);
	}
	assert_int_equal(
		json_array_size(json_object_get(json_array_get(json_object_get(run, "variants"), 1),
						"iterations")),
		0);
	assert_null(json_object_get(run, "imported"));
	run_data_release(&d);
	/* the JSON reads back into the same run */
	assert_int_equal(run_data_from_json(run, &d), 0);
	assert_string_equal(d.rec.run, id);
	assert_int_equal(d.vars[0].n, 3);
	assert_int_equal(d.vars[0].its[2].index, 2);
	back = run_data_to_json(&d);
	assert_true(json_equal(back, run));
	json_decref(back);
	run_data_release(&d);
	json_decref(run);
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(id);
}

/* a variant's iterations as records: the ones store_run_load() hands */
static void test_variant_iterations(void **state)
{
	static const char bad[] = "{\"index\": \"one\", \"status\": 3}";
	char *dir = tmpdir(), *id, *p, *d;
	struct store *s = store_open(dir);
	struct iteration_record *its;
	size_t n;
	json_t *it;

	(void)state;
	id = make_run(s, "complete", 1);
	for (int i = 2; i >= 0; i--) {
		it = iteration(i, i == 1 ? "crashed" : "ok", 100.0 + i);
		assert_int_equal(store_iteration_write(s, id, "a", (unsigned int)i, it), 0);
		json_decref(it);
	}
	assert_int_equal(store_variant_iterations(s, id, "a", &its, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) { /* by index, whatever the write order */
		assert_int_equal(its[i].index, i);
		assert_int_equal(iteration_ok(&its[i]), i != 1);
	}
	assert_true(iteration_metric(&its[2], "vmstat.pgfault") == 102.0);
	iteration_records_free(its, n);
	/* a file that is not JSON is left out, as in the run's JSON */
	d = store_iteration_path(s, id, "a", 1);
	p = xasprintf("%s/iteration.json", d);
	assert_int_equal(write_file_atomic(p, "{not json", 9, 0644), 0);
	assert_int_equal(store_variant_iterations(s, id, "a", &its, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(its[1].index, 2);
	iteration_records_free(its, n);
	/* a variant with none, and a name that is no path component: none */
	assert_int_equal(store_variant_iterations(s, id, "b", &its, &n), 0);
	assert_int_equal(n, 0);
	iteration_records_free(its, n);
	assert_int_equal(store_variant_iterations(s, id, "../a", &its, &n), 0);
	assert_int_equal(n, 0);
	iteration_records_free(its, n);
	/* an iteration.json of the wrong shape is refused, with a message */
	assert_int_equal(write_file_atomic(p, bad, strlen(bad), 0644), 0);
	assert_int_equal(store_variant_iterations(s, id, "a", &its, &n), -1);
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(d);
	free(p);
	free(id);
}

/* write text to <run>/<rel> of store s */
static void put_file(struct store *s, const char *run, const char *rel, const char *text)
{
	char *dir = store_run_path(s, run), *p = xasprintf("%s/%s", dir, rel);
	char *slash = strrchr(p, '/');

	*slash = 0;
	assert_int_equal(mkdir_p(p, 0755), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
	free(dir);
}

/* store_run_load(): what it leaves out, what it keeps, an imported run's provenance */
static void test_run_load(void **state)
{
	static const char imp[] = "{\"imported\": \"2026-12-04T00:00:00Z\", \"from_store\": "
				  "\"/srv/results\", \"from_host\": \"lab2\", \"imported_by\": 7}";
	char *dir = tmpdir(), *id, *prefix;
	struct store *s = store_open(dir);
	struct run_data d;
	json_t *it, *j, *want;

	(void)state;
	id = make_run(s, "running", 0x7ffffff0); /* its process is gone */
	it = iteration(0, "ok", 1);
	assert_int_equal(store_iteration_write(s, id, "a", 0, it), 0);
	json_decref(it);
	put_file(s, id, "a/1/iteration.json", "{not json"); /* garbled: left out */
	put_file(s, id, "a/2/iteration.json", "[1, 2]"); /* not an object: no status */
	put_file(s, id, "import.json", imp);
	prefix = xstrndup(id, 15); /* a unique part of the id */
	assert_int_equal(store_run_load(s, prefix, &d), 0);
	assert_string_equal(d.rec.run, id);
	assert_string_equal(d.rec.status, "incomplete");
	assert_int_equal(d.vars[0].n, 2);
	assert_true(iteration_ok(&d.vars[0].its[0]));
	assert_null(d.vars[0].its[1].status);
	assert_false(iteration_ok(&d.vars[0].its[1]));
	assert_true(d.import.present);
	assert_string_equal(d.import.imported, "2026-12-04T00:00:00Z");
	assert_string_equal(d.import.from_store, "/srv/results");
	assert_string_equal(d.import.from_host, "lab2");
	assert_null(d.import.imported_by); /* not a string */
	j = run_data_to_json(&d);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "incomplete");
	it = json_object_get(json_array_get(json_object_get(j, "variants"), 0), "iterations");
	assert_int_equal(json_array_size(it), 2);
	want = json_text("[1, 2]");
	assert_true(json_equal(json_array_get(it, 1), want));
	json_decref(want);
	want = json_text(imp);
	assert_true(json_equal(json_object_get(j, "imported"), want));
	json_decref(want);
	json_decref(j);
	run_data_release(&d);
	/* "latest" is the run there is */
	assert_int_equal(store_run_load(s, "latest", &d), 0);
	assert_string_equal(d.rec.run, id);
	run_data_release(&d);
	/* an iteration document of the wrong shape is refused, and the run with it */
	put_file(s, id, "a/3/iteration.json", "{\"index\": \"three\", \"status\": \"ok\"}");
	assert_int_equal(store_run_load(s, id, &d), -1);
	run_data_release(&d);
	/* no such run */
	assert_int_equal(store_run_load(s, "nosuchrun", &d), -1);
	run_data_release(&d);
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(prefix);
	free(id);
}

/* a variant whose name is no path component has no iterations, whatever is there */
static void test_run_load_bad_variant(void **state)
{
	char *dir = tmpdir(), *id, *text;
	struct store *s = store_open(dir);
	struct run_data d;
	json_t *r, *it;

	(void)state;
	id = store_run_create(s, "unit");
	r = json_pack("{s:s, s:s, s:s, s:[{s:s}, {s:s}]}", "run", id, "job", "unit", "status",
		      "complete", "variants", "name", "..", "name", "a");
	text = json_dumps(r, 0);
	put_file(s, id, "run.json", text);
	free(text);
	json_decref(r);
	it = iteration(0, "ok", 1);
	assert_int_equal(store_iteration_write(s, id, "a", 0, it), 0);
	json_decref(it);
	/* where variant ".." would have its iteration 0 */
	put_file(s, id, "../0/iteration.json", "{\"status\": \"ok\", \"metrics\": {}}");
	assert_int_equal(store_run_load(s, id, &d), 0);
	assert_int_equal(d.rec.nvariants, 2);
	assert_int_equal(d.vars[0].n, 0);
	assert_int_equal(d.vars[1].n, 1);
	run_data_release(&d);
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(id);
}

static int count_rows(const char *dir, const char *sql)
{
	char *p = xasprintf("%s/mmlab.db", dir);
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(p);
	return n;
}

static void test_index_and_reindex(void **state)
{
	char *dir = tmpdir(), *id, *db;
	struct store *s = store_open(dir);
	json_t *it;

	(void)state;
	id = make_run(s, "complete", 1);
	it = iteration(0, "ok", 42);
	assert_int_equal(store_iteration_write(s, id, "a", 0, it), 0);
	/* rewriting an iteration replaces its rows */
	assert_int_equal(store_iteration_write(s, id, "a", 0, it), 0);
	json_decref(it);
	store_close(s);
	assert_int_equal(count_rows(dir, "select count(*) from metrics where name='vmstat.pgfault'"
					 " and value=42"),
			 1);
	/* lose the index: it is rebuilt from the files */
	db = xasprintf("%s/mmlab.db", dir);
	unlink(db);
	free(db);
	s = store_open(dir);
	assert_non_null(s);
	store_close(s);
	assert_int_equal(count_rows(dir, "select count(*) from runs"), 1);
	assert_int_equal(count_rows(dir, "select count(*) from metrics"), 2);
	rm_rf(dir);
	free(dir);
	free(id);
}

static void test_resolve(void **state)
{
	char *dir = tmpdir(), *a, *b, *r;
	struct store *s = store_open(dir);

	(void)state;
	a = make_run(s, "complete", 1);
	b = make_run(s, "complete", 1);
	assert_string_not_equal(a, b);
	r = store_run_resolve(s, a);
	assert_string_equal(r, a);
	free(r);
	/* the last 4 hex digits are unique (two runs in the same second differ there) */
	r = store_run_resolve(s, a + strlen(a) - 4);
	if (strcmp(a + strlen(a) - 4, b + strlen(b) - 4))
		assert_string_equal(r, a);
	free(r);
	assert_null(store_run_resolve(s, "no-such-run"));
	assert_null(store_run_resolve(s, "unit")); /* ambiguous */
	{
		struct run_record rec;

		assert_int_equal(store_record_read(s, "../etc", &rec), -1);
	}
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(a);
	free(b);
}

/* the status of run.json's object r */
static const char *effective_status(json_t *r)
{
	static char buf[32];
	struct run_record rec;

	assert_int_equal(run_record_from_json(r, &rec), 0);
	snprintf(buf, sizeof(buf), "%s", run_record_status(&rec));
	run_record_release(&rec);
	return buf;
}

static void test_effective_status(void **state)
{
	json_t *r;

	(void)state;
	/* pid 0x7ffffff0 does not exist: a "running" run whose process is gone */
	r = json_pack("{s:s, s:I}", "status", "running", "pid", (json_int_t)0x7ffffff0);
	assert_string_equal(effective_status(r), "incomplete");
	json_decref(r);
	r = json_pack("{s:s, s:I}", "status", "running", "pid", (json_int_t)getpid());
	assert_string_equal(effective_status(r), "running");
	json_decref(r);
	r = json_pack("{s:s, s:I, s:s}", "status", "running", "pid", (json_int_t)getpid(),
		      "host_boot_id", "not-this-boot");
	assert_string_equal(effective_status(r), "incomplete");
	json_decref(r);
	r = json_pack("{s:s}", "status", "complete");
	assert_string_equal(effective_status(r), "complete");
	json_decref(r);
}

static void test_list(void **state)
{
	char *dir = tmpdir(), *a;
	struct store *s = store_open(dir);
	struct run_row *rows;
	json_t *l, *it;
	size_t n;

	(void)state;
	a = make_run(s, "running", 0x7ffffff0);
	it = iteration(0, "ok", 1);
	store_iteration_write(s, a, "a", 0, it);
	json_decref(it);
	it = iteration(1, "timeout", 1);
	store_iteration_write(s, a, "a", 1, it);
	json_decref(it);
	assert_int_equal(store_run_rows(s, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].run, a);
	assert_string_equal(rows[0].status, "incomplete");
	assert_int_equal(rows[0].iterations, 2);
	assert_int_equal(rows[0].iterations_ok, 1);
	assert_int_equal(rows[0].variants, 2);
	assert_null(rows[0].job_file);
	l = run_rows_to_json(rows, n);
	assert_int_equal(json_array_size(l), 1);
	it = json_array_get(l, 0);
	assert_string_equal(json_string_value(json_object_get(it, "status")), "incomplete");
	assert_int_equal(json_integer_value(json_object_get(it, "iterations")), 2);
	assert_int_equal(json_integer_value(json_object_get(it, "iterations_ok")), 1);
	assert_int_equal(json_integer_value(json_object_get(it, "variants")), 2);
	json_decref(l);
	run_rows_free(rows, n);
	store_close(s);
	rm_rf(dir);
	free(dir);
	free(a);
}

/* an imported run.json is read into its record and checked before any file is copied */
static void test_import_check(void **state)
{
	static const char *const refused[] = {
		"[1]",
		"{\"run\": \"r-other\", \"variants\": []}",
		"{\"variants\": [{\"name\": \"a\"}]}",
		"{\"run\": \"r1\"}",
		"{\"run\": \"r1\", \"variants\": [{\"name\": 7}]}",
		"{\"run\": \"r1\", \"variants\": [{\"name\": \"../x\"}]}",
		"{\"run\": \"r1\", \"variants\": [{\"name\": \"a\"}]",
		"{\"run\": \"r1\", \"run\": \"r1\", \"variants\": []}",
	};
	const char *ok = "{\"run\": \"r1\", \"variants\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}";
	struct strlist names = { 0 };
	struct strbuf many = STRBUF_INIT;
	char *why;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		why = import_check_run_json(refused[i], strlen(refused[i]), "r1", NULL);
		assert_non_null(why);
		free(why);
	}
	assert_null(import_check_run_json(ok, strlen(ok), "r1", &names));
	assert_int_equal(names.n, 2);
	assert_string_equal(names.v[1], "b");
	strlist_free(&names);
	strbuf_addstr(&many, "{\"run\": \"r1\", \"variants\": [");
	for (int i = 0; i < 1001; i++)
		strbuf_addf(&many, "%s{\"name\": \"v%d\"}", i ? ", " : "", i);
	strbuf_addstr(&many, "]}");
	why = import_check_run_json(many.buf, many.len, "r1", NULL);
	assert_non_null(why); /* at most 1000 variants */
	free(why);
	strbuf_release(&many);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(mkdir_p(p, 0755), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

/* a run whose plan ("boots") names an iteration that is not there is refused */
static void test_import_plan(void **state)
{
	char *src = tmpdir(), *dst = tmpdir();
	const char *it = "{\"status\": \"ok\", \"metrics\": {}}";
	struct store *s = store_open(dst);
	unsigned int imported, skipped;

	(void)state;
	assert_non_null(s);
	put(src, "r1/run.json",
	    "{\"run\": \"r1\", \"variants\": [{\"name\": \"a\"}], "
	    "\"boots\": [{\"variant\": \"a\", \"first\": 0, \"count\": 2}]}");
	put(src, "r1/a/0/iteration.json", it);
	assert_int_equal(store_import(s, src, &imported, &skipped), STORE_IMPORT_REFUSED);
	assert_int_equal(imported, 0);
	put(src, "r1/a/1/iteration.json", "{\"status\": \"ok\"}");
	assert_int_equal(store_import(s, src, &imported, &skipped), STORE_IMPORT_REFUSED);
	put(src, "r1/a/1/iteration.json", it);
	assert_int_equal(store_import(s, src, &imported, &skipped), STORE_IMPORT_OK);
	assert_int_equal(imported, 1);
	store_close(s);
	rm_rf(src);
	rm_rf(dst);
	free(src);
	free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_roundtrip),
		cmocka_unit_test(test_variant_iterations),
		cmocka_unit_test(test_index_and_reindex),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_effective_status),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_import_check),
		cmocka_unit_test(test_import_plan),
		cmocka_unit_test(test_run_load),
		cmocka_unit_test(test_run_load_bad_variant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
