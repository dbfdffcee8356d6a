/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - progress of long work on a terminal: one status line
 * rewritten in place (step i/N, what, elapsed, ETA). In a pipe or with -q
 * only finished steps are printed, one line each, to stderr.
 */
#ifndef MMLAB_PROGRESS_H
#define MMLAB_PROGRESS_H

#include <stdbool.h>

struct progress {
	unsigned int total, done;
	double start, work_s; /* work_s: time spent on finished steps */
	bool tty;
	int width;
};

void progress_init(struct progress *p, unsigned int total);
/* the line for the step in progress, rewritten in place on a tty */
void progress_status(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* a step finished: a permanent line */
void progress_step_done(struct progress *p, double step_s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* clear the status line before other output */
void progress_clear(struct progress *p);
/* estimated seconds left, from the mean time of finished steps; < 0 unknown */
double progress_eta(const struct progress *p);

#endif
