// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - one iteration of a command workload: the user's program (or
 * kernel module) run as the plan's own.* keys say (common/proto.h).
 *
 * launch.c starts it, as it starts a built-in: the program runs in
 * OWN_WORKDIR in a session of its own (setsid), with stdin /dev/null and
 * stdout/stderr captured, bounded (capture.h). Phase
 * "whole": the snapshots bracket the process from fork to exit. Phase
 * "handshake": the ready/go/done protocol of the built-ins on fds 3 and 4.
 * At the timeout, and after every iteration, its process group is killed
 * and, as PID 1, every other process too (kill(-1)): a program that forks
 * away, even into a session of its own, cannot outlive its iteration.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "channel.h"
#include "collect.h"
#include "launch.h"
#include "own.h"
#include "proto.h"
#include "snapshot.h"
#include "sysfs.h"

#define CTL_LINE_MAX 256
#define OWN_PATH "PATH=" OWN_WORKDIR ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define KILL_WAIT_S 10.0 /* a SIGKILLed process should be gone by then */
#define DRAIN_S 2.0 /* reading what is left in the pipes after the end */

enum ev { EV_LINE, EV_EXIT, EV_TIMEOUT, EV_CTL_EOF };

struct own_proc {
	pid_t pid;
	int pidfd; /* -1: polled with waitpid every 20 ms */
	int out, err, ctl, go;
	struct capture cout, cerr;
	char line[CTL_LINE_MAX];
	size_t llen;
	int have_line;
	int exited, status, timed_out;
	struct rusage ru;
	double t_exit;
};

struct own_times {
	double user_s, system_s, elapsed_s;
};

static void workdir_path(char *buf, size_t len, const char *p)
{
	if (p[0] == '/')
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, OWN_WORKDIR "/%s", p);
}

/* ---- starting it ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* fork the program; -1 with errno when it could not start */
static int spawn(const struct plan *p, struct own_proc *w)
{
	static char *argv[PLAN_MAX_ARGS + 1];
	static char *const env[] = { OWN_PATH, "HOME=/root", "MMLAB_WORKDIR=" OWN_WORKDIR, NULL };
	struct launch_spec s = { .argv = argv,
				 .search_path = 1,
				 .new_session = 1,
				 .workdir = OWN_WORKDIR,
				 .env = env,
				 .capture_stderr = 1,
				 .handshake = p->own_handshake };
	struct launched l = { .pid = w->pid };
	int ret;

	for (unsigned int i = 0; i < p->own_argc; i++)
		argv[i] = (char *)p->own_argv[i];
	argv[p->own_argc] = NULL;
	ret = launch(&s, &l);
	w->pid = l.pid;
	w->out = l.out;
	w->err = l.err;
	w->ctl = l.ctl;
	w->go = l.go;
	if (ret)
		return -1;
#ifdef SYS_pidfd_open
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
#endif
	return 0;
}

/* ---- watching it ---- */

static void drain(int *fd, struct capture *c)
{
	static char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0)
		capture_add(c, buf, (size_t)n);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		close_fd(fd);
}

/* one byte of the control pipe, setting have_line at a newline; -1: none now */
static int ctl_byte(struct own_proc *w)
{
	int r = launch_ctl_byte(&w->ctl, w->line, sizeof(w->line), &w->llen);

	if (r > 0)
		w->have_line = 1;
	return r < 0 ? -1 : 0;
}

static void try_reap(struct own_proc *w, int want_line)
{
	if (w->exited || wait4(w->pid, &w->status, WNOHANG, &w->ru) != w->pid)
		return;
	w->exited = 1;
	w->t_exit = launch_now();
	/* a line written just before the exit is still in the pipe */
	if (want_line && w->ctl >= 0 && !fcntl(w->ctl, F_SETFL, O_NONBLOCK))
		while (!w->have_line && !ctl_byte(w))
			;
}

