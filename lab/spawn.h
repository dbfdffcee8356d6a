/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spawn.h - run a program from an argv array (never a shell string) with a
 * deadline, capturing its output.
 */
#ifndef MMLAB_SPAWN_H
#define MMLAB_SPAWN_H

#include <stddef.h>

struct spawn_opts {
	const char *cwd;	/* NULL: the current directory */
	double timeout_s;	/* 0: no deadline; past it the child gets SIGKILL */
	size_t max_output;	/* bytes of stdout+stderr kept (0: 64 KiB) */
};

struct spawn_result {
	int status;		/* exit code, or 128+signal, or -1 not started */
	int timed_out;
	char *output;		/* stdout and stderr interleaved, NUL-terminated (free) */
	size_t output_len;
};

/* 0 when the program ran and exited 0; -1 otherwise (r says why) */
int spawn_run(const char *const argv[], const struct spawn_opts *o,
	      struct spawn_result *r);
void spawn_result_free(struct spawn_result *r);

#endif
