// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - fork/exec with an argv array, a deadline and captured output.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

#define SPAWN_DEFAULT_OUTPUT (64u << 10)

/* append to a buffer that keeps only the last cap bytes */
static void tail_add(char *buf, size_t cap, size_t *len, const char *data, size_t n)
{
	if (n >= cap) {
		memcpy(buf, data + n - cap, cap);
		*len = cap;
		return;
	}
	if (*len + n > cap) {
		size_t drop = *len + n - cap;

		memmove(buf, buf + drop, *len - drop);
		*len -= drop;
	}
	memcpy(buf + *len, data, n);
	*len += n;
}

static void child(const char *const argv[], const struct spawn_opts *o, int out_w)
{
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (null >= 0)
		dup2(null, 0);
	dup2(out_w, 1);
	dup2(out_w, 2);
	if (o->cwd && chdir(o->cwd)) {
		dprintf(2, "cannot change to %s: %s\n", o->cwd, strerror(errno));
		_exit(126);
	}
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static char *last_lines(const char *s, int lines)
{
	const char *p = s + strlen(s);

	while (p > s && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	for (const char *q = p; q > s; q--) {
		if (q[-1] == '\n' && --lines == 0)
			return xstrndup(q, (size_t)(p - q));
	}
	return xstrndup(s, (size_t)(p - s));
}

int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r)
{
	static const struct spawn_opts none;
	struct spawn_result local;
	size_t cap, len = 0;
	double deadline;
	int fds[2], status = 0;
	char *buf;
	pid_t pid;

	if (!o)
		o = &none;
	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	cap = o->max_output ? o->max_output : SPAWN_DEFAULT_OUTPUT;
	if (pipe2(fds, O_CLOEXEC)) {
		lab_err("cannot run %s: pipe: %s", argv[0], strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		lab_err("cannot run %s: fork: %s", argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0)
		child(argv, o, fds[1]);
	setpgid(pid, pid);
	close(fds[1]);
	buf = xmalloc(cap + 1);
	deadline = o->timeout_s > 0 ? now_monotonic() + o->timeout_s : 0;
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int ms = 1000, pr;
		char chunk[8192];
		ssize_t n;

		if (deadline) {
			double left = deadline - now_monotonic();

			if (left <= 0) {
				r->timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			ms = left < 1 ? (int)(left * 1000) + 1 : 1000;
		}
		pr = poll(&pfd, 1, ms);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0)
			continue;
		n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		tail_add(buf, cap, &len, chunk, (size_t)n);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* leftovers of the group (daemons a tool started) go too */
	kill(-pid, SIGKILL);
	buf[len] = '\0';
	r->output = buf;
	r->output_len = len;
	if (WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	if (!r->timed_out && r->exit_code == 0) {
		if (r == &local)
			spawn_result_release(r);
		return 0;
	}
	if (!o->quiet) {
		char *tail = last_lines(buf, 8);

		if (r->timed_out)
			lab_err("%s did not finish within %.0f s and was killed; last output:\n%s",
				argv[0], o->timeout_s, tail);
		else if (r->signal)
			lab_err("%s died of signal %d; last output:\n%s", argv[0], r->signal, tail);
		else
			lab_err("%s failed (exit status %d); last output:\n%s", argv[0],
				r->exit_code, tail);
		free(tail);
	}
	if (r == &local)
		spawn_result_release(r);
	return -1;
}

void spawn_result_release(struct spawn_result *r)
{
	free(r->output);
	r->output = NULL;
	r->output_len = 0;
}
