// SPDX-License-Identifier: GPL-2.0
/*
 * test_compare.c - lab/compare*.c and report_html.c: golden text, markdown
 * and csv from fixed fixtures, statistical validation with seeded GSL
 * random numbers, degenerate inputs, derived metrics, warnings, HTML.
 *
 * MMLAB_UPDATE_GOLDEN=1 rewrites the golden files (then review the diff).
 */
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

#include "builtin/builtin.h"
#include "analysis/compare.h"


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
		fail_msg("missing golden file %s (MMLAB_UPDATE_GOLDEN=1 makes it)",
			 path);
	if (strcmp(out, want))
		fail_msg("output differs from %s:\n%s", path, out);
	free(want);
	free(path);
}

static struct comparison *run1(const char *baseline, const char *globs)
{
	struct comparison *c = cmp_new();
	json_t *run = load_json("run1.json");

	assert_int_equal(cmp_add_run(c, run), 0);
	assert_int_equal(cmp_add_derived(c, "mig_per_stall",
			 "vmstat.pgmigrate_success / vmstat.compact_stall"), 0);
	json_decref(run);
	assert_int_equal(cmp_compute(c, baseline, 0.05, globs), 0);
	return c;
}

static void test_golden_run(void **state)
{
	struct comparison *c = run1(NULL, NULL);
	static const struct { enum cmp_format f; const char *golden; } g[] = {
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

static const struct cmp_metric *metric(const struct comparison *c,
				       const char *name)
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

static const struct cmp_metric *metric_find_opt(const struct comparison *c,
						const char *name)
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
	assert_int_equal(m->cells[2].s.n, 4);	/* one crashed iteration */
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

		assert_int_equal(cmp_add_run(c, run), 0);
		assert_int_equal(cmp_add_run(c, run), 0);
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
	struct comparison *c = from_csv(
		"a,flat,5\na,flat,5\na,flat,5\nb,flat,5\nb,flat,5\nb,flat,5\n"
		"a,shift,5\na,shift,5\nb,shift,6\nb,shift,6\n"
		"a,one,1\nb,one,2\n"
		"a,zerobase,0\na,zerobase,0\nb,zerobase,1\nb,zerobase,2\n"
		"a,nanbase,nan\na,nanbase,nan\nb,nanbase,1\nb,nanbase,2\n"
		"a,onlya,1\na,onlya,2\n"
		"b,onlyb,1\nb,onlyb,2\n", NULL);
	const struct cmp_metric *m;

	(void)state;
	m = metric(c, "flat");
	assert_false(m->cells[1].significant);
	assert_true(m->cells[1].pct == 0);
	m = metric(c, "shift");
	assert_true(m->cells[1].significant);	/* zero variance, means differ */
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

	/* one variant only, one sample only */
	c = from_csv("a,x,1\n", NULL);
	render_all(c);
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
	c = cmp_new();
	assert_int_equal(cmp_add_samples_buf(c, "t", "# only a comment\n"), -1);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), -1);
	cmp_free(c);
}

static void test_derived(void **state)
{
	struct comparison *c = cmp_new();
	const struct cmp_metric *m;

	(void)state;
	assert_int_equal(cmp_add_samples_buf(c, "t",
		"a,trace.x:hit,10\na,trace.y:all,20\na,trace.x:hit,5\na,trace.y:all,0\n"
		"b,trace.x:hit,30\nb,trace.y:all,40\nb,trace.x:hit,20\nb,trace.y:all,40\n"),
		0);
	assert_int_equal(cmp_add_derived(c, "hit_ratio",
					 "trace.x:hit / trace.y:all"), 0);
	assert_int_equal(cmp_compute(c, NULL, 0.05, NULL), 0);
	m = metric(c, "hit_ratio");
	assert_int_equal(m->kind, KIND_MAIN);
	assert_int_equal(m->cells[0].s.n, 1);	/* 5 / 0 left out */
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
		"b,time.elapsed_s,10\nb,time.elapsed_s,11\nb,time.elapsed_s,10.5\n", NULL);
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

static void test_html(void **state)
{
	struct comparison *c = run1(NULL, NULL);
	char *out = render(c, CMP_HTML);
	size_t boxes = 0, ts = 0;

	(void)state;
	for (const char *p = out; (p = strstr(p, "<svg ")); p++) {
		size_t tag = strcspn(p, ">");

		boxes += memmem(p, tag, "class=\"box\"", 11) != NULL;
		ts += memmem(p, tag, "class=\"ts\"", 10) != NULL;
	}
	assert_int_equal(boxes, c->nmetrics);
	assert_int_equal(ts, 1);
	assert_non_null(strstr(out, "<!DOCTYPE html>"));
	assert_null(strstr(out, "src=\"http"));
	assert_null(strstr(out, "href=\"http"));
	free(out);
	cmp_free(c);
}

/* ---- statistical validation with fixed seeds ---- */

static void sample_csv(FILE *f, gsl_rng *r, const char *var, const char *metric,
		       double mean, double sd, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s,%s,%.17g,lower\n", var, metric,
			mean + gsl_ran_gaussian(r, sd));
}

/* fraction of comparisons (of reps) in which metric "m0".."m<k-1>" has a star */
static double star_rate(unsigned long seed, int reps, int nmetrics,
			double shift, double cov, int n, bool any)
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
	print_message("A/A over 5000: %.4f; 20 null metrics over 2000: %.4f\n",
		      aa, fam);
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
		cmocka_unit_test(test_derived),
		cmocka_unit_test(test_builtin_and_work),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_false_positive_rate),
		cmocka_unit_test(test_detection_rate),
		cmocka_unit_test(test_bh_family),
		cmocka_unit_test(test_rates_more_reps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
