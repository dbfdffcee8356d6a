// SPDX-License-Identifier: GPL-2.0
/*
 * signals.c - SIGINT and SIGTERM during a run: the running domain is
 * destroyed (vm_request_stop()), no further boot starts, and the run is
 * left to resume.
 */
#include <signal.h>

#include "run/run.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
	vm_request_stop();
}

bool run_interrupted(void)
{
	return interrupted;
}

void run_interrupt_reset(void)
{
	interrupted = 0;
}

/* SIGINT and SIGTERM stop the running domain and leave the run to resume */
void run_signals_catch(struct run_signals *s)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
}

void run_signals_restore(const struct run_signals *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
}
