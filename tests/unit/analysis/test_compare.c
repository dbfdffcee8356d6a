// SPDX-License-Identifier: GPL-2.0
/*
 * test_compare.c - lab/compare*.c and report_html.c: golden text, markdown
 * and csv from fixed fixtures, statistical validation with seeded GSL
 * random numbers, degenerate inputs, derived metrics, warnings, HTML.
 *
 * MMLAB_UPDATE_GOLDEN=1 rewrites the golden files (then review the diff).
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "builtin/builtin.h"
#include "json_text.h"
#include "analysis/compare.h"
#include "lib/strbuf.h"
#include "analysis/summary.h"

static char *fixture(const char *name)
{
	const char *src = getenv("MMLAB_SRCDIR");

	return xasprintf("%s/tests/unit/compare/%s", src ? src : ".", name);
}

static json_t *load_json(const char *name)
{
	char *path = fixture(name);
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);

	if (!j)
		fail_msg("%s: %s", path, e.text);
	free(path);
	return j;
}

/* a run's JSON (`mmlab results show --json`) into the comparison, as a typed run */
static int add_run_json(struct comparison *c, const json_t *run)
{
	struct run_data d;
	int rc = run_data_from_json(run, &d);

	if (!rc)
		rc = cmp_add_run(c, &d);
	run_data_release(&d);
	return rc;
}

static char *render(const struct comparison *c, enum cmp_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(cmp_write(c, fmt, f), 0);
	fclose(f);
	return buf;
}

static void check_golden(const char *out, const char *name)
{
	char *path = fixture(name);
	char *want;

	if (getenv("MMLAB_UPDATE_GOLDEN"))
		assert_int_equal(write_file_atomic(path, out, strlen(out), 0644), 0);
	want = read_file(path, NULL, 1 << 20);
	if (!want)
		fail_msg("missing golden file %s (MMLAB_UPDATE_GOLDEN=1 makes it)", path);
	if (strcmp(out, want))
		fail_msg("output differs from %s:\n%s", path, out);
	free(want);
	free(path);
}

static struct comparison *run1(const char *baseline, const char *globs)
{
	struct comparison *c = cmp_new();
	json_t *run = load_json("run1.json");

	assert_int_equal(add_run_json(c, run), 0);
	assert_int_equal(cmp_add_derived(c, "mig_per_stall",
					 "vmstat.pgmigrate_success / vmstat.compact_stall"),
			 0);
	json_decref(run);
	assert_int_equal(cmp_compute(c, baseline, 0.05, globs), 0);
	return c;
}

static void test_golden_run(void **state)
{
	struct comparison *c = run1(NULL, NULL);
	static const struct {
		enum cmp_format f;
		const char *golden;
	} g[] = {
		{ CMP_TEXT, "run1.text.golden" },
		{ CMP_MARKDOWN, "run1.markdown.golden" },
		{ CMP_CSV, "run1.csv.golden" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(g); i++) {
		char *out = render(c, g[i].f);

		check_golden(out, g[i].golden);
		if (g[i].f == CMP_TEXT) {
			/* pastes into an email: no line over 100 columns */
			for (char *l = out; *l;) {
				size_t n = strcspn(l, "\n");

				assert_in_range(n, 0, 100);
				l += n + (l[n] == '\n');
			}
		}
		free(out);
	}
	cmp_free(c);
}

static void test_golden_samples(void **state)
{
	struct comparison *c = cmp_new();
	char *path = fixture("samples.csv"), *out;

	(void)state;
	assert_int_equal(cmp_add_samples_csv(c, path), 0);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	out = render(c, CMP_TEXT);
	check_golden(out, "samples.text.golden");
	free(out);
	out = render(c, CMP_CSV);
	check_golden(out, "samples.csv.golden");
	free(out);
	free(path);
	cmp_free(c);
}

static const struct cmp_metric *metric(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	fail_msg("metric %s missing", name);
	return NULL;
}

static bool has_line(const struct strlist *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++)
		if (strstr(l->v[i], needle))
			return true;
	return false;
}

