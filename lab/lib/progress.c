// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - a status line on a terminal, plain lines elsewhere.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/progress.h"
#include "lib/util.h"

void progress_init(struct progress *p, unsigned int total)
{
	struct winsize ws;

	memset(p, 0, sizeof(*p));
	p->total = total;
	p->start = now_monotonic();
	p->tty = !lab_quiet && isatty(STDERR_FILENO);
	p->width = 100;
	if (p->tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		p->width = ws.ws_col;
}

double progress_eta(const struct progress *p)
{
	if (!p->done || p->done >= p->total)
		return p->done >= p->total ? 0 : -1;
	return p->work_s / p->done * (p->total - p->done);
}

static void fmt_eta(const struct progress *p, char *buf, size_t len)
{
	double eta = progress_eta(p);

	if (eta < 0)
		snprintf(buf, len, "ETA ?");
	else if (eta >= 3600)
		snprintf(buf, len, "ETA %dh%02dm", (int)eta / 3600, (int)eta % 3600 / 60);
	else
		snprintf(buf, len, "ETA %dm%02ds", (int)eta / 60, (int)eta % 60);
}

void progress_status(struct progress *p, const char *fmt, ...)
{
	char msg[512], eta[32];
	va_list ap;

	if (!p->tty)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fmt_eta(p, eta, sizeof(eta));
	fprintf(stderr, "\r\033[K[%u/%u] %.*s  %s", p->done + 1, p->total,
		p->width > 40 ? p->width - 30 : 10, msg, eta);
	fflush(stderr);
}

void progress_clear(struct progress *p)
{
	if (p->tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

void progress_step_done(struct progress *p, double step_s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	p->done++;
	p->work_s += step_s;
	if (lab_quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	progress_clear(p);
	fprintf(stderr, "[%u/%u] %s (%.1f s)\n", p->done, p->total, msg, step_s);
}
