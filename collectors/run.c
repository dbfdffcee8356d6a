// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - run one iteration of a built-in workload, started by launch.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "collect.h"
#include "launch.h"
#include "proto.h"
#include "run.h"
#include "snapshot.h"

#define ARGV_MAX (PLAN_MAX_KV + 2)
#define LINE_MAX_LEN 256

/* the agent's view of the running workload */
struct wl_proc {
	pid_t pid;
	int ctl; /* read end: the workload's fd 3 */
	int go; /* write end: the workload's fd 4 */
	int out; /* read end: its stdout */
	char line[LINE_MAX_LEN];
	size_t line_len;
	char *stdout_buf;
	size_t stdout_len;
	int stdout_cut;
};

/* WL_DIR/<workload> --<param>=<value>... with fds 3 and 4 */
static int spawn(const struct plan *p, struct wl_proc *w)
{
	static char args[PLAN_MAX_KV][PLAN_NAME_MAX + PLAN_VALUE_MAX + 4];
	static char path[PLAN_NAME_MAX + 32];
	char *argv[ARGV_MAX];
	struct launch_spec s = { .argv = argv, .handshake = 1 };
	struct launched l = { .pid = w->pid };
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), WL_DIR "/%s", p->workload);
	argv[0] = path;
	for (i = 0; i < p->nparams; i++) {
		snprintf(args[i], sizeof(args[i]), "--%s=%s", p->params[i].name,
			 p->params[i].value);
		argv[i + 1] = args[i];
	}
	argv[i + 1] = NULL;
	ret = launch(&s, &l);
	w->pid = l.pid;
	w->ctl = l.ctl;
	w->go = l.go;
	w->out = l.out;
	return ret;
}

static void drain_stdout(struct wl_proc *w)
{
	char buf[4096];
	ssize_t n = read(w->out, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || errno != EINTR) {
			close(w->out);
			w->out = -1;
		}
		return;
	}
	if (w->stdout_len + (size_t)n > WL_STDOUT_CAP) {
		w->stdout_cut = 1;
		n = (ssize_t)(WL_STDOUT_CAP - w->stdout_len);
	}
	memcpy(w->stdout_buf + w->stdout_len, buf, (size_t)n);
	w->stdout_len += (size_t)n;
}

/* take one byte of the control pipe; 1 when a full line is in w->line */
static int ctl_byte(struct wl_proc *w)
{
	return launch_ctl_byte(&w->ctl, w->line, sizeof(w->line), &w->line_len) > 0;
}

/*
 * Wait for the next control line while collecting stdout (so a chatty
 * workload cannot block on a full pipe). 0 with the line in w->line, -1
 * at the end of the control pipe.
 */