/* poll until a control line (want_line), the program's exit or deadline (0: none) */
static enum ev pump(struct own_proc *w, double deadline, int want_line)
{
	for (;;) {
		struct pollfd pfd[4];
		int n = 0, ms, io[4];
		double left = deadline ? deadline - launch_now() : 1.0;

		if (want_line && w->have_line) {
			w->have_line = 0;
			return EV_LINE;
		}
		if (w->exited)
			return EV_EXIT;
		if (want_line && w->ctl < 0)
			return EV_CTL_EOF;
		if (left <= 0)
			return EV_TIMEOUT;
		ms = w->pidfd >= 0 ? (left < 1.0 ? (int)(left * 1000) + 1 : 1000) : 20;
		if (w->out >= 0)
			io[n] = 0, pfd[n++] = (struct pollfd){ .fd = w->out, .events = POLLIN };
		if (w->err >= 0)
			io[n] = 1, pfd[n++] = (struct pollfd){ .fd = w->err, .events = POLLIN };
		if (want_line && w->ctl >= 0)
			io[n] = 2, pfd[n++] = (struct pollfd){ .fd = w->ctl, .events = POLLIN };
		if (w->pidfd >= 0)
			io[n] = 3, pfd[n++] = (struct pollfd){ .fd = w->pidfd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, ms) < 0 && errno != EINTR)
			return EV_CTL_EOF;
		for (int i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (io[i] == 0)
				drain(&w->out, &w->cout);
			else if (io[i] == 1)
				drain(&w->err, &w->cerr);
			else if (io[i] == 2)
				ctl_byte(w);
		}
		if (!want_line || !w->have_line)
			try_reap(w, want_line);
	}
}

/* kill the program's process group and, as PID 1, every process; reap them */
static void kill_all(struct own_proc *w, unsigned int iter)
{
	double until = launch_now() + KILL_WAIT_S;
	int others = 0;
	pid_t r;

	kill(-w->pid, SIGKILL);
	kill(w->pid, SIGKILL);
	if (getpid() == 1)
		kill(-1, SIGKILL);
	while (launch_now() < until) {
		if (!w->exited) {
			try_reap(w, 0);
		} else {
			r = waitpid(-1, NULL, WNOHANG);
			if (r < 0)
				break; /* ECHILD: nothing left */
			others += r > 0;
			if (r > 0)
				continue;
		}
		usleep(10000);
	}
	if (others)
		agent_log("warn", "iteration %u: killed %d process(es) the workload left behind",
			  iter, others);
}

/* what is left in the pipes once every writer is gone (bounded) */
static void drain_rest(struct own_proc *w)
{
	double until = launch_now() + DRAIN_S;

	close_fd(&w->ctl);
	close_fd(&w->go);
	while ((w->out >= 0 || w->err >= 0) && launch_now() < until) {
		struct pollfd pfd[2] = { { .fd = w->out, .events = POLLIN },
					 { .fd = w->err, .events = POLLIN } };

		if (poll(pfd, 2, 100) <= 0)
			continue;
		if (w->out >= 0 && pfd[0].revents)
			drain(&w->out, &w->cout);
		if (w->err >= 0 && pfd[1].revents)
			drain(&w->err, &w->cerr);
	}
	close_fd(&w->out);
	close_fd(&w->err);
	close_fd(&w->pidfd);
}

static void timed_out(struct own_proc *w, const struct plan *p, unsigned int iter)
{
	w->timed_out = 1;
	agent_log("error", "iteration %u: the workload ran past its timeout of %u s; killed", iter,
		  p->own_timeout_s);
	kill(-w->pid, SIGKILL);
	kill(w->pid, SIGKILL);
	pump(w, launch_now() + KILL_WAIT_S, 0);
}

/* ---- the phases ---- */

static void times_of(const struct own_proc *w, double elapsed, struct own_times *t)
{
	t->user_s = (double)w->ru.ru_utime.tv_sec + (double)w->ru.ru_utime.tv_usec / 1e6;
	t->system_s = (double)w->ru.ru_stime.tv_sec + (double)w->ru.ru_stime.tv_usec / 1e6;
	t->elapsed_s = elapsed;
}

static double deadline_of(const struct plan *p, double t0)
{
	return p->own_timeout_s ? t0 + p->own_timeout_s : 0;
}

/* phase whole: the snapshots bracket the process; 0 ok, -1 failed */
static int run_whole(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		     struct own_proc *w, struct own_times *t)
{
	double t0;

	snapshot_phase(iter, "before", nodes, nnodes);
	collect_begin(iter);
	t0 = launch_now();
	if (spawn(p, w) < 0) {
		collect_end(iter);
		return -1;
	}
	if (pump(w, deadline_of(p, t0), 0) == EV_TIMEOUT)
		timed_out(w, p, iter);
	times_of(w, (w->exited ? w->t_exit : launch_now()) - t0, t);
	collect_end(iter);
	snapshot_phase(iter, "after", nodes, nnodes);
	return 0;
}

