// SPDX-License-Identifier: GPL-2.0
/*
 * worker.c - forking batch workers (see worker.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch/worker.h"
#include "lib/util.h"

static volatile sig_atomic_t stop_flag;
static struct sigaction old_int, old_term;
static bool caught;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void worker_stop_catch(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	stop_flag = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, caught ? NULL : &old_int);
	sigaction(SIGTERM, &sa, caught ? NULL : &old_term);
	caught = true;
}

void worker_stop_release(void)
{
	if (!caught)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	caught = false;
}

bool worker_stop_requested(void)
{
	return stop_flag != 0;
}

int worker_exit_code(int wait_status)
{
	return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

static void redirect(const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		return; /* the output stays where it went */
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

static void __attribute__((noreturn)) child(const struct worker_spec *w, pid_t parent)
{
	struct store *s;
	struct queue *q = NULL;
	enum batch_result rc = BATCH_FAILED;

	/* die with the parent: our libvirt connection closes, and
	 * AUTODESTROY takes the domain with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(BATCH_INTERRUPTED);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (w->log)
		redirect(w->log);
	/* connections of our own: SQLite and libvirt must not cross fork */
	s = w->files_only ? store_open_files(w->results_dir) : store_open(w->results_dir);
	if (s && w->open_queue)
		q = queue_open(w->results_dir);
	if (s && (q || !w->open_queue))
		rc = w->fn(s, q, w->arg);
	queue_close(q);
	store_close(s);
	fflush(NULL);
	_exit(rc);
}

enum batch_result batch_result_of_run(int rc)
{
	switch (rc) {
	case 0:
		return BATCH_OK;
	case EXIT_USAGE:
		return BATCH_BAD_INPUT;
	case EXIT_INTERRUPTED:
		return BATCH_INTERRUPTED;
	default:
		return BATCH_FAILED;
	}
}

pid_t worker_start(const struct worker_spec *w, const char *what)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		lab_err("cannot fork %s: %s; the host is out of processes or memory", what,
			strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(w, parent);
	return pid;
}
