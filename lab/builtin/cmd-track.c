// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-track.c - "mmlab track add|run|status|report|list": the command line
 * of the regression robot (lab/track/, docs/track.md).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "lib/parse-options.h"
#include "lib/util.h"
#include "track/track.h"
#include "vm/placement.h"

static const char *const track_synopsis[] = {
	"mmlab track add TRACK.yaml",
	"mmlab track run NAME [--jobs N] [--follow [--poll 10m]] [--no-confirm] [--no-bisect]",
	"mmlab track run NAME --slurm [--partition P] [...]",
	"mmlab track status NAME [--json]",
	"mmlab track report NAME [--format text|json|html|mbox] [-o FILE]",
	"mmlab track list [--json]",
	NULL,
};

static const char track_text[] =
	"Watch a series of kernels (a branch's commits, tags, or a list of kernels and\n"
	"boot settings), measure each with the track's jobs, find the commits that\n"
	"moved a metric (E-divisive means, Benjamini-Hochberg over every series),\n"
	"measure each change again before it is reported, and bisect it.\n"
	"\n"
	"add     check a track file and add it (again: update it) to the store\n"
	"run     measure every kernel not yet measured (through the queue: concurrent\n"
	"        pinned VMs), then detect, confirm and bisect; safe to kill and run\n"
	"        again: nothing is measured twice. --follow looks for new kernels\n"
	"        every --poll and measures them as they come\n"
	"status  kernels measured, queued and failed; change points; confirmations\n"
	"        and bisections\n"
	"report  one entry per confirmed change: subject, first bad commit, setup,\n"
	"        comparison, commands; html is one self-contained file with a chart\n"
	"        per series; mbox is one message per regression (nothing is sent)";

static const char track_footer[] =
	"Exit status: 0 success, 1 a step failed or was interrupted (run it again),\n"
	"2 bad usage or a bad track file. See docs/track.md.";

struct track_args {
	struct track_run_opts ro;
	const char *format, *output, *poll;
	bool json;
	char mmlab[4096];
};

static int partition_cb(const struct opt *o, const char *arg)
{
	for (const char *c = arg; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c)) {
			lab_err("--partition '%s' is not a Slurm partition name ([A-Za-z0-9._-])",
				arg);
			return -1;
		}
	*(const char **)o->value = arg;
	return 0;
}

static void track_options(struct track_args *a, struct opt out[12])
{
	const struct opt all[] = {
		OPT_UINT(0, "jobs", &a->ro.jobs, 1, PLACE_MAX_CPUS, "N",
			 "run: at most N VMs at once (default: as the host holds)"),
		OPT_BOOL(0, "follow", &a->ro.follow, "run: look for new kernels until interrupted"),
		OPT_STRING(0, "poll", &a->poll, "TIME",
			   "run --follow: how often to look (default 10m; s, m or h)"),
		OPT_BOOL(0, "no-confirm", &a->ro.no_confirm, "run: stop after the detection"),
		OPT_BOOL(0, "no-bisect", &a->ro.no_bisect, "run: stop after the confirmation"),
		OPT_BOOL(0, "slurm", &a->ro.slurm,
			 "run: submit the kernels' runs to Slurm (sbatch arrays, as\n"
			 "'mmlab submit --slurm') and wait for them"),
		OPT_CALLBACK(0, "partition", &a->ro.partition, "P",
			     "run --slurm: sbatch --partition", partition_cb),
		OPT_STRING(0, "format", &a->format, "F",
			   "report: text (default), json, html, mbox"),
		OPT_STRING('o', "output", &a->output, "FILE", "report: write to FILE"),
		OPT_BOOL(0, "json", &a->json, "status, list: machine-readable output"),
		OPT_END(),
	};

	memcpy(out, all, sizeof(all));
}

static void usage(FILE *f)
{
	struct track_args a = { 0 };
	const struct opt_usage u = { track_synopsis, track_text, track_footer };
	struct opt opts[12];

	track_options(&a, opts);
	usage_with_options(f, opts, &u);
}

/* "90", "90s", "10m", "2h" into seconds */
static int parse_poll(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	unsigned long mul = !*end || !strcmp(end, "s") ? 1 :
			    !strcmp(end, "m")	       ? 60 :
			    !strcmp(end, "h")	       ? 3600 :
							 0;

	if (end == s || !mul || !v || v * mul > 7 * 24 * 3600UL) {
		lab_err("--poll wants a time such as 90s, 10m or 1h (at most a week), not '%s'", s);
		return -1;
	}
	*out = (unsigned int)(v * mul);
	return 0;
}

static int format_of(const char *s, enum track_format *f)
{
	static const char *const names[] = { "text", "json", "html", "mbox" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*f = (enum track_format)i;
			return 0;
		}
	lab_err("--format %s: unknown; use text, json, html or mbox", s);
	return -1;
}