/* utime and stime (with children waited for) of a process, in ticks */
static int proc_ticks(pid_t pid, unsigned long long *user, unsigned long long *sys)
{
	char path[64], *text, *rp;
	unsigned long long ut, st, cut, cst;
	size_t len;
	int cut_;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	text = read_capped(path, 4096, &len, &cut_);
	rp = text ? strrchr(text, ')') : NULL;
	if (!rp || sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			  &ut, &st, &cut, &cst) != 4) {
		free(text);
		return -1;
	}
	*user = ut + cut;
	*sys = st + cst;
	free(text);
	return 0;
}

/* "ready" or "done..." from the program; -1 after a message otherwise */
static int expect_line(struct own_proc *w, const struct plan *p, unsigned int iter, double deadline,
		       const char *want)
{
	enum ev e = pump(w, deadline, 1);
	size_t wl = strlen(want);

	if (e == EV_LINE && !strncmp(w->line, want, wl) && (!w->line[wl] || w->line[wl] == ' '))
		return 0;
	if (e == EV_TIMEOUT)
		timed_out(w, p, iter);
	else if (e == EV_LINE)
		agent_log("error", "iteration %u: expected \"%s\" on fd 3, got \"%.64s\"", iter,
			  want, w->line);
	else
		agent_log("error", "iteration %u: the workload %s before \"%s\" on fd 3", iter,
			  w->exited ? "exited" : "closed fd 3", want);
	return -1;
}

static int send_go(struct own_proc *w)
{
	return launch_send_go(w->go);
}

/* the measured phase between go and done, from the done line or as seen */
static void handshake_times(struct own_proc *w, double tg, double td, unsigned long long u[2],
			    unsigned long long s[2], struct own_times *t)
{
	long hz = sysconf(_SC_CLK_TCK);
	double v[3];

	if (sscanf(w->line, "done user_s=%lf system_s=%lf elapsed_s=%lf", &v[0], &v[1], &v[2]) ==
	    3) {
		t->user_s = v[0], t->system_s = v[1], t->elapsed_s = v[2];
		return;
	}
	t->elapsed_s = td - tg;
	t->user_s = (double)(u[1] - u[0]) / (double)(hz > 0 ? hz : 100);
	t->system_s = (double)(s[1] - s[0]) / (double)(hz > 0 ? hz : 100);
}

static int run_handshake(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
			 struct own_proc *w, struct own_times *t)
{
	unsigned long long u[2] = { 0 }, s[2] = { 0 };
	double dl = deadline_of(p, launch_now()), tg, td;

	if (spawn(p, w) < 0)
		return -1;
	if (expect_line(w, p, iter, dl, "ready"))
		return -1;
	snapshot_phase(iter, "before", nodes, nnodes);
	collect_begin(iter);
	proc_ticks(w->pid, &u[0], &s[0]);
	tg = launch_now();
	if (send_go(w) || expect_line(w, p, iter, dl, "done")) {
		collect_end(iter);
		return -1;
	}
	td = launch_now();
	proc_ticks(w->pid, &u[1], &s[1]);
	collect_end(iter);
	handshake_times(w, tg, td, u, s, t);
	snapshot_phase(iter, "after", nodes, nnodes);
	if (send_go(w))
		agent_log("warn", "iteration %u: the workload closed fd 4 after \"done\"", iter);
	if (pump(w, dl, 0) == EV_TIMEOUT)
		timed_out(w, p, iter);
	return 0;
}

/* ---- the module ---- */

static int module_load(const struct plan *p, struct capture *err)
{
	char path[PLAN_NAME_MAX + 32], msg[512];
	int fd, rc = -1;

	snprintf(path, sizeof(path), "/mmlab/modules/%s.ko", p->own_module);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		rc = (int)syscall(SYS_finit_module, fd, p->own_module_params, 0);
		close(fd);
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "mmlab-agent: loading %s (%.200s): %s\n", path,
			 p->own_module_params, strerror(errno));
		capture_add(err, msg, strlen(msg));
	}
	return rc;
}

static void module_unload(const struct plan *p, unsigned int iter)
{
	if (syscall(SYS_delete_module, p->own_module, O_NONBLOCK) && errno != ENOENT)
		agent_log("warn", "iteration %u: removing module %s: %s", iter, p->own_module,
			  strerror(errno));
}

