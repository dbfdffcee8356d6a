// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bisect.c - "mmlab bisect": find the commit that changed a metric (or
 * brought a signature: a warning, a crash, a hang) with git bisect as the
 * search engine and mmlab deciding each verdict from measured runs. The
 * options of each subcommand and what it prints; the engine is
 * lab/bisect/session.h. docs/bisect.md is the reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bisect/session.h"
#include "builtin/builtin.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const bisect_synopsis[] = {
	"mmlab bisect start --job JOB --good REF --bad REF\n"
	"                          (--metric EXPR [--direction lower|higher] [--min-change P%]\n"
	"                           | --signature SIG [--k K] [--n N])\n"
	"                          [--reverse] [--paths PATH]... [--tree DIR] [--variant NAME]\n"
	"                          [--iterations N] [--max-iterations M] [--alpha A]\n"
	"mmlab bisect start --job JOB --kernels FILE (--metric ... | --signature ...)\n"
	"                          [--reverse] [--variant NAME] [--iterations N] ...",
	"mmlab bisect run [--json]",
	"mmlab bisect status [--json]",
	"mmlab bisect log",
	"mmlab bisect replay FILE [--json]",
	"mmlab bisect reset",
	NULL,
};

#define START_TEXT                                                                         \
	"  start      record the bisection (RESULTS/bisect/) and let git pick the first\n" \
	"             commit; nothing is measured yet"
#define RUN_TEXT                                                                           \
	"  run        measure both endpoints, refuse when they do not differ, then test\n" \
	"             commits until git names the first bad one; safe to interrupt\n"      \
	"             (Ctrl-C, kill -9) and run again: finished steps are not redone"
#define STATUS_TEXT "  status     where the bisection is; the steps so far"
#define LOG_TEXT "  log        the replayable log (git's bisect log and the measurements)"
#define REPLAY_TEXT                                                                  \
	"  replay F   start a bisection from such a log: no build, no run for the\n" \
	"             steps it holds; 'run' goes on if it was not finished"
#define RESET_TEXT "  reset      end the bisection (kept as RESULTS/bisect-<time>/)"

static const char bisect_footer[] =
	"Exit status: 0 first bad commit found (or the command done), 1 refused,\n"
	"failed or undecided (only skipped commits left), 2 bad usage, 130 interrupted.\n"
	"See docs/bisect.md.";

static const struct opt_usage bisect_usage = {
	.synopsis = bisect_synopsis,
	.text = "Find the commit that made a metric worse (or brought a signature) between a\n"
		"good and a bad commit. git bisect, in a lab-owned worktree of the job's\n"
		"kernels.tree, picks the commits; mmlab builds each one (incrementally, through the\n"
		"kernel cache), boots it, runs the job's workload and decides the verdict.\n\n" START_TEXT
		"\n" RUN_TEXT "\n" STATUS_TEXT "\n" LOG_TEXT "\n" REPLAY_TEXT "\n" RESET_TEXT
		"\n\nThe options are those of start; run, status and replay take --json.",
	.footer = bisect_footer,
};

static struct bisect_env env_of_gopts(void)
{
	struct bisect_env env = {
		.results_dir = gopts.results_dir,
		.cache_dir = gopts.cache_dir,
		.connect_uri = gopts.connect_uri,
	};

	return env;
}

static void print_result(json_t *res, bool json)
{
	if (json)
		print_json(res);
	else
		bisect_print_result(stdout, res);
}

/* start ----------------------------------------------------------------------- */

struct start_cli {
	struct bisect_start_args a;
	struct strlist paths;
	bool min_change_set;
};

static int parse_fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= 0) || v > 100)
		return -1;
	*out = v;
	return 0;
}

static int direction_cb(const struct opt *o, const char *arg)
{
	struct start_cli *c = o->value;

	if (strcmp(arg, "lower") && strcmp(arg, "higher")) {
		lab_err("--direction is 'lower' or 'higher' (which values are better), not '%s'",
			arg);
		return -1;
	}
	c->a.better = !strcmp(arg, "lower") ? -1 : 1;
	return 0;
}

