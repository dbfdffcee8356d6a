/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl.h - the workload side of the agent handshake (common/proto.h).
 *
 *	int main(int argc, char **argv)
 *	{
 *		if (wl_init(argc, argv) < 0)
 *			return 2;
 *		... unmeasured setup ...
 *		if (wl_ready_and_wait() < 0)
 *			return 1;
 *		... measured phase ...
 *		if (wl_done_and_wait() < 0)
 *			return 1;
 *		... cleanup ...
 *		wl_metric("elapsed_s", t);
 *		return 0;
 *	}
 *
 * Without fd 3 open (run by hand) the workload runs standalone: the waits
 * return at once and the "done" line goes to stderr.
 */
#ifndef MMLAB_WL_H
#define MMLAB_WL_H

#include <stdbool.h>
#include <stdint.h>

#define WL_MAX_PARAMS 64

/* parse --name=value arguments; -1 (message on stderr) on a bad one */
int wl_init(int argc, char **argv);
/* value of --name=..., or NULL */
const char *wl_param(const char *name);
/* unsigned decimal parameter, def when absent; -1 (message) if malformed */
int wl_param_u64(const char *name, uint64_t def, uint64_t *out);
bool wl_standalone(void);

/* "ready", wait for "go"; starts the measured-phase clocks */
int wl_ready_and_wait(void);
/* "done user_s=.. system_s=.. elapsed_s=..", wait for "go" */
int wl_done_and_wait(void);
/* "name value" on stdout; name without the workload prefix */
void wl_metric(const char *name, double value);

/* CPU times of the whole process (all threads) and the monotonic clock */
double wl_now(void);
void wl_cpu_times(double *user_s, double *system_s);

#endif
