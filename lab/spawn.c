// SPDX-License-Identifier: GPL-2.0
/*
 * spawn.c - fork/exec with pipes, poll() until both pipes close and the
 * child exits or the deadline passes.
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

struct buf {
	char *p;
	size_t n, max;
};

static void buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->n + n > b->max)
		n = b->max - b->n;
	if (!n)
		return;
	b->p = xrealloc(b->p, b->n + n + 1);
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void child(const char *const argv[], const struct spawn_opts *o, int out, int err,
		  int report)
{
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail;
	if (o && o->cwd && chdir(o->cwd))
		goto fail;
	for (const char *const *e = o ? o->env : NULL; e && *e; e++)
		if (putenv((char *)*e))
			goto fail;
	execvp(argv[0], (char *const *)argv);
fail:
	{
		int e = errno;

		if (write(report, &e, sizeof(e)) < 0)
			_exit(127);
	}
	_exit(127);
}

int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r)
{
	int po[2], pe[2], rep[2], e = 0, wst = 0;
	struct buf bo = { 0 }, be = { 0 };
	size_t max = o && o->max_output ? o->max_output : 1u << 20;
	double deadline = o && o->timeout_s > 0 ? now_monotonic() + o->timeout_s : 0;
	bool reaped = false;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	bo.max = be.max = max;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
		lab_err("cannot run %s: pipe: %s", argv[0], strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		lab_err("cannot run %s: fork: %s", argv[0], strerror(errno));
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		close(rep[0]); close(rep[1]);
		return -1;
	}
	if (pid == 0)
		child(argv, o, po[1], pe[1], rep[1]);
	close(po[1]);
	close(pe[1]);
	close(rep[1]);
	if (read(rep[0], &e, sizeof(e)) == sizeof(e)) {
		close(rep[0]);
		close(po[0]);
		close(pe[0]);
		waitpid(pid, NULL, 0);
		lab_err("cannot run %s: %s; is it installed and in PATH?", argv[0], strerror(e));
		return -1;
	}
	close(rep[0]);
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2;

	while (open_fds > 0 || !reaped) {
		int wait_ms = 100, n;

		if (deadline && now_monotonic() > deadline && !r->timed_out) {
			r->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		n = poll(fds, 2, open_fds ? wait_ms : 0);
		for (int i = 0; n > 0 && i < 2; i++) {
			char chunk[4096];
			ssize_t got;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(fds[i].fd, chunk, sizeof(chunk));
			if (got > 0) {
				buf_add(i ? &be : &bo, chunk, (size_t)got);
			} else if (got == 0 || errno != EINTR) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
		if (!reaped && waitpid(pid, &wst, WNOHANG) == pid)
			reaped = true;
		if (!open_fds && !reaped)
			usleep(20000);
	}
	r->status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	r->out = bo.p ? bo.p : xstrdup("");
	r->err = be.p ? be.p : xstrdup("");
	return 0;
}

void spawn_result_release(struct spawn_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
