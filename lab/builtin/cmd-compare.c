// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-compare.c - `mmlab compare`: variants of one or more runs (or a
 * samples CSV) side by side with significance tests. docs/compare.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "analysis/compare.h"
#include "builtin/compare_cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab compare RUN [RUN...] [options]\n"
		"       mmlab compare --samples FILE.csv [options]\n"
		"       mmlab compare RUN --power [--effect 2%%]\n"
		"\n"
		"Compare the variants of runs (\"latest\" = the newest run) with\n"
		"Welch's t-test and Benjamini-Hochberg; see docs/compare.md.\n"
		"\n"
		"  --baseline VARIANT   compare against this variant (default: the first)\n"
		"  --format FMT         text (default), markdown, csv, json or html\n"
		"  --alpha A            significance level (default 0.05)\n"
		"  --samples FILE.csv   rows variant,metric,value[,direction]; repeatable\n"
		"  --metrics GLOBS      comma-separated metric name patterns ('*' = all)\n"
		"  --derive NAME=EXPR   a derived metric, e.g. 'r=vmstat.a / vmstat.b'\n"
		"  --power              iterations needed per metric instead of the table\n"
		"  --effect PCT         relative change for --power (default 2%%)\n"
		"  -o, --output FILE    write there instead of standard output\n"
		"\n"
		"exit status: 0 done, 1 a run could not be loaded or output failed,\n"
		"2 bad usage or bad input\n");
}

int cmp_parse_pct(const char *s, double *frac)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	if (*end == '%') {
		end++;
		v /= 100;
	}
	if (*end || !(v > 0) || v >= 10)
		return -1;
	*frac = v;
	return 0;
}

int cmp_parse_alpha(const char *s, double *alpha)
{
	char *end;

	*alpha = strtod(s, &end);
	if (end == s || *end || !(*alpha > 0 && *alpha < 1)) {
		lab_err("--alpha %s: give a probability between 0 and 1, e.g. 0.05", s);
		return -1;
	}
	return 0;
}

/* user formulas found in the run's job: job_resolved.derived */
static int add_job_derived(struct comparison *c, const json_t *run)
{
	json_t *d = json_object_get(json_object_get(run, "job_resolved"),
				    "derived");
	const char *key;
	json_t *val;

	json_object_foreach(d, key, val) {
		if (!json_is_string(val)) {
			lab_err("derived metric %s in the run's job is not a string",
				key);
			return -1;
		}
		if (!kvlist_get(&c->derived, key) &&
		    cmp_add_derived(c, key, json_string_value(val)) < 0)
			return -1;
	}
	return 0;
}

int cmp_load_runs(struct comparison *c, int nruns, char **runs)
{
	for (int i = 0; i < nruns; i++) {
		const char *id = strcmp(runs[i], "latest") ? runs[i] : NULL;
		json_t *run = results_load_run(gopts.results_dir ?
					       gopts.results_dir : "results", id);
		int rc;

		if (!run)
			return EXIT_RUN_FAILED;
		rc = cmp_add_run(c, run) < 0 || add_job_derived(c, run) < 0;
		json_decref(run);
		if (rc)
			return EXIT_USAGE;
	}
	return 0;
}

int cmp_add_derive_opt(struct comparison *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;
	int rc;

	if (!eq || eq == arg) {
		lab_err("--derive %s: write NAME=EXPRESSION", arg);
		return -1;
	}
	name = xstrndup(arg, (size_t)(eq - arg));
	rc = cmp_add_derived(c, name, eq + 1);
	free(name);
	return rc;
}

int cmp_open_output(const char *path, FILE **out)
{
	*out = stdout;
	if (!path || !strcmp(path, "-"))
		return 0;
	*out = fopen(path, "w");
	if (!*out) {
		lab_err("cannot write %s: %s; check the directory exists and is "
			"writable", path, strerror(errno));
		return -1;
	}
	return 0;
}

int cmp_close_output(FILE *out, const char *path)
{
	int bad = ferror(out);

	if (out != stdout)
		bad |= fclose(out);
	else
		bad |= fflush(out);
	if (bad) {
		lab_err("writing %s failed: %s", path ? path : "standard output",
			strerror(errno));
		return -1;
	}
	return 0;
}

struct compare_opts {
	const char *baseline, *metrics, *output;
	enum cmp_format fmt;
	double alpha, effect;
	bool power;
};

static int parse_args(int argc, char **argv, struct comparison *c,
		      struct compare_opts *o)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "samples", required_argument, NULL, 's' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "derive", required_argument, NULL, 'd' },
		{ "power", no_argument, NULL, 'p' },
		{ "effect", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 0;	/* afresh: options may follow the runs */
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			o->baseline = optarg;
			break;
		case 'm':
			o->metrics = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			o->power = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			if (cmp_parse_format(optarg, &o->fmt) < 0) {
				lab_err("--format %s: use text, markdown, csv, json "
					"or html", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'a':
			if (cmp_parse_alpha(optarg, &o->alpha) < 0)
				return EXIT_USAGE;
			break;
		case 'e':
			if (cmp_parse_pct(optarg, &o->effect) < 0) {
				lab_err("--effect %s: give a relative change such as "
					"2%% or 0.02", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			if (cmp_add_samples_csv(c, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'd':
			if (cmp_add_derive_opt(c, optarg) < 0)
				return EXIT_USAGE;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return -1;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .fmt = CMP_TEXT, .alpha = 0.05, .effect = 0.02 };
	struct comparison *c = cmp_new();
	FILE *out;
	int rc = parse_args(argc, argv, c, &o);

	if (rc >= 0)
		goto done;
	if (optind == argc && !c->nvars) {
		lab_err("compare: give at least one RUN (or \"latest\") or "
			"--samples FILE.csv");
		usage(stderr);
		rc = EXIT_USAGE;
		goto done;
	}
	if (o.power && o.fmt != CMP_TEXT && o.fmt != CMP_JSON) {
		lab_err("--power prints text or json only");
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
	for (size_t i = 0; i < c->warnings.n && o.fmt != CMP_TEXT; i++)
		lab_warn("%s", c->warnings.v[i]);
	if (cmp_open_output(o.output, &out) < 0) {
		rc = EXIT_RUN_FAILED;
		goto done;
	}
	rc = o.power ? cmp_write_power(c, o.effect, o.fmt, out) :
		       cmp_write(c, o.fmt, out);
	rc = (cmp_close_output(out, o.output) < 0 || rc < 0) ? EXIT_RUN_FAILED : 0;
done:
	cmp_free(c);
	return rc;
}
