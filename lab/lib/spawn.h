/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a program from an argv array (never a shell string), with a
 * deadline, its output (stdout and stderr together) captured, optionally
 * appended to a log file and fed line by line to a callback (progress).
 */
#ifndef MMLAB_SPAWN_H
#define MMLAB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

struct spawn_opts {
	const char *cwd; /* NULL: the current directory */
	const char *stdin_path; /* the child's stdin; NULL: /dev/null */
	const char *const *env; /* "NAME=VALUE" set in the child, NULL-terminated */
	unsigned int timeout_s; /* 0: no deadline */
	const char *log_path; /* append the output here too (created 0644) */
	/* the child's stderr to this file (created or truncated, 0600), not the output */
	const char *stderr_path;
	size_t capture_max; /* bytes of output kept (the tail); 0: 64 KiB */
	/* called for every complete output line (without the newline) */
	void (*on_line)(const char *line, size_t len, void *arg);
	void *arg;
};

struct spawn_result {
	int exit_code; /* 0..255 when it exited, -1 otherwise */
	int term_signal; /* the signal that ended it, or 0 */
	bool timed_out; /* the deadline passed: the process group was killed */
	char *out; /* the last capture_max bytes of output, NUL-terminated */
	size_t out_len;
	double elapsed_s;
};

/*
 * Runs argv[0] (looked up in PATH) in its own process group with stdin
 * from o->stdin_path (/dev/null by default); it gets SIGTERM if mmlab dies (Ctrl-C on a terminal). Returns the exit code (0 = success), or -1 when it could
 * not be started, was killed by a signal or timed out; only a failure to
 * start prints a message (lab_err), the caller explains the rest, with
 * spawn_describe(). r may be NULL; otherwise release it with
 * spawn_result_free().
 */
int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r);
/* "exited with status 2", "killed by signal 9", "timed out after 10 s" */
const char *spawn_describe(const struct spawn_result *r, unsigned int timeout_s, char *buf,
			   size_t len);
/* the last n lines of r->out (a pointer into it) */
const char *spawn_tail(const struct spawn_result *r, unsigned int n);
void spawn_result_free(struct spawn_result *r);

#endif
