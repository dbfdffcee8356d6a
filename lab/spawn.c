// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - fork/exec with an argv array, a deadline and captured output.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int spawn_run(const char *const argv[], const struct spawn_opts *o,
	      struct spawn_result *r)
{
	size_t cap = o && o->max_output ? o->max_output : 64u << 10;
	double deadline = o && o->timeout_s > 0 ? mono() + o->timeout_s : 0;
	int pfd[2], st = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->output = xcalloc(1, cap + 1);
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (o && o->cwd && chdir(o->cwd))
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int ms = -1, n;
		char buf[4096];
		ssize_t got;

		if (deadline) {
			double left = deadline - mono();

			if (left <= 0) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				break;
			}
			ms = (int)(left * 1000) + 1;
		}
		n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		got = read(pfd[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (r->output_len < cap) {
			size_t k = (size_t)got < cap - r->output_len ?
				   (size_t)got : cap - r->output_len;

			memcpy(r->output + r->output_len, buf, k);
			r->output_len += k;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) :
		    WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
	return !r->timed_out && r->status == 0 ? 0 : -1;
}

void spawn_result_free(struct spawn_result *r)
{
	free(r->output);
	r->output = NULL;
}
