// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - "mmlab <command>" dispatch, in the manner of git's builtin/ and
 * perf's builtin-*.c: each command lives in lab/builtin/cmd-<command>.c.
 * The global options (an option table, lib/parse-options.h) stop at the
 * command name; the command parses the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "builtin/builtin.h"
#include "lib/parse-options.h"
#include "lib/strbuf.h"
#include "lib/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, "boot each variant of a job, run the workload, store the results" },
	{ "doctor", cmd_doctor, "what this host can do: QEMU, libvirt, KVM or TCG, kernels" },
	{ "results", cmd_results, "list and show stored runs" },
	{ "image", cmd_image, "build and list guest images" },
	{ "compare", cmd_compare, "compare variants with significance tests" },
	{ "report", cmd_report, "write an HTML report with plots" },
	{ "queue", cmd_queue, "batch runs: a resumable queue of jobs, concurrent pinned VMs" },
	{ "submit", cmd_submit, "run jobs on a Slurm cluster (sbatch array jobs)" },
	{ "repro", cmd_repro, "reproduce a bug report from a recipe: REPRODUCED or not" },
	{ "kernel", cmd_kernel, "build kernel variants from a git tree into the kernel cache" },
	{ "bisect", cmd_bisect, "find the commit that changed a metric or brought a warning" },
	{ "track", cmd_track, "watch a series of kernels: change points, confirmed and bisected" },
};

static const char *const main_synopsis[] = {
	"mmlab [--results DIR] [--connect URI] <command> [<args>]",
	NULL,
};

/* the help's text: what mmlab is, then the commands */
static void main_text(struct strbuf *sb)
{
	strbuf_addstr(sb,
		      "mmlab builds kernel variants, boots them on NUMA guests through libvirt,\n"
		      "runs memory-management workloads and compares the statistics.\n"
		      "\n"
		      "commands:");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		strbuf_addf(sb, "\n  %-10s %s", commands[i].name, commands[i].summary);
}

static const char main_footer[] =
	"'mmlab help <command>' or 'mmlab <command> --help' describes a command;\n"
	"docs/mmlab.md is the manual.";

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const struct command *command_or_err(const char *name)
{
	const struct command *cmd = find_command(name);

	const char *names[ARRAY_SIZE(commands) + 1], *near;

	if (cmd)
		return cmd;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	names[ARRAY_SIZE(commands)] = NULL;
	near = nearest_name(name, names);
	if (near)
		lab_err("no command '%s' (did you mean '%s'?); 'mmlab help' lists them", name,
			near);
	else
		lab_err("no command '%s'; 'mmlab help' lists them", name);
	return NULL;
}

/* the global options, then the command with argv from its name on */
static int run_main(int argc, char **argv, const struct opt_usage *u)
{
	static char self[] = ""; /* messages say "see 'mmlab --help'" */
	bool version = false;
	struct opt opts[] = {
		OPT_STRING(0, "results", &gopts.results_dir, "DIR",
			   "results store (default $MMLAB_RESULTS or ./results)"),
		OPT_STRING(0, "connect", &gopts.connect_uri, "URI",
			   "libvirt URI (default $MMLAB_LIBVIRT_URI or qemu:///system)"),
		OPT_BOOL('q', "quiet", &lab_quiet, "no progress messages"),
		OPT_BOOL(0, "version", &version, "print the version"),
		OPT_END(),
	};
	const struct command *cmd;
	char *hargv[3];
	int n;

	gopts_init();
	argv[0] = self;
	n = parse_options(argc, argv, opts, u, PARSE_OPT_STOP_AT_NON_OPTION);
	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (version) {
		printf("mmlab %s\n", MMLAB_VERSION);
		return 0;
	}
	if (!n) {
		usage_with_options(stderr, opts, u);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		if (n < 2) {
			usage_with_options(stdout, opts, u);
			return 0;
		}
		cmd = command_or_err(argv[1]);
		if (!cmd)
			return EXIT_USAGE;
		hargv[0] = argv[1];
		hargv[1] = "--help";
		hargv[2] = NULL;
		argv = hargv;
		n = 2;
	} else {
		cmd = command_or_err(argv[0]);
		if (!cmd)
			return EXIT_USAGE;
	}
	return cmd->fn(n, argv);
}

int main(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT;
	struct opt_usage u = { .synopsis = main_synopsis, .footer = main_footer };
	int ret;

	/*
	 * GSL's default error handler aborts; every caller checks its inputs
	 * (stats.c) and a result that is not finite is reported as such.
	 */
	gsl_set_error_handler_off();
	main_text(&text);
	u.text = text.buf;
	ret = run_main(argc, argv, &u);
	strbuf_release(&text);
	return ret;
}