static const struct cmp_metric *metric_find_opt(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

static void test_run_semantics(void **state)
{
	struct comparison *c = run1("compactfix", "usemem.*");
	const struct cmp_metric *m;

	(void)state;
	assert_int_equal(c->nmetrics, 2);
	assert_string_equal(c->vars[c->baseline].name, "compactfix");
	m = metric(c, "usemem.throughput_mbs.T1");
	assert_int_equal(m->dir, DIR_HIGHER);
	/* base is slower than compactfix: negative = worse */
	assert_true(m->cells[0].pct < 0);
	assert_true(m->cells[0].ci_low <= m->cells[0].pct &&
		    m->cells[0].pct <= m->cells[0].ci_high);
	assert_int_equal(m->cells[2].s.n, 4); /* one crashed iteration */
	assert_true(has_line(&c->notes, "1 of 5 iterations not ok"));
	assert_true(has_line(&c->warnings, "thp.defrag (always vs madvise)"));
	cmp_free(c);

	/* Ops rows 0 everywhere: out of the default set, in with --metrics */
	c = run1(NULL, NULL);
	assert_null(metric_find_opt(c, "vmstat.numa_hint_faults"));
	assert_true(has_line(&c->notes, "2 Ops rows 0 in every sample"));
	cmp_free(c);
	c = run1(NULL, "vmstat.numa_*");
	assert_non_null(metric_find_opt(c, "vmstat.numa_hint_faults"));
	assert_false(has_line(&c->notes, "0 in every sample"));
	cmp_free(c);

	c = cmp_new();
	{
		json_t *run = load_json("run1.json");

		assert_int_equal(add_run_json(c, run), 0);
		assert_int_equal(add_run_json(c, run), 0);
		json_decref(run);
	}
	assert_int_equal(c->nvars, 6);
	assert_string_equal(c->vars[3].name, "base.r2");
	assert_int_equal(cmp_compute(c, "nope", 0.05, NULL), -1);
	cmp_free(c);
}

static struct comparison *from_csv(const char *csv, const char *globs)
{
	struct comparison *c = cmp_new();

	assert_int_equal(cmp_add_samples_buf(c, "test.csv", csv), 0);
	assert_int_equal(cmp_compute(c, NULL, 0.05, globs), 0);
	return c;
}

static void render_all(const struct comparison *c)
{
	for (int f = CMP_TEXT; f <= CMP_HTML; f++)
		free(render(c, (enum cmp_format)f));
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);

		assert_int_equal(cmp_write_power(c, 0.02, CMP_TEXT, fp), 0);
		assert_int_equal(cmp_write_power(c, 0.02, CMP_JSON, fp), 0);
		fclose(fp);
		free(buf);
	}
}

static void test_degenerate(void **state)
{
	struct comparison *c =
		from_csv("a,flat,5\na,flat,5\na,flat,5\nb,flat,5\nb,flat,5\nb,flat,5\n"
			 "a,shift,5\na,shift,5\nb,shift,6\nb,shift,6\n"
			 "a,one,1\nb,one,2\n"
			 "a,zerobase,0\na,zerobase,0\nb,zerobase,1\nb,zerobase,2\n"
			 "a,nanbase,nan\na,nanbase,nan\nb,nanbase,1\nb,nanbase,2\n"
			 "a,onlya,1\na,onlya,2\n"
			 "b,onlyb,1\nb,onlyb,2\n",
			 NULL);
	const struct cmp_metric *m;

	(void)state;
	m = metric(c, "flat");
	assert_false(m->cells[1].significant);
	assert_true(m->cells[1].pct == 0);
	m = metric(c, "shift");
	assert_true(m->cells[1].significant); /* zero variance, means differ */
	m = metric(c, "one");
	assert_false(m->cells[1].t.valid);
	assert_false(m->cells[1].significant);
	m = metric(c, "zerobase");
	assert_true(isnan(m->cells[1].pct));
	assert_true(isnan(m->cells[1].ci_low));
	m = metric(c, "nanbase");
	assert_int_equal(m->cells[0].s.n, 0);
	assert_false(m->cells[1].t.valid);
	m = metric(c, "onlyb");
	assert_int_equal(m->cells[0].s.n, 0);
	assert_true(has_line(&c->notes, "no significance test"));
	render_all(c);
	cmp_free(c);

	/* issue 20: the variance overflows; this aborted in GSL */
	c = from_csv("a,m,-1e308\na,m,0\nb,m,1\nb,m,2\n", NULL);
	m = metric(c, "m");
	assert_false(m->cells[1].t.valid);
	assert_false(m->cells[1].significant);
	render_all(c);
	{
		/* the summary says why there is no test, not "fewer than 2 samples" */
		char *text = render(c, CMP_TEXT);

		assert_non_null(strstr(text,
				       "Summary: no test of b against a: the values are too large "
				       "for a t-test (their variance overflows)."));
		/* and so does the note: the test was skipped for the overflow */
		assert_null(strstr(text, "n < 2"));
		assert_non_null(strstr(text, "no significance test for m: the values are too "
					     "large for a t-test (their variance overflows)"));
		free(text);
	}
	cmp_free(c);

	/* one variant only, one sample only */
	c = from_csv("a,x,1\n", NULL);
	render_all(c);
	cmp_free(c);
}