static int next_line(struct wl_proc *w)
{
	while (w->ctl >= 0) {
		struct pollfd pfd[2] = {
			{ .fd = w->ctl, .events = POLLIN },
			{ .fd = w->out, .events = POLLIN },
		};

		if (poll(pfd, w->out >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w->out >= 0 && pfd[1].revents)
			drain_stdout(w);
		if (pfd[0].revents && ctl_byte(w))
			return 0;
	}
	return -1;
}

static int send_go(struct wl_proc *w)
{
	return launch_send_go(w->go);
}

struct wl_times {
	int have;
	double user_s, system_s, elapsed_s;
};

static void parse_done(const char *line, struct wl_times *t)
{
	size_t len = strlen(line);
	char v[64];

	t->have = !mmrec_hdr_get(line, (uint32_t)len, "user_s", v, sizeof(v)) &&
		  sscanf(v, "%lf", &t->user_s) == 1 &&
		  !mmrec_hdr_get(line, (uint32_t)len, "system_s", v, sizeof(v)) &&
		  sscanf(v, "%lf", &t->system_s) == 1 &&
		  !mmrec_hdr_get(line, (uint32_t)len, "elapsed_s", v, sizeof(v)) &&
		  sscanf(v, "%lf", &t->elapsed_s) == 1;
}

/* ready -> before snapshots -> go -> done -> after snapshots -> go */
static int handshake(struct wl_proc *w, unsigned int iter, const int *nodes, int nnodes,
		     struct wl_times *t)
{
	if (next_line(w) < 0) {
		agent_log("error", "iteration %u: workload exited before \"ready\"", iter);
		return -1;
	}
	if (strcmp(w->line, "ready")) {
		agent_log("error",
			  "iteration %u: expected \"ready\" from the workload, got \"%.64s\"", iter,
			  w->line);
		return -1;
	}
	snapshot_phase(iter, "before", nodes, nnodes);
	collect_begin(iter);
	if (send_go(w) < 0 || next_line(w) < 0) {
		collect_end(iter); /* stops the sampler */
		agent_log("error", "iteration %u: workload exited before \"done\"", iter);
		return -1;
	}
	collect_end(iter);
	if (strncmp(w->line, "done", 4) || (w->line[4] && w->line[4] != ' ')) {
		agent_log("error",
			  "iteration %u: expected \"done\" from the workload, got \"%.64s\"", iter,
			  w->line);
		return -1;
	}
	parse_done(w->line, t);
	snapshot_phase(iter, "after", nodes, nnodes);
	if (send_go(w) < 0) {
		agent_log("error", "iteration %u: workload exited after \"done\"", iter);
		return -1;
	}
	return 0;
}

/* collect the rest of stdout, reap the workload; returns its wait status */
static int finish(struct wl_proc *w, struct rusage *ru)
{
	int status = 0;

	if (w->ctl >= 0)
		close(w->ctl);
	if (w->go >= 0)
		close(w->go);
	w->ctl = w->go = -1;
	while (w->out >= 0)
		drain_stdout(w);
	while (wait4(w->pid, &status, 0, ru) < 0 && errno == EINTR)
		;
	return status;
}

static int report(unsigned int iter, struct wl_proc *w, int status, const struct rusage *ru,
		  struct wl_times *t, double wall)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (w->stdout_cut)
		agent_log("warn", "iteration %u: workload output cut at %u bytes", iter,
			  WL_STDOUT_CAP);
	chan_sendf(MMREC_WL_OUTPUT, w->stdout_buf, w->stdout_len, "iter=%u", iter);
	if (!t->have) {
		t->user_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
		t->system_s = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
		t->elapsed_s = wall;
	}
	chan_sendf(
		MMREC_RESULT, NULL, 0,
		"iter=%u exit=%d signal=%d user_s=%.6f system_s=%.6f elapsed_s=%.6f maxrss_kb=%ld minflt=%ld majflt=%ld",
		iter, code, sig, t->user_s, t->system_s, t->elapsed_s, ru->ru_maxrss, ru->ru_minflt,
		ru->ru_majflt);
	if (sig)
		agent_log("error", "iteration %u: workload killed by signal %d", iter, sig);
	else if (code)
		agent_log("error", "iteration %u: workload exited with status %d", iter, code);
	return code || sig ? -1 : 0;
}

int run_iteration(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		  int setup_failed)
{
	struct wl_proc w = { .ctl = -1, .go = -1, .out = -1 };
	struct wl_times t = { 0 };
	struct rusage ru = { 0 };
	double start;
	int ok, status;

	chan_sendf(MMREC_ITER_BEGIN, NULL, 0, "iter=%u", iter);
	{
		/* the workload may vary by iteration (crash --probability --seed) */
		char it[16];

		snprintf(it, sizeof(it), "%u", iter);
		setenv("MMLAB_ITERATION", it, 1);
	}
	w.stdout_buf = malloc(WL_STDOUT_CAP);
	start = launch_now();
	if (!w.stdout_buf || spawn(p, &w) < 0) {
		agent_log("error", "iteration %u: cannot start workload %s: %s", iter, p->workload,
			  strerror(errno));
		free(w.stdout_buf);
		chan_sendf(MMREC_ITER_END, NULL, 0, "iter=%u status=failed", iter);
		return -1;
	}
	ok = handshake(&w, iter, nodes, nnodes, &t) == 0;
	if (!ok) /* a broken handshake must not leave us waiting */
		kill(w.pid, SIGKILL);
	status = finish(&w, &ru);
	ok &= report(iter, &w, status, &ru, &t, launch_now() - start) == 0;
	ok &= !setup_failed;
	free(w.stdout_buf);
	chan_sendf(MMREC_ITER_END, NULL, 0, "iter=%u status=%s", iter, ok ? "ok" : "failed");
	return ok ? 0 : -1;
}