static int do_report(const struct track_env *env, const char *name, const struct track_args *a)
{
	enum track_format fmt = TRACK_TEXT;
	FILE *f = stdout;
	int ret;

	if (a->format && format_of(a->format, &fmt))
		return EXIT_USAGE;
	if (a->output && !(f = fopen(a->output, "w"))) {
		lab_err("cannot write %s: %m", a->output);
		return EXIT_USAGE;
	}
	ret = track_report(env, name, fmt, f);
	if (f != stdout && fclose(f)) {
		lab_err("writing %s failed: %m", a->output);
		ret = -1;
	}
	if (!ret && f != stdout)
		lab_info("wrote %s", a->output);
	return ret ? EXIT_USAGE : 0;
}

static int do_list(const struct track_env *env, bool json)
{
	size_t n;
	struct track_info *l = track_list(env, &n);

	if (json) {
		json_t *j = track_list_json(l, n);

		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
	} else if (!n) {
		printf("no tracks in %s; add one with 'mmlab track add FILE'\n", env->results_dir);
	}
	for (size_t i = 0; i < n && !json; i++)
		printf("%-32s %5zu kernels  %s\n", l[i].name, l[i].points, l[i].file ?: "");
	track_list_free(l, n);
	return 0;
}

/* --slurm: the binary the nodes run */
static int slurm_setup(struct track_args *a)
{
	ssize_t len = readlink("/proc/self/exe", a->mmlab, sizeof(a->mmlab) - 1);

	if (len <= 0) {
		lab_err("cannot find this mmlab binary (/proc/self/exe)");
		return -1;
	}
	a->mmlab[len] = '\0';
	a->ro.mmlab = a->mmlab;
	return 0;
}

/* the subcommand with its operand, after the options were parsed */
static int dispatch(const struct track_env *env, const char *sub, int n, char **ops,
		    struct track_args *a)
{
	char *name = NULL;
	bool bad;
	json_t *st;

	if (!strcmp(sub, "list"))
		return n ? (lab_err("'track list' takes no operand"), EXIT_USAGE) :
			   do_list(env, a->json);
	if (n != 1) {
		lab_err("'track %s' takes one %s; see 'mmlab track --help'", sub,
			strcmp(sub, "add") ? "track name" : "track file");
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "add")) {
		if (track_add(env, ops[0], &name))
			return EXIT_USAGE;
		printf("track %s added; 'mmlab track run %s' measures it\n", name, name);
		free(name);
		return 0;
	}
	if (!strcmp(sub, "run")) {
		if (a->poll && parse_poll(a->poll, &a->ro.poll_s))
			return EXIT_USAGE;
		if (a->ro.slurm && slurm_setup(a))
			return EXIT_RUN_FAILED;
		if (!track_run(env, ops[0], &a->ro, &bad))
			return 0;
		return bad ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	if (!strcmp(sub, "status")) {
		st = track_status(env, ops[0]);
		if (!st)
			return EXIT_USAGE;
		if (a->json) {
			json_dumpf(st, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
		} else {
			track_print_status(stdout, st);
		}
		json_decref(st);
		return 0;
	}
	if (!strcmp(sub, "report"))
		return do_report(env, ops[0], a);
	lab_err("no subcommand '%s' of track; use add, run, status, report or list", sub);
	return EXIT_USAGE;
}

int cmd_track(int argc, char **argv)
{
	char *results = path_abs(gopts.results_dir); /* the Slurm nodes see the same path */
	struct track_env env = { .results_dir = results,
				 .cache_dir = gopts.cache_dir,
				 .connect_uri = gopts.connect_uri };
	struct track_args a = { 0 };
	const struct opt_usage u = { track_synopsis, track_text, track_footer };
	static const char *const subs[] = { "add", "run", "status", "report", "list" };
	struct opt opts[12], sub_opts[ARRAY_SIZE(subs) + 1];
	char name[32];
	int sub = -1, n;

	for (size_t i = 0; i < ARRAY_SIZE(subs); i++)
		sub_opts[i] = (struct opt)OPT_SUBCOMMAND(subs[i], &sub, (int)i);
	sub_opts[ARRAY_SIZE(subs)] = (struct opt)OPT_END();
	n = parse_options(argc, argv, sub_opts, NULL, PARSE_OPT_NO_HELP_PRINT);
	if (n == PARSE_OPT_HELP || !n)
		usage(n ? stdout : stderr);
	if (n <= 0) {
		free(results);
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "track %s", subs[sub]);
	argv[0] = name;
	track_options(&a, opts);
	n = parse_options(n, argv, opts, &u, 0);
	if (n < 0) {
		free(results);
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	}
	n = dispatch(&env, subs[sub], n, argv, &a);
	free(results);
	return n;
}
