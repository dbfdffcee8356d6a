/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a program from an argv array (never a shell string) with a
 * deadline, capturing the tail of its output.
 */
#ifndef MMLAB_SPAWN_H
#define MMLAB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

struct spawn_opts {
	double timeout_s;	/* 0 = none; past it the process group is killed */
	const char *cwd;	/* NULL = ours */
	size_t max_output;	/* keep the last N bytes of stdout+stderr; 0 = 64 KiB */
	bool quiet;		/* don't print the failure (r->output holds it) */
};

struct spawn_result {
	int exit_code;		/* -1 when killed by a signal or not started */
	int signal;		/* the signal that ended it, or 0 */
	bool timed_out;
	char *output;		/* the tail of stdout+stderr, NUL-terminated (free()) */
	size_t output_len;
};

/*
 * Run argv[0] (looked up in PATH) with stdin from /dev/null, stdout and
 * stderr captured. Returns 0 when it ran and exited 0; -1 otherwise (it
 * could not start, exited non-zero, died or timed out), after one lab_err()
 * naming the program and its last output unless o->quiet. r may be NULL.
 */
int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r);
void spawn_result_release(struct spawn_result *r);

#endif
