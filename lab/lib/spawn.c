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
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/util.h"

#define SPAWN_CAPTURE_DEFAULT (64 * 1024)
#define SPAWN_LINE_MAX 4096

struct outbuf {
	char *tail; /* the newest bytes, at most cap */
	size_t len, cap;
	char line[SPAWN_LINE_MAX];
	size_t line_len;
};

static void outbuf_add(struct outbuf *b, const struct spawn_opts *o, const char *p, size_t n)
{
	if (n >= b->cap) {
		memcpy(b->tail, p + n - b->cap, b->cap);
		b->len = b->cap;
	} else {
		if (b->len + n > b->cap) {
			size_t drop = b->len + n - b->cap;

			memmove(b->tail, b->tail + drop, b->len - drop);
			b->len -= drop;
		}
		memcpy(b->tail + b->len, p, n);
		b->len += n;
	}
	if (!o || !o->on_line)
		return;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n' || b->line_len == sizeof(b->line) - 1) {
			b->line[b->line_len] = '\0';
			o->on_line(b->line, b->line_len, o->arg);
			b->line_len = 0;
			if (p[i] == '\n')
				continue;
		}
		b->line[b->line_len++] = p[i];
	}
}

static void child(const char *const argv[], const struct spawn_opts *o, int out_fd)
{
	const char *in = o && o->stdin_path ? o->stdin_path : "/dev/null";
	int in_fd = open(in, O_RDONLY);

	setpgid(0, 0);
	/* its own group (the deadline kills the group), so mmlab's death must reach it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	if (o && o->stderr_path) {
		int err_fd = open(o->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (err_fd < 0) {
			dprintf(2, "mmlab: cannot open %s for %s: %s\n", o->stderr_path, argv[0],
				strerror(errno));
			_exit(127);
		}
		dup2(err_fd, 2);
	}
	if (in_fd >= 0) {
		dup2(in_fd, 0);
	} else if (o && o->stdin_path) {
		dprintf(2, "mmlab: cannot open %s for %s: %s\n", in, argv[0], strerror(errno));
		_exit(127);
	}
	if (o && o->cwd && chdir(o->cwd)) {
		dprintf(2, "mmlab: cannot enter %s: %s\n", o->cwd, strerror(errno));
		_exit(127);
	}
	for (const char *const *e = o ? o->env : NULL; e && *e; e++)
		putenv((char *)*e);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "mmlab: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r)
{
	struct spawn_result local;
	struct outbuf b = { 0 };
	double start = now_monotonic(), deadline = 0;
	int pfd[2], log_fd = -1, status = 0;
	bool timed_out = false;
	pid_t pid;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	if (o && o->log_path) {
		log_fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			lab_err("cannot open the log %s: %s", o->log_path, strerror(errno));
			return -1;
		}
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		lab_err("cannot make a pipe to run %s: %s", argv[0], strerror(errno));
		if (log_fd >= 0)
			close(log_fd);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		lab_err("cannot start %s: %s", argv[0], strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		if (log_fd >= 0)
			close(log_fd);
		return -1;
	}
	if (pid == 0)
		child(argv, o, pfd[1]);
	setpgid(pid, pid);
	close(pfd[1]);
	b.cap = o && o->capture_max ? o->capture_max : SPAWN_CAPTURE_DEFAULT;
	b.tail = xmalloc(b.cap + 1);
	if (o && o->timeout_s)
		deadline = start + o->timeout_s;
	for (;;) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		int wait_ms = -1;
		char buf[65536];
		ssize_t n;

		if (deadline) {
			double left = deadline - now_monotonic();

			if (left <= 0) {
				timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		if (poll(&pf, 1, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!pf.revents)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (log_fd >= 0 && write(log_fd, buf, (size_t)n) != n)
			lab_warn("short write to the log %s", o->log_path);
		outbuf_add(&b, o, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		kill(-pid, SIGKILL); /* stragglers of the group */
	if (log_fd >= 0)
		close(log_fd);
	if (b.line_len && o && o->on_line) {
		b.line[b.line_len] = '\0';
		o->on_line(b.line, b.line_len, o->arg);
	}
	b.tail[b.len] = '\0';
	r->out = b.tail;
	r->out_len = b.len;
	r->elapsed_s = now_monotonic() - start;
	r->timed_out = timed_out;
	if (!timed_out && WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->term_signal = WTERMSIG(status);
	if (r == &local)
		spawn_result_free(r);
	return timed_out ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

const char *spawn_describe(const struct spawn_result *r, unsigned int timeout_s, char *buf,
			   size_t len)
{
	if (r->timed_out)
		snprintf(buf, len, "timed out after %u s", timeout_s);
	else if (r->term_signal)
		snprintf(buf, len, "was killed by signal %d (%s)", r->term_signal,
			 strsignal(r->term_signal));
	else
		snprintf(buf, len, "exited with status %d", r->exit_code);
	return buf;
}

const char *spawn_tail(const struct spawn_result *r, unsigned int n)
{
	const char *p;

	if (!r->out || !r->out_len || !n)
		return "";
	p = r->out + r->out_len;
	if (p > r->out && p[-1] == '\n')
		p--;
	while (p > r->out) {
		if (p[-1] == '\n' && --n == 0)
			break;
		p--;
	}
	return p;
}

void spawn_result_free(struct spawn_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}
