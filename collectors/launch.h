/* SPDX-License-Identifier: GPL-2.0 */
/*
 * launch.h - the one way the agent starts a workload, a built-in (run.c)
 * or a command (own.c): its pipes, its fork, the child's file descriptors
 * (0 /dev/null, 1 and 2 captured, 3 and 4 the ready/go/done handshake of
 * common/proto.h) and its exec; and the handshake's two halves, a control
 * line read and "go" written.
 */
#ifndef MMLAB_COLLECTORS_LAUNCH_H
#define MMLAB_COLLECTORS_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct launch_spec {
	char *const *argv; /* NULL-terminated */
	/*
	 * 0: argv[0] is a path (execv), and a failure says "exec PATH";
	 * 1: a name looked up in PATH too (execvp), "cannot run 'NAME'"
	 */
	int search_path;
	/* a session of its own (setsid), every signal unblocked: a command's */
	int new_session;
	const char *workdir; /* chdir there first, or NULL */
	char *const *env; /* putenv'd in the child, NULL-terminated, or NULL */
	int capture_stderr; /* stderr into a pipe, else the agent's */
	int handshake; /* the control pipes on fds 3 and 4 */
};

/* the parent's side: the pipes' ends it reads (out, err, ctl) and writes (go), -1 if none */
struct launched {
	pid_t pid; /* untouched when no pipe could be made; -1 when fork failed */
	int out, err, ctl, go;
};

/*
 * Start s->argv. 0, or -1 with errno when it could not start (w's fds are
 * then closed and -1). The child exits 126 when its fds cannot be placed,
 * 127 when the exec fails (with a line on its stderr).
 */
int launch(const struct launch_spec *s, struct launched *w);

/*
 * One byte of the control pipe *ctl into line (size bytes, *len used; a
 * longer line is cut): 1 when it ended a line (line then NUL-terminated,
 * *len 0), 0 when it was another byte, -1 when none was read (*ctl closed
 * and -1 at its end or on an error other than EINTR and EAGAIN).
 */
int launch_ctl_byte(int *ctl, char *line, size_t size, size_t *len);

/* "go\n" on the workload's fd 4; 0, or -1 */
int launch_send_go(int go);

/* CLOCK_MONOTONIC, in seconds */
double launch_now(void);

#endif