static int min_change_cb(const struct opt *o, const char *arg)
{
	struct start_cli *c = o->value;

	if (parse_fraction(arg, &c->a.min_change)) {
		lab_err("--min-change wants a fraction or a percentage (0.05, 5%%), not '%s'", arg);
		return -1;
	}
	c->min_change_set = true;
	return 0;
}

static int alpha_cb(const struct opt *o, const char *arg)
{
	double *alpha = o->value;

	if (parse_fraction(arg, alpha) || !(*alpha > 0 && *alpha < 0.5)) {
		lab_err("--alpha wants a number in (0, 0.5), not '%s'", arg);
		return -1;
	}
	return 0;
}

/* what start is given; the table is also the options of 'mmlab bisect --help' */
static struct start_cli start_cli;
static const struct opt start_opts[] = {
	OPT_STRING(0, "job", &start_cli.a.job, "JOB",
		   "the job: topology, workload, kernels.tree and config; its\n"
		   "first variant (or --variant) gives sysctl, thp, cmdline and\n"
		   "patches applied on top of every tested commit"),
	OPT_STRING(0, "good", &start_cli.a.good, "REF",
		   "the good endpoint (tag, branch, commit id)"),
	OPT_STRING(0, "bad", &start_cli.a.bad, "REF", "the bad endpoint (tag, branch, commit id)"),
	OPT_STRING(0, "kernels", &start_cli.a.kernels, "FILE",
		   "bisect over a list of kernels instead of commits: a YAML list,\n"
		   "oldest first, of packages, .deb/.rpm files, paths or\n"
		   "{ kernel, cmdline, sysctl, thp }; the first is good, the last\n"
		   "bad (docs/bisect.md)"),
	OPT_STRING(0, "metric", &start_cli.a.metric, "EXPR",
		   "a metric or an expression of metrics (vmstat.compact_stall,\n"
		   "\"kthread.kcompactd0.cpu_s / time.elapsed_s\")"),
	OPT_CALLBACK(0, "direction", &start_cli, "D",
		     "lower or higher: which values are better (default: either;\n"
		     "the bad endpoint then only has to differ)",
		     direction_cb),
	OPT_CALLBACK(0, "min-change", &start_cli, "P",
		     "the endpoints must differ by at least P (default 5%)", min_change_cb),
	OPT_STRING(0, "signature", &start_cli.a.signature, "SIG",
		   "pass/fail mode: 'dmesg:REGEX', 'crash', 'hang' or\n"
		   "'metric:EXPR OP VALUE'; a commit is bad when SIG occurs in at\n"
		   "least K (--k, default 1) of N runs (--n, default 3), good\n"
		   "when in none"),
	OPT_UINT(0, "k", &start_cli.a.k, 1, 1000, "K",
		 "pass/fail mode: bad when SIG occurs in K runs (default 1)"),
	OPT_UINT(0, "n", &start_cli.a.n, 1, 1000, "N",
		 "pass/fail mode: runs per commit (default 3)"),
	OPT_BOOL(0, "reverse", &start_cli.a.reverse,
		 "find the first good commit (the fix): --bad is the older"),
	OPT_STRLIST(0, "paths", &start_cli.paths, "PATH",
		    "only commits touching PATH (repeatable; git bisect -- PATH)"),
	OPT_STRING(0, "tree", &start_cli.a.tree, "DIR",
		   "the git tree (default: the job's kernels.tree)"),
	OPT_STRING(0, "variant", &start_cli.a.variant, "NAME",
		   "the job's variant giving the settings (default: the first)"),
	OPT_UINT(0, "iterations", &start_cli.a.iterations, 1, 1000, "N",
		 "iterations per endpoint and per step (default: the job's)"),
	OPT_UINT(0, "max-iterations", &start_cli.a.max_iterations, 1, 1000, "M",
		 "iterations a step may grow to when its verdict is unsure\n"
		 "before it is skipped (default 3 N)"),
	OPT_CALLBACK(0, "alpha", &start_cli.a.alpha, "A",
		     "significance level of the tests (default 0.05)", alpha_cb),
	OPT_END(),
};

