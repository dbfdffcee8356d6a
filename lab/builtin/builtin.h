/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the subcommands; one file lab/builtin/cmd-<name>.c each.
 * Every command takes (argc, argv) with argv[0] the command name, handles
 * --help itself, and returns the process exit status: 0 success, 1 a run
 * that failed, 2 bad usage or bad input.
 */
#ifndef MMLAB_BUILTIN_H
#define MMLAB_BUILTIN_H

#include <jansson.h>

#include "batch/worker.h"

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_track(int argc, char **argv);

/*
 * Option callbacks of the commands that start runs (run_options.c):
 * --accel auto|kvm|tcg into a const char *, --seed N into a struct run_opts.
 */
struct opt;
int opt_accel_cb(const struct opt *o, const char *arg);
int opt_seed_cb(const struct opt *o, const char *arg);

/*
 * A batch engine's result (batch/worker.h) as the exit status
 * (cmd-queue.c; "queue" and "submit" use it).
 */
int batch_exit(enum batch_result r);

/*
 * j as indented JSON and a newline on stdout, a command's --json output
 * (output.c). Borrows j: the caller keeps its reference and drops it.
 */
void print_json(const json_t *j);
struct store;
/*
 * The run (an id, a part of one, NULL: the latest) of s as `mmlab results
 * show --json` prints it, keys sorted (output.c): 0, or -1 after a message
 */
int print_run_json(struct store *s, const char *run);

/* global options parsed by main.c, visible to every command */
struct global_opts {
	const char *results_dir; /* --results / MMLAB_RESULTS, default ./results */
	const char *connect_uri; /* --connect / MMLAB_LIBVIRT_URI */
	const char *cache_dir; /* MMLAB_CACHE, default ~/.cache/mmlab */
};
extern struct global_opts gopts;
/* defaults from the environment (lab/builtin/global.c) */
void gopts_init(void);

#endif
