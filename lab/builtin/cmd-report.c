// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-report.c - `mmlab report`: the comparison as a self-contained HTML
 * page with SVG box plots and time series (report_html.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "analysis/compare.h"
#include "builtin/compare_cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab report RUN [RUN...] [-o report.html] [options]\n"
		"\n"
		"Write one self-contained HTML file (no external assets): the\n"
		"comparison table with p-values and confidence intervals, a box plot\n"
		"per metric and variant, and the 1 Hz time series when recorded.\n"
		"\n"
		"  -o, --output FILE    the HTML file (default report.html, - = stdout)\n"
		"  --baseline VARIANT   compare against this variant (default: the first)\n"
		"  --alpha A            significance level (default 0.05)\n"
		"  --metrics GLOBS      comma-separated metric name patterns ('*' = all)\n"
		"  --samples FILE.csv   rows variant,metric,value[,direction]\n"
		"  --derive NAME=EXPR   a derived metric\n"
		"\n"
		"exit status: 0 done, 1 a run could not be loaded or the file not\n"
		"written, 2 bad usage or bad input\n");
}

struct report_opts {
	const char *output, *baseline, *metrics;
	double alpha;
};

static int parse_args(int argc, char **argv, struct comparison *c,
		      struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "samples", required_argument, NULL, 's' },
		{ "derive", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 0;	/* afresh: options may follow the runs */
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (opt == 'o') {
			o->output = optarg;
		} else if (opt == 'b') {
			o->baseline = optarg;
		} else if (opt == 'm') {
			o->metrics = optarg;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (opt == 'a') {
			if (cmp_parse_alpha(optarg, &o->alpha) < 0)
				return EXIT_USAGE;
		} else if (opt == 's') {
			if (cmp_add_samples_csv(c, optarg) < 0)
				return EXIT_USAGE;
		} else if (opt == 'd') {
			if (cmp_add_derive_opt(c, optarg) < 0)
				return EXIT_USAGE;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return -1;
}

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
	struct report_opts o = { .output = "report.html", .alpha = 0.05 };
	struct comparison *c = cmp_new();
	int rc = parse_args(argc, argv, c, &o);

	if (rc >= 0)
		goto done;
	if (optind == argc && !c->nvars) {
		lab_err("report: give at least one RUN (or \"latest\")");
		usage(stderr);
		rc = EXIT_USAGE;
		goto done;
	}
	rc = cmp_load_runs(c, argc - optind, argv + optind);
	if (rc)
		goto done;
	if (cmp_compute(c, o.baseline, o.alpha, o.metrics) < 0) {
		rc = EXIT_USAGE;
		goto done;
	}
	for (size_t i = 0; i < c->warnings.n; i++)
		lab_warn("%s", c->warnings.v[i]);
	rc = write_report(c, o.output) < 0 ? EXIT_RUN_FAILED : 0;
done:
	cmp_free(c);
	return rc;
}