/* what start needs together; 0 or -1 after a message */
static int check_start(const struct start_cli *c, int argn, char **argv)
{
	const struct bisect_start_args *a = &c->a;

	if (argn) {
		lab_err("bisect start: unexpected '%s'; see 'mmlab bisect --help'", argv[0]);
	} else if (a->kernels && (a->good || a->bad || a->tree || c->paths.n)) {
		lab_err("--kernels bisects a list: its first and last entries are the endpoints; "
			"--good, --bad, --tree and --paths are for a commit bisection");
	} else if (!a->job || (!a->kernels && (!a->good || !a->bad))) {
		lab_err("bisect start needs --job, and --good and --bad (or --kernels FILE); see "
			"'mmlab bisect --help'");
	} else if (!a->metric == !a->signature) {
		lab_err("bisect start needs one of --metric (metric mode) or --signature "
			"(pass/fail mode)");
	} else if (a->signature && (a->better || c->min_change_set)) {
		lab_err("--direction and --min-change are for --metric, not --signature");
	} else if (a->metric && (a->n || a->k)) {
		lab_err("--k and --n are for --signature; with --metric give --iterations");
	} else {
		return 0;
	}
	return -1;
}

static int do_start(int argc, char **argv)
{
	struct start_cli *c = &start_cli;
	struct opt_usage u = {
		(const char *const[]){ bisect_synopsis[0], NULL },
		START_TEXT,
		bisect_footer,
	};
	struct bisect_env env = env_of_gopts();
	struct bisect_params p;
	char *progress;
	int argn, ret = EXIT_USAGE;

	c->a.min_change = 0.05;
	c->a.alpha = 0.05;
	argn = parse_options(argc, argv, start_opts, &u, 0);
	if (argn == PARSE_OPT_HELP)
		ret = 0;
	if (argn < 0 || check_start(c, argn, argv))
		goto out;
	c->a.paths = &c->paths;
	if (bisect_start(&env, &c->a, &p, &progress))
		goto out;
	if (p.kernels)
		printf("bisect: %s over the %zu kernels of %s: good %s, bad %s\n",
		       p.metric ? p.metric : p.signature, json_array_size(p.kernels), c->a.kernels,
		       p.good, p.bad);
	else
		printf("bisect: %s between good %s (%.12s) and bad %s (%.12s) in %s\n",
		       p.metric ? p.metric : p.signature, c->a.good, p.good, c->a.bad, p.bad,
		       p.tree);
	printf("%s: %s\n", p.kernels ? "next" : "git", progress);
	printf("next: 'mmlab bisect run' measures the endpoints (%u iterations each) and bisects\n",
	       p.iterations);
	free(progress);
	bisect_params_release(&p);
	ret = 0;
out:
	strlist_free(&c->paths);
	return ret;
}

/* run, status, log, replay, reset ------------------------------------------ */

/*
 * The options of a subcommand: --json when json is not NULL, else none;
 * want operands. -1 to go on, else the exit status.
 */
static int parse_simple(int argc, char **argv, const char *syn, const char *text, bool *json,
			int want)
{
	const char *cmd = argv[0];
	struct opt with_json[] = { OPT_BOOL(0, "json", json, "print JSON on stdout"), OPT_END() };
	struct opt without[] = { OPT_END() };
	struct opt_usage u = { (const char *const[]){ syn, NULL }, text, bisect_footer };
	int argn = parse_options(argc, argv, json ? with_json : without, &u, 0);

	if (argn < 0)
		return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (argn > want) {
		lab_err("%s: unexpected '%s'; see 'mmlab bisect --help'", cmd, argv[want]);
		return EXIT_USAGE;
	}
	if (argn < want) {
		lab_err("bisect replay wants the log file: 'mmlab bisect replay FILE'");
		return EXIT_USAGE;
	}
	return -1;
}