/* a module alone: loading it is the measured phase */
static int run_module(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		      struct own_proc *w, struct own_times *t)
{
	struct rusage r0, r1;
	double t0;
	int rc;

	snapshot_phase(iter, "before", nodes, nnodes);
	collect_begin(iter);
	getrusage(RUSAGE_THREAD, &r0);
	t0 = launch_now();
	rc = module_load(p, &w->cerr);
	t->elapsed_s = launch_now() - t0;
	getrusage(RUSAGE_THREAD, &r1);
	collect_end(iter);
	snapshot_phase(iter, "after", nodes, nnodes);
	t->user_s = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
		    (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e6;
	t->system_s = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		      (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
	w->exited = 1;
	w->status = rc ? 1 << 8 : 0; /* "exit status 1" */
	w->ru = r1;
	return 0;
}

/* ---- one iteration ---- */

static void prepare(const struct plan *p)
{
	char path[PLAN_PATH_MAX + 32];

	mkdir("/mmlab", 0755);
	mkdir(OWN_WORKDIR, 0755);
	/* a file of the last iteration must not pass for this one's */
	for (unsigned int i = 0; i < p->own_nread; i++) {
		if (p->own_read[i][0] == '/')
			continue;
		workdir_path(path, sizeof(path), p->own_read[i]);
		unlink(path);
	}
}

/* what the iteration leaves for the host: outputs, files, RESULT */
static void report(const struct plan *p, unsigned int iter, struct own_proc *w,
		   const struct own_times *t, int kfd)
{
	int code = w->exited && WIFEXITED(w->status) ? WEXITSTATUS(w->status) : -1;
	int sig = w->exited && WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
	char path[PLAN_PATH_MAX + 32];
	struct capture km;

	capture_send(&w->cout, iter, "stdout");
	capture_send(&w->cerr, iter, "stderr");
	if (p->own_dmesg && !capture_init(&km)) {
		kmsg_read(kfd, &km);
		capture_send(&km, iter, "dmesg");
		capture_free(&km);
	}
	for (unsigned int i = 0; i < p->own_nread; i++) {
		workdir_path(path, sizeof(path), p->own_read[i]);
		capture_send_file(iter, i, path);
	}
	chan_sendf(
		MMREC_RESULT, NULL, 0,
		"iter=%u exit=%d signal=%d user_s=%.6f system_s=%.6f elapsed_s=%.6f maxrss_kb=%ld minflt=%ld majflt=%ld timed_out=%d",
		iter, code, sig, t->user_s, t->system_s, t->elapsed_s, w->ru.ru_maxrss,
		w->ru.ru_minflt, w->ru.ru_majflt, w->timed_out);
	if (sig)
		agent_log("error", "iteration %u: workload killed by signal %d", iter, sig);
	else if (code)
		agent_log("error", "iteration %u: workload exited with status %d", iter, code);
}

static int measure(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		   struct own_proc *w, struct own_times *t)
{
	if (!p->own_argc)
		return run_module(p, iter, nodes, nnodes, w, t);
	if (p->own_module[0] && module_load(p, &w->cerr)) {
		agent_log("error", "iteration %u: the module %s did not load", iter, p->own_module);
		return -1;
	}
	if ((p->own_handshake ? run_handshake : run_whole)(p, iter, nodes, nnodes, w, t) == 0)
		return 0;
	if (w->pid < 0 || (!w->pid && !w->exited))
		agent_log("error", "iteration %u: cannot start %s: %s", iter, p->own_argv[0],
			  strerror(errno));
	return -1;
}

int own_run_iteration(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		      int setup_failed)
{
	struct own_proc w = { .pid = 0, .pidfd = -1, .out = -1, .err = -1, .ctl = -1, .go = -1 };
	struct own_times t = { 0 };
	char it[16];
	int ok, kfd;

	chan_sendf(MMREC_ITER_BEGIN, NULL, 0, "iter=%u", iter);
	snprintf(it, sizeof(it), "%u", iter);
	setenv("MMLAB_ITERATION", it, 1);
	prepare(p);
	if (capture_init(&w.cout) || capture_init(&w.cerr)) {
		agent_log("error", "iteration %u: out of memory", iter);
		chan_sendf(MMREC_ITER_END, NULL, 0, "iter=%u status=failed", iter);
		return -1;
	}
	kfd = p->own_dmesg ? kmsg_open() : -1;
	ok = measure(p, iter, nodes, nnodes, &w, &t) == 0;
	if (w.pid > 0)
		kill_all(&w, iter);
	drain_rest(&w);
	report(p, iter, &w, &t, kfd);
	if (p->own_module[0])
		module_unload(p, iter);
	ok &= w.exited && WIFEXITED(w.status) && !WEXITSTATUS(w.status) && !w.timed_out &&
	      !setup_failed;
	capture_free(&w.cout);
	capture_free(&w.cerr);
	chan_sendf(MMREC_ITER_END, NULL, 0, "iter=%u status=%s", iter, ok ? "ok" : "failed");
	return ok ? 0 : -1;
}