/* a run's facts and settings as typed fields: what the HTML report's header prints */
static void test_runinfo(void **state)
{
	static const char bad_derived[] =
		"{\"run\": \"r\", \"job_resolved\": {\"derived\": {\"x\": 3}},"
		" \"variants\": [{\"name\": \"a\", \"iterations\": []}]}";
	struct comparison *c = cmp_new();
	json_t *run = load_json("demo.json");
	const struct cmp_runinfo *ri;
	const struct cmp_variant *v;

	(void)state;
	assert_int_equal(add_run_json(c, run), 0);
	json_decref(run);
	assert_int_equal(c->nruninfo, 1);
	ri = &c->runinfo[0];
	assert_string_equal(ri->job, "demo");
	assert_string_equal(ri->created, "2026-12-03T12:30:05Z");
	assert_true(ri->has_host);
	assert_string_equal(ri->accel, "tcg");
	assert_string_equal(ri->qemu, "7.2.22");
	assert_string_equal(ri->hostname, "vm");
	assert_int_equal(ri->cpus, 2);
	assert_string_equal(ri->order_mode, "random");
	assert_int_equal(ri->seed, 42);
	assert_int_equal(ri->sequence.n, 6);
	assert_string_equal(ri->sequence.v[0], "always/2");
	assert_string_equal(ri->job_accel, "auto");
	assert_string_equal(ri->workload, "usemem");
	assert_string_equal(json_string_value(json_object_get(ri->params, "step")), "4096");
	assert_true(ri->has_iterations);
	assert_int_equal(ri->iterations, 3);
	assert_int_equal(ri->iterations_per_boot, 1);
	assert_string_equal(ri->image_kind, "initramfs");
	assert_int_equal(ri->nnodes, 2);
	assert_int_equal(ri->nodes[1].cpus, 1);
	assert_int_equal(ri->nodes[1].mib, 512);
	assert_int_equal(ri->ndist, 2);
	assert_int_equal(ri->dist[0].n, 2);
	assert_int_equal(ri->dist[0].v[1], 20);
	assert_null(ri->derived);
	/* the variants: the job's settings, the kernel record */
	assert_int_equal(c->nvars, 2);
	v = &c->vars[1];
	assert_string_equal(v->name, "always");
	assert_string_equal(v->kernel, "6.1.0-57-amd64");
	assert_string_equal(v->setup.kpath, "/boot/vmlinuz-6.1.0-57-amd64");
	assert_null(v->setup.ksource);
	assert_null(v->setup.cmdline); /* null in the job */
	assert_string_equal(json_string_value(json_object_get(v->setup.thp, "defrag")), "always");
	assert_int_equal(json_object_size(v->setup.sysctl), 0);
	assert_string_equal(kvlist_get(&v->config, "thp.defrag"), "always");
	assert_string_equal(kvlist_get(&v->config, "host.qemu"), "7.2.22");
	assert_null(kvlist_get(&v->config, "host.accel_reason"));
	cmp_free(c);

	/* a run without an id or with a bad variant is refused; a formula is kept as given */
	c = cmp_new();
	run = json_text("{\"variants\": []}");
	assert_int_equal(add_run_json(c, run), -1);
	json_decref(run);
	run = json_text("{\"run\": \"r\", \"variants\": [{\"iterations\": []}]}");
	assert_int_equal(add_run_json(c, run), -1);
	json_decref(run);
	run = json_text(bad_derived);
	assert_int_equal(add_run_json(c, run), 0);
	json_decref(run);
	assert_int_equal(json_integer_value(json_object_get(c->runinfo[0].derived, "x")), 3);
	cmp_free(c);
}

static void test_bad_input(void **state)
{
	struct comparison *c = cmp_new();

	(void)state;
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,x,notanumber\n"), -1);
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,x,1,sideways\n"), -1);
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,x\n"), -1);
	assert_int_equal(cmp_add_samples_buf(c, "t", "\"a\",x,1\n"), -1);
	assert_int_equal(cmp_add_derived(c, "bad", "a +"), -1);
	cmp_free(c);
	/* the header may follow comments; a second header row is an error */
	c = cmp_new();
	assert_int_equal(cmp_add_samples_buf(c, "t",
					     "# c\n\nvariant,metric,value\n"
					     "a,x,1\n"),
			 0);
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,x,1\nvariant,metric,value\n"), -1);
	cmp_free(c);
	c = cmp_new();
	assert_int_equal(cmp_add_samples_buf(c, "t", "# only a comment\n"), -1);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), -1);
	cmp_free(c);
}

