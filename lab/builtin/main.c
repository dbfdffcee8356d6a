// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - "mmlab <command>" dispatch, in the manner of git's builtin/ and
 * perf's builtin-*.c: each command lives in lab/cmd-<command>.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
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
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab [--results DIR] [--connect URI] <command> [<args>]\n"
		"\n"
		"mmlab builds kernel variants, boots them on NUMA guests through libvirt,\n"
		"runs memory-management workloads and compares the statistics.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"global options:\n"
		"  --results DIR   results store (default $MMLAB_RESULTS or ./results)\n"
		"  --connect URI   libvirt URI (default $MMLAB_LIBVIRT_URI or qemu:///system)\n"
		"  -q, --quiet     no progress messages\n"
		"  --version       print the version\n"
		"\n"
		"'mmlab help <command>' or 'mmlab <command> --help' describes a command;\n"
		"docs/mmlab.md is the manual.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "results", required_argument, NULL, 'r' },
		{ "connect", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	int c;

	gopts_init();
	/* "+": stop at the command name; the command parses the rest */
	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			gopts.results_dir = optarg;
			break;
		case 'c':
			gopts.connect_uri = optarg;
			break;
		case 'q':
			lab_quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mmlab %s\n", MMLAB_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 >= argc) {
			usage(stdout);
			return 0;
		}
		cmd = find_command(argv[optind + 1]);
		if (!cmd) {
			lab_err("no command '%s'; 'mmlab help' lists them", argv[optind + 1]);
			return EXIT_USAGE;
		}
		char *hargv[] = { argv[optind + 1], "--help", NULL };

		optind = 0;
		return cmd->fn(2, hargv);
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		lab_err("no command '%s'; 'mmlab help' lists them", argv[optind]);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	/*
	 * the command runs its own getopt_long from argv[1]; 0, not 1, makes
	 * glibc start afresh, so options may follow operands again (main's "+")
	 */
	optind = 0;
	return cmd->fn(argc, argv);
}
