// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - `mmlab report`: the comparison as a self-contained HTML
 * page: run facts, summary with a forest plot, time series, grouped
 * evidence, box plots (report_html.c). docs/compare.md, "HTML report".
 */
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "analysis/compare.h"
#include "builtin/compare_cli.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const report_synopsis[] = {
	"mmlab report RUN [RUN...] [-o report.html] [options]",
	NULL,
};

static const struct opt_usage report_usage = {
	.synopsis = report_synopsis,
	.text = "Write one self-contained HTML file (no script, no external assets):\n"
		"the run's facts (kernels, cmdline, topology, accelerator, order and\n"
		"seed, warnings), a summary of what changed significantly with a\n"
		"forest plot (or the smallest change the run could have detected),\n"
		"the 1 Hz time series and the memory taken per node, the tables by\n"
		"group with constant metrics folded, and a box plot per metric that\n"
		"varies. See docs/compare.md (\"HTML report\").",
	.footer = "exit status: 0 done, 1 a run could not be loaded or the file not\n"
		  "written, 2 bad usage or bad input",
};

static int write_report(const struct comparison *c, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (!mem) {
		lab_err("cannot build the report in memory (out of memory?)");
		return -1;
	}
	rc = cmp_write_html(c, mem);
	if (fclose(mem) || rc < 0) {
		free(buf);
		return -1;
	}
	if (!strcmp(path, "-"))
		rc = fwrite(buf, 1, len, stdout) == len ? 0 : -1;
	else
		rc = write_file_atomic(path, buf, len, 0644);
	free(buf);
	if (!rc && strcmp(path, "-"))
		lab_info("wrote %s", path);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct cmp_cli o = { .output = "report.html", .alpha = 0.05 };
	struct comparison *c = cmp_new();
	struct opt opts[] = {
		OPT_STRING('o', "output", &o.output, "FILE",
			   "the HTML file (default report.html, - = stdout)"),
		OPT_STRING(0, "baseline", &o.baseline, "VARIANT",
			   "compare against this variant (default: the first)"),
		OPT_CALLBACK(0, "alpha", &o.alpha, "A", "significance level (default 0.05)",
			     cmp_opt_alpha),
		OPT_STRING(0, "metrics", &o.metrics, "GLOBS",
			   "comma-separated metric name patterns ('*' = all)"),
		OPT_CALLBACK(0, "samples", c, "FILE.csv", "rows variant,metric,value[,direction]",
			     cmp_opt_samples),
		OPT_CALLBACK(0, "derive", c, "NAME=EXPR", "a derived metric", cmp_opt_derive),
		OPT_END(),
	};
	int n = parse_options(argc, argv, opts, &report_usage, 0), rc;

	if (n < 0) {
		rc = n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	} else if (!n && !c->nvars) {
		lab_err("report: give at least one RUN (or \"latest\")");
		usage_with_options(stderr, opts, &report_usage);
		rc = EXIT_USAGE;
	} else {
		rc = cmp_cli_compute(c, &o, n, argv);
		for (size_t i = 0; !rc && i < c->warnings.n; i++)
			lab_warn("%s", c->warnings.v[i]);
		if (!rc)
			rc = write_report(c, o.output) < 0 ? EXIT_RUN_FAILED : 0;
	}
	cmp_free(c);
	return rc;
}
