/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a program from an argv array (never a shell string), with
 * a deadline and its output captured.
 */
#ifndef MMLAB_SPAWN_H
#define MMLAB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

struct spawn_opts {
	double timeout_s;		/* 0 = no deadline; then SIGKILL to its group */
	const char *cwd;		/* NULL = ours */
	const char *const *env;		/* extra NAME=VALUE strings, NULL-terminated */
	size_t max_output;		/* per stream; 0 = 1 MiB; the rest is dropped */
};

struct spawn_result {
	int status;		/* exit status, or 128 + signal number */
	bool timed_out;
	char *out, *err;	/* captured stdout/stderr, NUL-terminated */
};

/*
 * Run argv[0] (looked up in PATH) with argv, stdin from /dev/null, and wait
 * for it. Returns 0 when it ran (r->status says how it ended), -1 after one
 * lab_err() when it could not be started (not found, fork failed).
 */
int spawn_run(const char *const argv[], const struct spawn_opts *o,
	      struct spawn_result *r);
void spawn_result_release(struct spawn_result *r);

#endif
