// SPDX-License-Identifier: GPL-2.0
/*
 * launch.c - start a workload (launch.h): what a built-in and a command
 * share, from the pipes to the exec. What differs between them is data in
 * struct launch_spec; watching the process stays with each kind (run.c
 * waits for the handshake, own.c also for a timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "proto.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void place_fd(int fd, int target)
{
	if (fd >= 0 && dup2(fd, target) < 0)
		_exit(126);
}

/* fds: out, err, ctl, go: the child's ends, or -1 */
static __attribute__((noreturn)) void child(const struct launch_spec *s, int fds[4])
{
	int null = open("/dev/null", O_RDONLY);

	if (s->new_session) {
		sigset_t none;

		setsid();
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	signal(SIGPIPE, SIG_DFL);
	/* out of the way of 0..4 before placing them */
	for (int i = 0; i < 4; i++)
		fds[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD, 10) : -1;
	place_fd(null, 0);
	place_fd(fds[0], 1);
	place_fd(fds[1], 2);
	place_fd(fds[2], MMWL_FD_TO_AGENT);
	place_fd(fds[3], MMWL_FD_FROM_AGENT);
	for (int fd = s->handshake ? 5 : 3; fd < 1024; fd++)
		close(fd);
	if (s->workdir && chdir(s->workdir))
		dprintf(2, "mmlab-agent: chdir %s: %s\n", s->workdir, strerror(errno));
	for (size_t i = 0; s->env && s->env[i]; i++)
		putenv(s->env[i]);
	if (s->search_path) {
		execvp(s->argv[0], s->argv);
		dprintf(2, "mmlab-agent: cannot run '%s': %s\n", s->argv[0], strerror(errno));
	} else {
		execv(s->argv[0], s->argv);
		dprintf(2, "mmlab-agent: exec %s: %s\n", s->argv[0], strerror(errno));
	}
	_exit(127);
}

int launch(const struct launch_spec *s, struct launched *w)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, ctl[2] = { -1, -1 }, go[2] = { -1, -1 };
	int theirs[4], e;

	w->out = w->err = w->ctl = w->go = -1;
	if (pipe2(out, O_CLOEXEC) || (s->capture_stderr && pipe2(err, O_CLOEXEC)) ||
	    (s->handshake && (pipe2(ctl, O_CLOEXEC) || pipe2(go, O_CLOEXEC))))
		goto fail;
	w->pid = fork();
	if (w->pid == 0) {
		theirs[0] = out[1], theirs[1] = err[1], theirs[2] = ctl[1], theirs[3] = go[0];
		child(s, theirs);
	}
	close_fd(&out[1]);
	close_fd(&err[1]);
	close_fd(&ctl[1]);
	close_fd(&go[0]);
	if (w->pid < 0)
		goto fail;
	w->out = out[0];
	w->err = err[0];
	w->ctl = ctl[0];
	w->go = go[1];
	return 0;
fail:
	e = errno;
	for (int i = 0; i < 2; i++) {
		close_fd(&out[i]);
		close_fd(&err[i]);
		close_fd(&ctl[i]);
		close_fd(&go[i]);
	}
	errno = e;
	return -1;
}

int launch_ctl_byte(int *ctl, char *line, size_t size, size_t *len)
{
	char c;
	ssize_t n = read(*ctl, &c, 1);

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			close_fd(ctl);
		return -1;
	}
	if (c == '\n') {
		line[*len] = '\0';
		*len = 0;
		return 1;
	}
	if (*len < size - 1)
		line[(*len)++] = c;
	return 0;
}

int launch_send_go(int go)
{
	return write(go, "go\n", 3) == 3 ? 0 : -1;
}

double launch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
