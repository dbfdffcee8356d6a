// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-compare.c - `mmlab compare`: variants of one or more runs (or a
 * samples CSV) side by side with significance tests. docs/compare.md.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "analysis/compare.h"
#include "builtin/compare_cli.h"
#include "lib/parse-options.h"
#include "mmtests/mmtests.h"
#include "store/store.h"
#include "lib/util.h"

static const char *const compare_synopsis[] = {
	"mmlab compare RUN [RUN...] [options]",
	"mmlab compare --samples FILE.csv [options]",
	"mmlab compare RUN --power [--effect 2%]",
	"mmlab compare RUN --mmtests [--baseline VARIANT]",
	NULL,
};

static const struct opt_usage compare_usage = {
	.synopsis = compare_synopsis,
	.text = "Compare the variants of runs (\"latest\" = the newest run) with\n"
		"Welch's t-test and Benjamini-Hochberg. The text starts with a summary\n"
		"(the significant changes, largest first, or the smallest change the\n"
		"run could have detected), then the mmtests table by group; see\n"
		"docs/compare.md. With --mmtests, a run of an mmtests workload gets\n"
		"mmtests' own compare-kernels.sh report instead, computed by mmtests\n"
		"from the stored logs.",
	.footer = "exit status: 0 done, 1 a run could not be loaded or output failed,\n"
		  "2 bad usage or bad input",
};

struct compare_opts {
	struct cmp_cli cli;
	enum cmp_format fmt;
	double effect;
	bool power;
	bool mmtests;
};

static int format_cb(const struct opt *o, const char *arg)
{
	if (cmp_parse_format(arg, o->value) < 0) {
		lab_err("--format %s: use text, markdown, csv, json or html", arg);
		return -1;
	}
	return 0;
}

static int effect_cb(const struct opt *o, const char *arg)
{
	if (cmp_parse_pct(arg, o->value) < 0) {
		lab_err("--effect %s: give a relative change such as 2%% or 0.02", arg);
		return -1;
	}
	return 0;
}

/* the table to the output: 0, or an exit status */
static int write_out(struct comparison *c, const struct compare_opts *o)
{
	FILE *out;
	int rc;

	for (size_t i = 0; i < c->warnings.n && o->fmt != CMP_TEXT; i++)
		lab_warn("%s", c->warnings.v[i]);
	if (cmp_open_output(o->cli.output, &out) < 0)
		return EXIT_RUN_FAILED;
	rc = o->power ? cmp_write_power(c, o->effect, o->fmt, out) : cmp_write(c, o->fmt, out);
	return (cmp_close_output(out, o->cli.output) < 0 || rc < 0) ? EXIT_RUN_FAILED : 0;
}

/* --mmtests: one run, mmtests' report of it */
static int mmtests_cli(const struct compare_opts *o, int nruns, char **runs)
{
	const char *dir = gopts.results_dir ? gopts.results_dir : "results";
	struct run_data run;
	FILE *out;
	int rc;

	if (nruns != 1 || o->power || o->fmt != CMP_TEXT) {
		lab_err("--mmtests takes one RUN, and neither --power nor --format");
		return EXIT_USAGE;
	}
	if (cmp_load_run(dir, strcmp(runs[0], "latest") ? runs[0] : NULL, &run) ||
	    cmp_open_output(o->cli.output, &out) < 0) {
		run_data_release(&run);
		return EXIT_RUN_FAILED;
	}
	rc = mmtests_report(dir, &run, o->cli.baseline, out) ? EXIT_RUN_FAILED : 0;
	if (cmp_close_output(out, o->cli.output) < 0)
		rc = EXIT_RUN_FAILED;
	run_data_release(&run);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .cli.alpha = 0.05, .fmt = CMP_TEXT, .effect = 0.02 };
	struct comparison *c = cmp_new();
	struct opt opts[] = {
		OPT_STRING(0, "baseline", &o.cli.baseline, "VARIANT",
			   "compare against this variant (default: the first)"),
		OPT_CALLBACK(0, "format", &o.fmt, "FMT",
			     "text (default), markdown, csv, json or html", format_cb),
		OPT_CALLBACK(0, "alpha", &o.cli.alpha, "A", "significance level (default 0.05)",
			     cmp_opt_alpha),
		OPT_CALLBACK(0, "samples", c, "FILE.csv",
			     "rows variant,metric,value[,direction]; repeatable", cmp_opt_samples),
		OPT_STRING(0, "metrics", &o.cli.metrics, "GLOBS",
			   "comma-separated metric name patterns ('*' = all)"),
		OPT_CALLBACK(0, "derive", c, "NAME=EXPR",
			     "a derived metric, e.g. 'r=vmstat.a / vmstat.b'", cmp_opt_derive),
		OPT_BOOL(0, "power", &o.power, "iterations needed per metric instead of the table"),
		OPT_CALLBACK(0, "effect", &o.effect, "PCT",
			     "relative change for --power (default 2%)", effect_cb),
		OPT_BOOL(0, "mmtests", &o.mmtests,
			 "mmtests' own compare-kernels.sh report of an mmtests run"),
		OPT_STRING('o', "output", &o.cli.output, "FILE",
			   "write there instead of standard output"),
		OPT_END(),
	};
	int n = parse_options(argc, argv, opts, &compare_usage, 0), rc;

	if (n < 0) {
		rc = n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	} else if (!n && !c->nvars) {
		lab_err("compare: give at least one RUN (or \"latest\") or --samples FILE.csv");
		usage_with_options(stderr, opts, &compare_usage);
		rc = EXIT_USAGE;
	} else if (o.mmtests) {
		rc = mmtests_cli(&o, n, argv);
	} else if (o.power && o.fmt != CMP_TEXT && o.fmt != CMP_JSON) {
		lab_err("--power prints text or json only");
		rc = EXIT_USAGE;
	} else {
		rc = cmp_cli_compute(c, &o.cli, n, argv);
		if (!rc)
			rc = write_out(c, &o);
	}
	cmp_free(c);
	return rc;
}