/*
 * issue 20: every metric kept a cell for every variant, so 3000 rows
 * "v<i>,m<i>,1" took 84 s and 1.76 GB, and 138 KB ran out of 8 GB. The
 * comparison now holds at most CMP_MAX_VARIANTS variants and
 * CMP_MAX_CELLS cells, and finds metrics through an index.
 */
static void test_limits(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct comparison *c = cmp_new();

	(void)state;
	for (int i = 0; i < 3000; i++)
		strbuf_addf(&sb, "v%d,m%d,1\n", i, i);
	assert_int_equal(cmp_add_samples_buf(c, "t", sb.buf), -1);
	assert_int_equal(c->nvars, CMP_MAX_VARIANTS);
	cmp_free(c);
	/* many metrics on 2 variants are fine up to the cells' limit */
	strbuf_reset(&sb);
	for (int i = 0; i < CMP_MAX_CELLS / 2; i++)
		strbuf_addf(&sb, "a,m%d,1\nb,m%d,2\n", i, i);
	c = cmp_new();
	assert_int_equal(cmp_add_samples_buf(c, "t", sb.buf), 0);
	assert_int_equal(c->nmetrics, CMP_MAX_CELLS / 2);
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,one_more,1\n"), -1);
	cmp_free(c);
	c = cmp_new();
	for (int i = 0; i < CMP_MAX_DERIVED; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d%d", i);
		assert_int_equal(cmp_add_derived(c, name, "a + 1"), 0);
	}
	assert_int_equal(cmp_add_derived(c, "too_many", "a + 1"), -1);
	cmp_free(c);
	strbuf_release(&sb);
}

static void test_derived(void **state)
{
	struct comparison *c = cmp_new();
	const struct cmp_metric *m;

	(void)state;
	assert_int_equal(
		cmp_add_samples_buf(
			c, "t",
			"a,trace.x:hit,10\na,trace.y:all,20\na,trace.x:hit,5\na,trace.y:all,0\n"
			"b,trace.x:hit,30\nb,trace.y:all,40\nb,trace.x:hit,20\nb,trace.y:all,40\n"),
		0);
	assert_int_equal(cmp_add_derived(c, "hit_ratio", "trace.x:hit / trace.y:all"), 0);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	m = metric(c, "hit_ratio");
	assert_int_equal(m->kind, KIND_MAIN);
	assert_int_equal(m->cells[0].s.n, 1); /* 5 / 0 left out */
	assert_true(fabs(m->cells[0].s.mean - 0.5) < 1e-12);
	assert_true(fabs(m->cells[1].s.mean - 0.625) < 1e-12);
	assert_true(has_line(&c->warnings, "division by zero"));
	cmp_free(c);

	c = cmp_new();
	assert_int_equal(cmp_add_samples_buf(c, "t", "a,x,1\n"), 0);
	assert_int_equal(cmp_add_derived(c, "r", "x / nosuch"), 0);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), -1);
	cmp_free(c);
}

static void test_builtin_and_work(void **state)
{
	struct comparison *c = from_csv(
		"a,vmstat.compact_migrate_scanned,100\na,vmstat.compact_free_scanned,400\n"
		"a,vmstat.compact_migrate_scanned,100\na,vmstat.compact_free_scanned,400\n"
		"a,vmstat.pgmigrate_success,10\na,vmstat.pgmigrate_success,10\n"
		"a,vmstat.compact_stall,40\na,vmstat.compact_stall,41\na,vmstat.compact_stall,39\n"
		"b,vmstat.compact_migrate_scanned,100\nb,vmstat.compact_free_scanned,200\n"
		"b,vmstat.compact_migrate_scanned,100\nb,vmstat.compact_free_scanned,200\n"
		"b,vmstat.pgmigrate_success,10\nb,vmstat.pgmigrate_success,10\n"
		"b,vmstat.compact_stall,80\nb,vmstat.compact_stall,81\nb,vmstat.compact_stall,79\n"
		"a,time.elapsed_s,10\na,time.elapsed_s,11\na,time.elapsed_s,10.5\n"
		"b,time.elapsed_s,10\nb,time.elapsed_s,11\nb,time.elapsed_s,10.5\n",
		NULL);
	const struct cmp_metric *m;

	(void)state;
	m = metric(c, "derived.compact_scan_efficiency");
	assert_true(fabs(m->cells[0].s.mean - 25) < 1e-12);
	assert_true(fabs(m->cells[1].s.mean - 50) < 1e-12);
	assert_int_equal(m->dir, DIR_HIGHER);
	m = metric(c, "derived.compaction_cost");
	/* (100 + 400 + 128 * 10) / 1000: every term counted */
	assert_true(fabs(m->cells[0].s.mean - 1.78) < 1e-12);
	assert_int_equal(m->dir, DIR_LOWER);
	assert_true(has_line(&c->warnings, "the work done differs: vmstat.compact_stall"));
	m = metric(c, "rate.time.elapsed_s/vmstat.compact_stall");
	assert_true(fabs(m->cells[1].s.mean - 10.5 / 80) < 1e-3);
	cmp_free(c);
}

