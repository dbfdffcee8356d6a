// SPDX-License-Identifier: GPL-2.0
/*
 * wl.c - argument lookup and the ready/go/done handshake for workloads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "wl.h"

static struct {
	const char *name;
	size_t name_len;
	const char *value;
} params[WL_MAX_PARAMS];
static int nparams;
static bool standalone;
static const char *prog = "workload";
static double t0, user0, sys0;

int wl_init(int argc, char **argv)
{
	if (argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash ? slash + 1 : argv[0];
	}
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (strncmp(argv[i], "--", 2) || !eq || eq == argv[i] + 2 ||
		    nparams == WL_MAX_PARAMS) {
			fprintf(stderr, "%s: bad argument \"%s\": expected --name=value\n", prog,
				argv[i]);
			return -1;
		}
		params[nparams].name = argv[i] + 2;
		params[nparams].name_len = (size_t)(eq - argv[i] - 2);
		params[nparams].value = eq + 1;
		nparams++;
	}
	standalone = fcntl(MMWL_FD_TO_AGENT, F_GETFD) < 0 || fcntl(MMWL_FD_FROM_AGENT, F_GETFD) < 0;
	return 0;
}

const char *wl_param(const char *name)
{
	size_t len = strlen(name);

	/* the last occurrence wins, as on most command lines */
	for (int i = nparams - 1; i >= 0; i--)
		if (params[i].name_len == len && !memcmp(params[i].name, name, len))
			return params[i].value;
	return NULL;
}

int wl_param_u64(const char *name, uint64_t def, uint64_t *out)
{
	const char *v = wl_param(name);
	char *end;
	unsigned long long x;

	if (!v) {
		*out = def;
		return 0;
	}
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno) {
		fprintf(stderr, "%s: --%s=%s: expected an unsigned integer\n", prog, name, v);
		return -1;
	}
	*out = x;
	return 0;
}

bool wl_standalone(void)
{
	return standalone;
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void wl_cpu_times(double *user_s, double *system_s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*system_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int send_line(const char *line)
{
	size_t len = strlen(line);

	while (len) {
		ssize_t n = write(MMWL_FD_TO_AGENT, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: writing to the agent: %s\n", prog, strerror(errno));
			return -1;
		}
		line += n;
		len -= (size_t)n;
	}
	return 0;
}

static int wait_go(void)
{
	char buf[8];
	size_t n = 0;

	while (n < sizeof(buf)) {
		ssize_t r = read(MMWL_FD_FROM_AGENT, buf + n, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (buf[n++] == '\n')
			return n == 3 && !memcmp(buf, "go\n", 3) ? 0 : -1;
	}
	fprintf(stderr, "%s: the agent did not say \"go\"\n", prog);
	return -1;
}

int wl_ready_and_wait(void)
{
	if (!standalone && (send_line("ready\n") < 0 || wait_go() < 0))
		return -1;
	wl_cpu_times(&user0, &sys0);
	t0 = wl_now();
	return 0;
}

int wl_done_and_wait(void)
{
	double t1 = wl_now(), user1, sys1;
	char line[160];

	wl_cpu_times(&user1, &sys1);
	snprintf(line, sizeof(line), "done user_s=%.6f system_s=%.6f elapsed_s=%.6f\n",
		 user1 - user0, sys1 - sys0, t1 - t0);
	if (standalone) {
		fprintf(stderr, "%s: %s", prog, line);
		return 0;
	}
	if (send_line(line) < 0 || wait_go() < 0)
		return -1;
	return 0;
}

void wl_metric(const char *name, double value)
{
	printf("%s %.6f\n", name, value);
	fflush(stdout);
}
