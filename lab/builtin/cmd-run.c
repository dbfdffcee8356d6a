// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-run.c - "mmlab run JOB": the command line of the runner (lab/run/)
 * and the per-variant summary it prints at the end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "builtin/compare_cli.h"
#include "analysis/precision.h"
#include "store/results.h"
#include "run/runner.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const run_synopsis[] = {
	"mmlab run [options] JOB.yaml",
	"mmlab run --resume RUN",
	NULL,
};

static const struct opt_usage run_usage = {
	.synopsis = run_synopsis,
	.text = "Boot each variant of JOB on its NUMA guest, run the workload for the\n"
		"job's iterations (each a fresh boot by default), store every iteration in\n"
		"the results store as it finishes, and print a per-variant summary.\n"
		"\n"
		"The workload is a built-in one (workload: { name: usemem, params: ... }) or\n"
		"your own: a program (command: [argv...], with files:, a C build: compiled\n"
		"statically on the host, metrics: extractors over its stdout, a JSON/YAML\n"
		"file or the kernel log, timeout:, phase:) or an out-of-tree kernel module\n"
		"(module:). On the initramfs a program must be static; the disk image runs\n"
		"what its packages provide. See docs/workloads.md, \"Bring your own workload\".\n"
		"An mmtests config runs too (workload: { mmtests: { dir, config } }, on the\n"
		"disk image): its samples become metrics mmtests.<bench>.<op>, and\n"
		"'mmlab compare RUN --mmtests' prints mmtests' own report (docs/workloads.md,\n"
		"\"mmtests\").",
	.footer = "Exit status: 0 every iteration ok, 1 a run that failed (an iteration\n"
		  "crashed, timed out or failed, or the run was interrupted), 2 bad usage\n"
		  "or a bad job file. See docs/mmlab.md and docs/job-format.md.",
};

static int precision_cb(const struct opt *opt, const char *arg)
{
	double *p = opt->value;

	if (cmp_parse_pct(arg, p) || *p >= 1) {
		lab_err("--precision wants a relative half-width such as 2%% or 0.02, not '%s'",
			arg);
		return -1;
	}
	return 0;
}

struct agg {
	double sum, sumsq;
	unsigned int n;
};

static bool summary_metric(const char *name, const char *workload)
{
	static const char *const fixed[] = {
		"time.elapsed_s",
		"time.system_s",
		"time.user_s",
		"vmstat.pgfault",
		"vmstat.thp_fault_alloc",
		"vmstat.thp_fault_fallback",
		"vmstat.compact_stall",
		"vmstat.compact_migrate_scanned",
		"vmstat.pgmigrate_success",
		"vmstat.numa_hint_faults",
		"vmstat.numa_pages_migrated",
	};
	size_t wl = strlen(workload);

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(name, fixed[i]))
			return true;
	return !strncmp(name, workload, wl) && name[wl] == '.';
}