/* a command workload's metrics take the directions its job gave (job_resolved) */
static void test_own_directions(void **state)
{
	static const char run_text[] =
		"{\"run\": \"r1\", \"job_resolved\": {\"workload\": {\"name\": \"w\", \"metrics\": ["
		"  {\"name\": \"w.*\", \"direction\": \"neutral\"},"
		"  {\"name\": \"w.lat\", \"direction\": \"lower\", \"unit\": \"us\"},"
		"  {\"name\": \"w.*.bops\", \"direction\": \"higher\"},"
		"  {\"name\": \"w.ops\", \"direction\": \"higher\"}]}},"
		" \"variants\": [{\"name\": \"a\", \"iterations\": ["
		"  {\"status\": \"ok\", \"metrics\": {\"w.lat\": 1, \"w.ops\": 5, \"w.vm.bops\": 3, \"w.x\": 1}},"
		"  {\"status\": \"ok\", \"metrics\": {\"w.lat\": 2, \"w.ops\": 6, \"w.vm.bops\": 4, \"w.x\": 2}}]}]}";
	struct comparison *c = cmp_new();
	json_t *run = json_loads(run_text, 0, NULL);

	(void)state;
	assert_non_null(run);
	assert_int_equal(add_run_json(c, run), 0);
	json_decref(run);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	assert_int_equal(metric(c, "w.lat")->dir, DIR_LOWER);
	assert_int_equal(metric(c, "w.ops")->dir, DIR_HIGHER);
	assert_int_equal(metric(c, "w.vm.bops")->dir, DIR_HIGHER);
	assert_int_equal(metric(c, "w.x")->dir, DIR_NEUTRAL);
	assert_string_equal(cmp_mean_label(metric(c, "w.ops")), "Hmean");
	cmp_free(c);
}

static struct comparison *from_fixture_run(const char *name)
{
	struct comparison *c = cmp_new();
	json_t *run = load_json(name);

	assert_int_equal(add_run_json(c, run), 0);
	json_decref(run);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	return c;
}

static struct comparison *from_fixture_csv(const char *name)
{
	struct comparison *c = cmp_new();
	char *path = fixture(name);

	assert_int_equal(cmp_add_samples_csv(c, path), 0);
	free(path);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	return c;
}

/* the text up to its first empty line: the summary block */
static char *summary_block(const char *text)
{
	const char *end = strstr(text, "\n\n");

	return end ? xstrndup(text, (size_t)(end - text) + 1) : xstrdup(text);
}

/* rows of the text summary: "  variant  metric ..." lines but the header */
static size_t text_summary_rows(const char *text)
{
	char *block = summary_block(text);
	size_t n = 0;

	for (const char *l = block; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		n += !strncmp(l, "  ", 2) && l[2] != ' ' && strncmp(l, "  variant ", 10);
	free(block);
	return n;
}

/* significant cells in `compare --format json`; checks "summary" agrees */
static size_t json_significant(const struct comparison *c)
{
	char *out = render(c, CMP_JSON);
	json_t *root = json_loads(out, 0, NULL), *m, *v;
	size_t i, k, n = 0;

	assert_non_null(root);
	json_array_foreach(json_object_get(root, "metrics"), i, m)
		json_array_foreach(json_object_get(m, "variants"), k, v)
			n += json_is_true(json_object_get(v, "significant"));
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(root, "summary"), "significant")),
			 n);
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(root, "summary"), "changes")), n);
	json_decref(root);
	free(out);
	return n;
}

