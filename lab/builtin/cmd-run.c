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
#include "analysis/run_summary.h"
#include "store/iteration.h"
#include "store/store.h"
#include "store/run_record.h"
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

static void fmt_value(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

/* v's cell of metric m: mean +- stddev (n), "-" without a sample */
static void summary_cell(const struct run_summary_var *v, size_t m, char *cell, size_t len)
{
	const struct stats_summary *st = &v->cells[m];
	char mean[24], sd[24];

	if (!st->n) {
		snprintf(cell, len, "-");
		return;
	}
	fmt_value(st->mean, mean, sizeof(mean));
	fmt_value(st->n > 1 && st->stddev > 0 ? st->stddev : 0, sd, sizeof(sd));
	snprintf(cell, len, "%s +- %s (%zu)", mean, sd, st->n);
}

/* what --until-significant did, from the record's "until_significant" */
static void print_until_significant(const struct run_until *u, FILE *f)
{
	struct run_until_worst w;
	char worst[160] = "";

	if (!u->present)
		return;
	if (run_until_worst(u, &w))
		snprintf(worst, sizeof(worst), "\n  widest: %s in %s +-%s%.2f%% (n %d)", w.metric,
			 w.variant, w.finite ? "" : "inf", w.finite ? 100 * w.halfwidth_rel : 0.0,
			 (int)w.n);
	fprintf(f,
		"\nuntil-significant (%s, target +-%.2f%% at 95%%):\n  %s after %d "
		"iteration%s per variant, %d round%s added%s\n",
		u->metrics, 100 * u->precision, u->stopped ?: "stopped", (int)u->iterations,
		u->iterations == 1 ? "" : "s", (int)u->rounds, u->rounds == 1 ? "" : "s", worst);
}

static void summary_input_free(struct run_summary_in *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		iteration_records_free((struct iteration_record *)in[i].its, in[i].n);
	free(in);
}

/* observer check: time.elapsed_s of "<v>" against its twin "<v>.nocollect" */
static void print_observer(const struct run_record *run, const struct run_summary_in *in, size_t nv,
			   FILE *f)
{
	if (!run->observer_check)
		return;
	fprintf(f, "\nobserver check (workload time with tracepoint counting vs without):\n");
	for (const struct run_summary_in *v = in; v < in + nv; v++) {
		const char *name = v->name;

		if (!name || strstr(name, ".nocollect"))
			continue;
		for (const struct run_summary_in *t = in; t < in + nv; t++) {
			const char *tn = t->name;
			size_t nl = strlen(name), n1, n0;
			double with, without, pct;

			if (!tn || strncmp(tn, name, nl) || strcmp(tn + nl, ".nocollect"))
				continue;
			with = run_summary_mean(v->its, v->n, "time.elapsed_s", &n1);
			without = run_summary_mean(t->its, t->n, "time.elapsed_s", &n0);
			if (!n1 || !n0 || !(without > 0)) {
				fprintf(f, "  %-24s no ok iterations to compare\n", name);
				continue;
			}
			pct = (with - without) / without * 100;
			fprintf(f, "  %-24s %.3f s vs %.3f s: overhead %+.2f%% (n %zu/%zu)\n", name,
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

/* each variant's name and stored iterations, typed; NULL after a message */
static struct run_summary_in *summary_input(struct store *s, const struct run_record *run)
{
	struct run_summary_in *in = xcalloc(run->nvariants + 1, sizeof(*in));
	struct iteration_record *its;

	for (size_t i = 0; i < run->nvariants; i++) {
		const char *name = run->variants[i].name;

		if (store_variant_iterations(s, run->run, name, &its, &in[i].n)) {
			summary_input_free(in, i);
			return NULL;
		}
		in[i].name = name;
		in[i].its = its;
	}
	return in;
}

/* the per-variant summary: mean +- stddev (n) of the headline metrics */
static void print_summary(struct store *s, const struct run_record *run, FILE *f)
{
	const char *wl = run_record_workload(run);
	struct run_summary sum;
	struct run_summary_in *in;
	size_t nv = run->nvariants;
	char cell[80];

	fprintf(f, "\nrun %s (job %s): %s, results in %s/%s\n", run->run, run->job,
		run_record_status(run), gopts.results_dir, run->run);
	fprintf(f, "host: accel %s (%s)\n\n", run->host.accel, run->host.accel_reason);
	in = summary_input(s, run);
	if (!in)
		return;
	run_summary_build(in, nv, wl ? wl : "?", &sum);
	fprintf(f, "%-32s", "mean +- stddev (n ok)");
	for (size_t i = 0; i < nv; i++)
		fprintf(f, " %24.24s", sum.vars[i].name);
	fprintf(f, "\n%-32s", "iterations ok/all");
	for (size_t i = 0; i < nv; i++) {
		snprintf(cell, sizeof(cell), "%zu/%zu", sum.vars[i].ok, sum.vars[i].all);
		fprintf(f, " %24s", cell);
	}
	fputc('\n', f);
	for (size_t m = 0; m < sum.metrics.n; m++) {
		fprintf(f, "%-32.32s", sum.metrics.v[m]);
		for (size_t i = 0; i < nv; i++) {
			summary_cell(&sum.vars[i], m, cell, sizeof(cell));
			fprintf(f, " %24s", cell);
		}
		fputc('\n', f);
	}
	print_until_significant(&run->until, f);
	print_observer(run, in, nv, f);
	fprintf(f,
		"\n'mmlab results show %s' has every metric; 'mmlab compare %s' tests "
		"the differences.\n",
		run->run, run->run);
	run_summary_release(&sum);
	summary_input_free(in, nv);
}

/* the stored run at the end: as JSON (--json) or its summary; nothing if unreadable */
static void print_run(struct store *s, const char *id, bool json)
{
	struct run_record r;

	if (json)
		print_run_json(s, id);
	else if (!store_record_read(s, id, &r)) {
		print_summary(s, &r, stdout);
		run_record_release(&r);
	}
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
		print_run(s, res.run_id, json);
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