static int do_run(int argc, char **argv)
{
	struct bisect_env env = env_of_gopts();
	json_t *res = NULL;
	bool json = false;
	int ret = parse_simple(argc, argv, "mmlab bisect run [--json]", RUN_TEXT, &json, 0);

	if (ret >= 0)
		return ret;
	ret = bisect_run(&env, &res);
	if (res)
		print_result(res, json);
	json_decref(res);
	return ret;
}

static int do_status(int argc, char **argv)
{
	struct bisect_env env = env_of_gopts();
	struct bisect_report r;
	bool json = false;
	int ret = parse_simple(argc, argv, "mmlab bisect status [--json]", STATUS_TEXT, &json, 0);

	if (ret >= 0)
		return ret;
	ret = bisect_status(&env, !json, &r);
	if (ret)
		return ret;
	if (json) {
		json_t *o = bisect_report_json(&r);

		print_json(o);
		json_decref(o);
	} else {
		bisect_print_status(stdout, &r);
	}
	bisect_report_release(&r);
	return 0;
}

static int do_log(int argc, char **argv)
{
	struct bisect_env env = env_of_gopts();
	int ret = parse_simple(argc, argv, "mmlab bisect log", LOG_TEXT, NULL, 0);
	size_t len;
	char *text;

	if (ret >= 0)
		return ret;
	text = bisect_log(&env, &len);
	if (!text)
		return EXIT_USAGE;
	fwrite(text, 1, len, stdout);
	free(text);
	return 0;
}

static int do_reset(int argc, char **argv)
{
	struct bisect_env env = env_of_gopts();
	int ret = parse_simple(argc, argv, "mmlab bisect reset", RESET_TEXT, NULL, 0);
	char *kept;

	if (ret >= 0)
		return ret;
	ret = bisect_reset(&env, &kept);
	if (kept)
		printf("bisect: ended; its state and log are kept in %s\n", kept);
	free(kept);
	return ret;
}

static int do_replay(int argc, char **argv)
{
	struct bisect_env env = env_of_gopts();
	json_t *res = NULL;
	bool json = false;
	int ret = parse_simple(argc, argv, "mmlab bisect replay FILE [--json]", REPLAY_TEXT, &json,
			       1);

	if (ret >= 0)
		return ret;
	ret = bisect_replay(&env, argv[0], &res);
	if (res)
		print_result(res, json);
	else if (!ret)
		printf("bisect: replayed; not finished: 'mmlab bisect run' goes on\n");
	json_decref(res);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "start", do_start }, { "run", do_run },	{ "status", do_status },
		{ "log", do_log },     { "replay", do_replay }, { "reset", do_reset },
	};
	struct opt opts[ARRAY_SIZE(subs) + 1];
	char name[32];
	int sub = -1, n;

	if (argc > 1 && !strcmp(argv[1], "help")) {
		usage_with_options(stdout, start_opts, &bisect_usage);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(subs); i++)
		opts[i] = (struct opt)OPT_SUBCOMMAND(subs[i].name, &sub, (int)i);
	opts[ARRAY_SIZE(subs)] = (struct opt)OPT_END();
	n = parse_options(argc, argv, opts, NULL, PARSE_OPT_NO_HELP_PRINT);
	if (n == PARSE_OPT_HELP || !n)
		usage_with_options(n ? stdout : stderr, start_opts, &bisect_usage);
	if (n <= 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	/* messages name "bisect SUB" */
	snprintf(name, sizeof(name), "bisect %s", subs[sub].name);
	argv[0] = name;
	return subs[sub].fn(n, argv);
}