static xmlDocPtr parse_html(const char *html)
{
	xmlDocPtr doc = xmlReadMemory(html, (int)strlen(html), "report.html", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR);

	if (!doc)
		fail_msg("the report is not well-formed");
	return doc;
}

static long xcount(xmlDocPtr doc, const char *fmt, ...)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr r;
	va_list ap;
	char *expr;
	long n;

	va_start(ap, fmt);
	assert_true(vasprintf(&expr, fmt, ap) >= 0);
	va_end(ap);
	xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
	r = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	if (!r || r->type != XPATH_NUMBER)
		fail_msg("XPath %s", expr);
	n = (long)r->floatval;
	xmlXPathFreeObject(r);
	xmlXPathFreeContext(ctx);
	free(expr);
	return n;
}

/* the summary has as many rows as the json has significant cells */
static void test_summary_count(void **state)
{
	static const struct {
		const char *name;
		bool csv;
		size_t want;
	} f[] = {
		{ "run1.json", false, 7 },
		{ "demo.json", false, 0 },
		{ "samples.csv", true, 2 },
		{ "aa.csv", true, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		struct comparison *c = f[i].csv ? from_fixture_csv(f[i].name) :
						  from_fixture_run(f[i].name);
		char *text = render(c, CMP_TEXT), *md = render(c, CMP_MARKDOWN);
		char *html = render(c, CMP_HTML);
		xmlDocPtr doc = parse_html(html);
		size_t sig = json_significant(c);

		print_message("%s: %zu significant\n", f[i].name, sig);
		assert_int_equal(sig, f[i].want);
		assert_int_equal(text_summary_rows(text), sig);
		/* markdown: the summary table's rows before the main table */
		{
			size_t rows = 0;
			char *end = strstr(md, "\n| Metric | |");

			for (char *l = md; l && l < end; l = strchr(l, '\n'), l = l ? l + 1 : l)
				rows += !strncmp(l, "| ", 2) && strncmp(l, "| Variant", 9);
			assert_int_equal(rows, sig);
		}
		/* html: table rows (and a header) and a row per cell in the forest */
		assert_int_equal(xcount(doc, "count(//table[@class='sum']/tr)"), sig ? sig + 1 : 0);
		if (sig)
			assert_int_equal(xcount(doc, "count(//s:svg[@class='forest']/s:g)"), sig);
		if (!sig)
			assert_non_null(strstr(text, "Summary: no significant change in"));
		xmlFreeDoc(doc);
		free(text);
		free(md);
		free(html);
		cmp_free(c);
	}
}

/* an A/A comparison says so in one sentence with the detectable change */
static void test_aa(void **state)
{
	struct comparison *c = from_fixture_csv("aa.csv");
	char *text = render(c, CMP_TEXT), *block = summary_block(text);
	const struct cmp_metric *m = metric(c, "throughput_mbs");
	double cov = fmax(m->cells[0].s.cov, m->cells[1].s.cov) / 100;
	char want[128], fig[32];
	xmlDocPtr doc;
	char *html;

	(void)state;
	check_golden(block, "aa.summary.golden");
	/* throughput_mbs has the smallest CoV: its detectable change */
	cmp_fmt_sig(fig, sizeof(fig), 100 * stats_mde(cov, 5, 5, 0.05, 0.8), 3, true);
	snprintf(want, sizeof(want), "could detect changes of %s%% or more", fig);
	{
		/* the sentence may wrap: compare with blanks collapsed */
		char *flat = xstrdup(block), *o = flat;

		for (const char *p = block; *p; p++)
			if (!(isspace((unsigned char)*p) && o > flat && o[-1] == ' '))
				*o++ = isspace((unsigned char)*p) ? ' ' : *p;
		*o = 0;
		if (!strstr(flat, want))
			fail_msg("\"%s\" not in the summary:\n%s", want, block);
		free(flat);
	}
	html = render(c, CMP_HTML);
	doc = parse_html(html);
	assert_int_equal(xcount(doc, "count(//table[@class='sum'])"), 0);
	assert_int_equal(xcount(doc, "count(//p[@class='verdict'][starts-with(., "
				     "'No significant change in b against a')])"),
			 1);
	/* the workload intervals, in grey */
	assert_int_equal(xcount(doc, "count(//s:svg[@class='forest']//s:circle)"), 2);
	xmlFreeDoc(doc);
	free(html);
	free(block);
	free(text);
	cmp_free(c);
}

static void test_golden_demo(void **state)
{
	struct comparison *c = from_fixture_run("demo.json");
	char *out = render(c, CMP_TEXT);

	(void)state;
	check_golden(out, "demo.text.golden");
	free(out);
	cmp_free(c);
}

/* constants get no plot, an anchor in their group's Unchanged line */
static void test_html(void **state)
{
	struct comparison *c = from_fixture_run("demo.json");
	char *out = render(c, CMP_HTML);
	xmlDocPtr doc = parse_html(out);
	size_t varying = 0;

	(void)state;
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		long box = xcount(doc, "count(//s:svg[@class='box'][@data-metric='%s'])", m->name);

		varying += !m->constant;
		assert_int_equal(box, m->constant ? 0 : 1);
		assert_int_equal(xcount(doc, "count(//*[@id='m-%s'])", m->name), 1);
		if (m->constant)
			assert_int_equal(xcount(doc,
						"count(//p[@class='unchanged']"
						"/span[@id='m-%s'])",
						m->name),
					 1);
	}
	assert_true(varying > 10 && varying < c->nmetrics);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='box'])"), varying);
	/* series: the four first; flat ones are listed, not drawn */
	assert_int_equal(xcount(doc, "count(//s:svg[@class='ts'][1][@data-metric="
				     "'node0.vmstat.nr_free_pages'])"),
			 1);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='ts'][@data-metric="
				     "'vmstat.compact_stall'])"),
			 0);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='ts'][@data-metric="
				     "'vmstat.pgmigrate_success'])"),
			 1);
	assert_non_null(strstr(out, "vmstat.compact_stall 0"));
	assert_int_equal(xcount(doc, "count(//s:svg[@class='nodemem']//s:rect)"), 4);
	/* the header: kernels, order and seed, accelerator, the warning */
	assert_int_equal(xcount(doc, "count(//table[@class='facts']//td[contains(., "
				     "'random, seed 42: always/2')])"),
			 1);
	assert_int_equal(xcount(doc, "count(//table[@class='facts']//td[contains(., "
				     "'6.1.0-57-amd64')])"),
			 2);
	assert_int_equal(xcount(doc, "count(//td[starts-with(., 'tcg')])"), 1);
	assert_int_equal(xcount(doc, "count(//div[@class='warn'])"), 1);
	/* self-contained */
	assert_int_equal(xcount(doc, "count(//script|//link|//*[starts-with(@src, "
				     "'http')]|//*[starts-with(@href, 'http')])"),
			 0);
	xmlFreeDoc(doc);
	free(out);
	cmp_free(c);

	/* a kernel built from source: its base commit and operations */
	{
		json_t *run = load_json("demo.json");
		json_t *k = json_object_get(json_array_get(json_object_get(run, "variants"), 1),
					    "kernel");

		json_object_set_new(k, "source", json_string("build"));
		json_object_set_new(k, "base_commit",
				    json_string("0123456789abcdef0123456789abcdef01234567"));
		json_object_set_new(k, "operations",
				    json_pack("[{s:s, s:s, s:s}]", "op", "revert", "arg",
					      "v6.4-rc2~3", "resolved", "fedcba"));
		c = cmp_new();
		assert_int_equal(add_run_json(c, run), 0);
		json_decref(run);
		assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
		out = render(c, CMP_HTML);
		doc = parse_html(out);
		assert_int_equal(xcount(doc, "count(//table[@class='facts']//td[contains(., "
					     "'6.1.0-57-amd64, built from 0123456789ab + revert "
					     "v6.4-rc2~3; cmdline')])"),
				 1);
		xmlFreeDoc(doc);
		free(out);
		cmp_free(c);
	}

	/* the fixture with a plain series: one panel, no node chart */
	c = run1(NULL, NULL);
	out = render(c, CMP_HTML);
	doc = parse_html(out);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='ts'])"), 1);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='nodemem'])"), 0);
	assert_int_equal(xcount(doc, "count(//s:svg[@class='box'])"), c->nmetrics);
	xmlFreeDoc(doc);
	free(out);
	cmp_free(c);
}