static void fmt_value(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

static bool iteration_ok(json_t *it)
{
	const char *st = json_string_value(json_object_get(it, "status"));

	return st && !strcmp(st, "ok");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the headline metrics present in any ok iteration, sorted */
static void summary_names(json_t *vars, const char *wl, struct strlist *out)
{
	json_t *seen = json_object(), *v, *it, *m;
	const char *key;
	size_t i, k;

	json_array_foreach(vars, i, v) {
		json_array_foreach(json_object_get(v, "iterations"), k, it) {
			if (!iteration_ok(it))
				continue;
			json_object_foreach(json_object_get(it, "metrics"), key, m)
				if (summary_metric(key, wl) && !json_object_get(seen, key)) {
					json_object_set_new(seen, key, json_true());
					strlist_push(out, key);
				}
		}
	}
	json_decref(seen);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

static void summary_cell(json_t *variant, const char *metric, char *cell, size_t len)
{
	struct agg a = { 0 };
	char mean[24], sd[24];
	double mu, var;
	size_t k;
	json_t *it;

	json_array_foreach(json_object_get(variant, "iterations"), k, it) {
		json_t *x = json_object_get(json_object_get(it, "metrics"), metric);

		if (iteration_ok(it) && json_is_number(x)) {
			a.sum += json_number_value(x);
			a.sumsq += json_number_value(x) * json_number_value(x);
			a.n++;
		}
	}
	if (!a.n) {
		snprintf(cell, len, "-");
		return;
	}
	mu = a.sum / a.n;
	var = a.n > 1 ? (a.sumsq - a.n * mu * mu) / (a.n - 1) : 0;
	fmt_value(mu, mean, sizeof(mean));
	fmt_value(var > 0 ? sqrt(var) : 0, sd, sizeof(sd));
	snprintf(cell, len, "%s +- %s (%u)", mean, sd, a.n);
}

/* what --until-significant did, from run.json "until_significant" */
static void print_until_significant(json_t *us, FILE *f)
{
	json_t *w = json_object_get(us, "worst");
	json_t *hw = json_object_get(w, "halfwidth_rel");
	char worst[160] = "";

	if (!us)
		return;
	if (w)
		snprintf(worst, sizeof(worst), "\n  widest: %s in %s +-%s%.2f%% (n %d)",
			 json_string_value(json_object_get(w, "metric")),
			 json_string_value(json_object_get(w, "variant")),
			 json_is_real(hw) ? "" : "inf",
			 json_is_real(hw) ? 100 * json_real_value(hw) : 0.0,
			 (int)json_integer_value(json_object_get(w, "n")));
	fprintf(f,
		"\nuntil-significant (%s, target +-%.2f%% at 95%%):\n  %s after %d "
		"iteration%s per variant, %d round%s added%s\n",
		json_string_value(json_object_get(us, "metrics")),
		100 * json_number_value(json_object_get(us, "precision")),
		json_string_value(json_object_get(us, "stopped")) ?: "stopped",
		(int)json_integer_value(json_object_get(us, "iterations")),
		json_integer_value(json_object_get(us, "iterations")) == 1 ? "" : "s",
		(int)json_integer_value(json_object_get(us, "rounds")),
		json_integer_value(json_object_get(us, "rounds")) == 1 ? "" : "s", worst);
}

static double mean_metric(json_t *variant, const char *metric, unsigned int *n)
{
	double sum = 0;
	size_t k;
	json_t *it;

	*n = 0;
	json_array_foreach(json_object_get(variant, "iterations"), k, it) {
		json_t *x = json_object_get(json_object_get(it, "metrics"), metric);

		if (iteration_ok(it) && json_is_number(x)) {
			sum += json_number_value(x);
			(*n)++;
		}
	}
	return *n ? sum / *n : NAN;
}

/* observer check: time.elapsed_s of "<v>" against its twin "<v>.nocollect" */
static void print_observer(json_t *run, FILE *f)
{
	json_t *vars = json_object_get(run, "variants"), *v, *t;
	size_t i, k;

	if (!json_is_true(json_object_get(run, "observer_check")))
		return;
	fprintf(f, "\nobserver check (workload time with tracepoint counting vs without):\n");
	json_array_foreach(vars, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		unsigned int n1, n0;
		double with, without, pct;

		if (!name || strstr(name, ".nocollect"))
			continue;
		json_array_foreach(vars, k, t) {
			const char *tn = json_string_value(json_object_get(t, "name"));
			size_t nl = strlen(name);

			if (!tn || strncmp(tn, name, nl) || strcmp(tn + nl, ".nocollect"))
				continue;
			with = mean_metric(v, "time.elapsed_s", &n1);
			without = mean_metric(t, "time.elapsed_s", &n0);
			if (!n1 || !n0 || !(without > 0)) {
				fprintf(f, "  %-24s no ok iterations to compare\n", name);
				continue;
			}
			pct = (with - without) / without * 100;
			fprintf(f, "  %-24s %.3f s vs %.3f s: overhead %+.2f%% (n %u/%u)\n", name,
				with, without, pct, n1, n0);
			if (pct > 2)
				fprintf(f,
					"  *** WARNING: the collectors slow variant '%s' by %.1f%% "
					"(> 2%%): its measurements are perturbed; count fewer "
					"tracepoints ***\n",
					name, pct);
		}
	}
}

/* the per-variant summary: mean +- stddev (n) of the headline metrics */
static void print_summary(json_t *run, FILE *f)
{
	json_t *vars = json_object_get(run, "variants"), *v, *it;
	const char *wl = json_string_value(json_object_get(
		json_object_get(json_object_get(run, "job_resolved"), "workload"), "name"));
	struct strlist names = { 0 };
	char cell[80];
	size_t i, k;

	fprintf(f, "\nrun %s (job %s): %s, results in %s/%s\n",
		json_string_value(json_object_get(run, "run")),
		json_string_value(json_object_get(run, "job")),
		json_string_value(json_object_get(run, "status")), gopts.results_dir,
		json_string_value(json_object_get(run, "run")));
	fprintf(f, "host: accel %s (%s)\n\n",
		json_string_value(json_object_get(json_object_get(run, "host"), "accel")),
		json_string_value(json_object_get(json_object_get(run, "host"), "accel_reason")));
	summary_names(vars, wl ? wl : "?", &names);
	fprintf(f, "%-32s", "mean +- stddev (n ok)");
	json_array_foreach(vars, i, v)
		fprintf(f, " %24.24s", json_string_value(json_object_get(v, "name")));
	fprintf(f, "\n%-32s", "iterations ok/all");
	json_array_foreach(vars, i, v) {
		size_t ok = 0;

		json_array_foreach(json_object_get(v, "iterations"), k, it)
			ok += iteration_ok(it);
		snprintf(cell, sizeof(cell), "%zu/%zu", ok,
			 json_array_size(json_object_get(v, "iterations")));
		fprintf(f, " %24s", cell);
	}
	fputc('\n', f);
	for (size_t m = 0; m < names.n; m++) {
		fprintf(f, "%-32.32s", names.v[m]);
		json_array_foreach(vars, i, v) {
			summary_cell(v, names.v[m], cell, sizeof(cell));
			fprintf(f, " %24s", cell);
		}
		fputc('\n', f);
	}
	print_until_significant(json_object_get(run, "until_significant"), f);
	print_observer(run, f);
	fprintf(f,
		"\n'mmlab results show %s' has every metric; 'mmlab compare %s' tests "
		"the differences.\n",
		json_string_value(json_object_get(run, "run")),
		json_string_value(json_object_get(run, "run")));
	strlist_free(&names);
}

/* ------------------------------------------------------------------ */

/* the exit status of a run's outcome (lib/util.h) */
static int run_exit_status(enum run_outcome oc)
{
	switch (oc) {
	case RUN_OK:
		return 0;
	case RUN_BAD_INPUT:
		return EXIT_USAGE;
	case RUN_INTERRUPTED:
		return EXIT_INTERRUPTED;
	case RUN_FAILED:
	default:
		return EXIT_RUN_FAILED;
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .cache_dir = gopts.cache_dir, .connect_uri = gopts.connect_uri };
	struct run_result res;
	const char *order = NULL;
	struct store *s;
	bool json = false;
	json_t *loaded;
	enum run_outcome oc;
	int argn;
	struct opt opts[] = {
		OPT_STRING(0, "resume", &o.resume, "RUN",
			   "finish an incomplete run without repeating stored\niterations"),
		OPT_STRING(0, "order", &order, "random|sequential",
			   "run order of the boots (default random: the\n"
			   "variants' iterations interleaved in a seeded order)"),
		OPT_CALLBACK(0, "seed", &o, "N",
			     "the seed of the random order (default: from the clock)", opt_seed_cb),
		OPT_CALLBACK(0, "accel", &o.accel, "auto|kvm|tcg", "override the job's accel",
			     opt_accel_cb),
		OPT_BOOL(0, "reprobe", &o.reprobe,
			 "redo the KVM probe instead of using the cached verdict"),
		OPT_BOOL(0, "until-significant", &o.until_significant,
			 "after the job's iterations, add rounds of one\n"
			 "iteration per variant until every target metric's\n"
			 "95% CI half-width is below --precision of its mean"),
		OPT_UINT(0, "max-iterations", &o.max_iterations, 2, 10000, "N",
			 "stop adding at N iterations per variant (default 20)"),
		OPT_CALLBACK(0, "precision", &o.precision, "PCT",
			     "relative CI half-width to reach (default 2%)", precision_cb),
		OPT_STRING(0, "metrics", &o.metrics, "GLOBS",
			   "target metrics, comma-separated patterns\n"
			   "(default " PRECISION_DEFAULT_METRICS ")"),
		OPT_BOOL(0, "observer-check", &o.observer_check,
			 "run every variant twice, with and without tracepoint\n"
			 "counting (twin '<name>.nocollect'), and report the\n"
			 "workload-time overhead; above 2% it warns"),
		OPT_BOOL(0, "json", &json, "print the stored run as JSON at the end"),
		OPT_END(),
	};

	argn = parse_options(argc, argv, opts, &run_usage, 0);
	if (argn < 0)
		return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (order && strcmp(order, "random") && strcmp(order, "sequential")) {
		lab_err("--order is 'random' or 'sequential', not '%s'", order);
		return EXIT_USAGE;
	}
	o.sequential = order && !strcmp(order, "sequential");
	if (!o.until_significant && (o.max_iterations || o.precision || o.metrics)) {
		lab_err("--max-iterations, --precision and --metrics go with "
			"--until-significant");
		return EXIT_USAGE;
	}
	if (!o.max_iterations)
		o.max_iterations = 20;
	if (!o.precision)
		o.precision = 0.02;
	if ((o.resume && argn != 0) || (!o.resume && argn != 1)) {
		lab_err(o.resume ? "--resume takes a run, not a job file too" :
				   "mmlab run wants one job file; see 'mmlab run --help'");
		return EXIT_USAGE;
	}
	if (!o.resume)
		o.job_path = argv[0];
	s = store_open(gopts.results_dir);
	if (!s)
		return EXIT_RUN_FAILED;
	oc = runner_run(s, &o, &res);
	if (res.run_id && !res.interrupted && oc != RUN_BAD_INPUT) {
		loaded = store_load_run(s, res.run_id);
		if (loaded && json) {
			json_dumpf(loaded, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
			fputc('\n', stdout);
		} else if (loaded) {
			print_summary(loaded, stdout);
		}
		json_decref(loaded);
		if (res.failed_iterations)
			lab_err("%u iteration%s of run %s did not finish ok (see 'mmlab "
				"results show %s')",
				res.failed_iterations, res.failed_iterations == 1 ? "" : "s",
				res.run_id, res.run_id);
	}
	run_result_release(&res);
	store_close(s);
	return run_exit_status(oc);
}