static void test_formats(void **state)
{
	static const struct {
		double v;
		int d;
		const char *want;
	} sig[] = {
		{ 64837.7, 4, "64838" }, { 0.0053333, 4, "0.005333" },
		{ 7.7512, 4, "7.751" },	 { 301.92, 4, "301.9" },
		{ -1, 4, "-1" },	 { 0.058, 4, "0.058" },
		{ 0, 4, "0" },		 { 128.1735, 3, "128" },
		{ 1e-12, 3, "1e-12" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sig); i++) {
		cmp_fmt_sig(buf, sizeof(buf), sig[i].v, sig[i].d, true);
		assert_string_equal(buf, sig[i].want);
	}
	cmp_fmt_sig(buf, sizeof(buf), 0.5, 3, false);
	assert_string_equal(buf, "0.500");
	cmp_fmt_change(buf, sizeof(buf), -23.18);
	assert_string_equal(buf, "-23.2%");
	cmp_fmt_change(buf, sizeof(buf), 5140);
	assert_string_equal(buf, "+5140%");
	cmp_fmt_change(buf, sizeof(buf), -0.001);
	assert_string_equal(buf, "+0.00%");
	cmp_fmt_ci(buf, sizeof(buf), -INFINITY, INFINITY);
	assert_string_equal(buf, "unbounded");
	cmp_fmt_ci(buf, sizeof(buf), -9.851, 4.2);
	assert_string_equal(buf, "[-9.85%, +4.20%]");
}

/* ---- statistical validation with fixed seeds ---- */

static void sample_csv(FILE *f, gsl_rng *r, const char *var, const char *metric, double mean,
		       double sd, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s,%s,%.17g,lower\n", var, metric, mean + gsl_ran_gaussian(r, sd));
}

/* fraction of comparisons (of reps) in which metric "m0".."m<k-1>" has a star */
static double star_rate(unsigned long seed, int reps, int nmetrics, double shift, double cov, int n,
			bool any)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int hits = 0;

	gsl_rng_set(r, seed);
	for (int k = 0; k < reps; k++) {
		char *buf = NULL, name[16];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct comparison *c;
		int stars = 0;

		for (int m = 0; m < nmetrics; m++) {
			snprintf(name, sizeof(name), "m%d", m);
			sample_csv(f, r, "a", name, 100, 100 * cov, n);
			sample_csv(f, r, "b", name, 100 * (1 - shift), 100 * cov, n);
		}
		fclose(f);
		c = from_csv(buf, NULL);
		for (size_t m = 0; m < c->nmetrics; m++)
			stars += c->metrics[m].cells[1].significant;
		hits += any ? stars > 0 : stars;
		cmp_free(c);
		free(buf);
	}
	gsl_rng_free(r);
	return (double)hits / (double)(reps * (any ? 1 : nmetrics));
}

/*
 * The same with more repetitions, so that sampling noise cannot decide the
 * outcome: 1000 comparisons have a standard error of 0.007 on the rate.
 */
static void test_rates_more_reps(void **state)
{
	double aa = star_rate(11, 5000, 1, 0, 0.02, 7, false);
	double fam = star_rate(12, 2000, 20, 0, 0.02, 7, true);

	(void)state;
	print_message("A/A over 5000: %.4f; 20 null metrics over 2000: %.4f\n", aa, fam);
	assert_true(aa >= 0.035 && aa <= 0.065);
	assert_true(fam <= 0.05 + 3 * sqrt(0.05 * 0.95 / 2000));
}

static void test_false_positive_rate(void **state)
{
	double rate = star_rate(1, 1000, 1, 0, 0.02, 7, false);

	(void)state;
	print_message("A/A false-positive rate: %.3f\n", rate);
	assert_true(rate >= 0.035 && rate <= 0.065);
}

static void test_detection_rate(void **state)
{
	double rate = star_rate(2, 1000, 1, 0.04, 0.02, 7, false);

	(void)state;
	print_message("4%% shift, CoV 2%%, n=7: detection rate %.3f\n", rate);
	assert_true(rate >= 0.85);
}

static void test_bh_family(void **state)
{
	double alpha = 0.05, reps = 1000;
	double rate = star_rate(3, (int)reps, 20, 0, 0.02, 7, true);
	/*
	 * Under the complete null BH's family-wise rate equals alpha in
	 * expectation, so allow three standard errors of sampling noise.
	 * Unadjusted tests would star some row in 1 - 0.95^20 = 64 % of them.
	 */
	double tol = 3 * sqrt(alpha * (1 - alpha) / reps);

	(void)state;
	print_message("20 null metrics: families with a false star %.3f\n", rate);
	assert_true(rate <= alpha + tol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_run),
		cmocka_unit_test(test_golden_samples),
		cmocka_unit_test(test_run_semantics),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_runinfo),
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_builtin_and_work),
		cmocka_unit_test(test_own_directions),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_golden_demo),
		cmocka_unit_test(test_summary_count),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_false_positive_rate),
		cmocka_unit_test(test_detection_rate),
		cmocka_unit_test(test_bh_family),
		cmocka_unit_test(test_rates_more_reps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
