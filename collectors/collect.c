// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - optional collectors around the measured phase (collect.h).
 *
 * Tracepoints are counted with hist triggers: "hist:keys=common_cpu" on
 * each event keeps one in-kernel counter per CPU, so the totals are exact
 * and nothing is streamed. Each event's hit count is read just before "go"
 * and just after "done"; the metric is the difference.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "collect.h"
#include "proto.h"
#include "sysfs.h"

#define MAX_KTHREADS 256
#define EXTFRAG_ORDER 9 /* the THP order on x86-64 */

struct event {
	char name[520]; /* "system:event" */
	unsigned long long before;
};

struct kthread {
	int pid;
	char comm[32];
	unsigned long long ticks;
};

/* the fields of the 1 Hz series (a fixed set: the plots mm people look at) */
static const char *const series_fields[] = {
	"nr_free_pages",	"nr_anon_pages",
	"nr_file_pages",	"nr_anon_transparent_hugepages",
	"compact_stall",	"compact_migrate_scanned",
	"compact_free_scanned", "compact_success",
	"compact_fail",		"pgmigrate_success",
	"numa_hint_faults",	"numa_pages_migrated",
	"thp_fault_alloc",	"thp_fault_fallback",
	"pgscan_kswapd",	"pgscan_direct",
};
#define NFIELDS (sizeof(series_fields) / sizeof(series_fields[0]))

static struct {
	int enabled;
	struct event *events;
	unsigned int nevents;
	const int *nodes;
	int nnodes;
	struct kthread kt[MAX_KTHREADS];
	unsigned int nkt;
	int kmsg;
	char *extfrag_before[2];
	/* sampler */
	pthread_t tid;
	int running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	double *samples; /* nsamples rows of nseries values */
	unsigned int nsamples, nseries;
} cs = {
	.kmsg = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* append to buf (cap bytes, NUL-terminated); output past cap is cut */
static void bputf(char *buf, size_t cap, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bputf(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, cap - *used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*used += (size_t)n;
	if (*used >= cap)
		*used = cap - 1;
}

/* ---- tracepoints ---- */

unsigned long long collect_hist_hits(const char *text, unsigned long long *dropped)
{
	unsigned long long sum = 0;
	const char *p = text, *d;

	while ((p = strstr(p, "hitcount:"))) {
		p += 9;
		sum += strtoull(p, NULL, 10);
	}
	d = strstr(text, "Dropped:");
	*dropped = d ? strtoull(d + 8, NULL, 10) : 0;
	return sum;
}

static int add_event(const char *sys, const char *ev)
{
	struct event *e;

	for (unsigned int i = 0; i < cs.nevents; i++)
		if (!strncmp(cs.events[i].name, sys, strlen(sys)) &&
		    cs.events[i].name[strlen(sys)] == ':' &&
		    !strcmp(cs.events[i].name + strlen(sys) + 1, ev))
			return 0; /* matched by an earlier pattern */
	if (cs.nevents == COLLECT_MAX_EVENTS)
		return -1;
	e = &cs.events[cs.nevents++];
	snprintf(e->name, sizeof(e->name), "%s:%s", sys, ev);
	return 0;
}

/* events matching one "sys:event" glob; the count, or -1 (too many) */
static int match_pattern(const char *pat)
{
	char sysglob[128], path[512];
	const char *colon = strchr(pat, ':');
	DIR *sd, *ed;
	struct dirent *s, *e;
	int n = 0;

	if (!colon || (size_t)(colon - pat) >= sizeof(sysglob) || !colon[1])
		return 0;
	memcpy(sysglob, pat, (size_t)(colon - pat));
	sysglob[colon - pat] = '\0';
	sd = opendir(TRACEFS "/events");
	if (!sd)
		return 0;
	while ((s = readdir(sd))) {
		if (s->d_name[0] == '.' || fnmatch(sysglob, s->d_name, 0))
			continue;
		if (snprintf(path, sizeof(path), TRACEFS "/events/%s", s->d_name) >=
		    (int)sizeof(path))
			continue;
		ed = opendir(path);
		if (!ed)
			continue;
		while ((e = readdir(ed))) {
			char trig[768];

			if (e->d_name[0] == '.' || fnmatch(colon + 1, e->d_name, 0))
				continue;
			if (snprintf(trig, sizeof(trig), "%s/%s/trigger", path, e->d_name) >=
				    (int)sizeof(trig) ||
			    access(trig, W_OK))
				continue; /* "enable", "filter": not events */
			if (add_event(s->d_name, e->d_name) < 0) {
				closedir(ed);
				closedir(sd);
				return -1;
			}
			n++;
		}
		closedir(ed);
	}
	closedir(sd);
	return n;
}

static void event_path(const struct event *e, const char *file, char *out, size_t len)
{
	const char *colon = strchr(e->name, ':');

	if (snprintf(out, len, TRACEFS "/events/%.*s/%s/%s", (int)(colon - e->name), e->name,
		     colon + 1, file) >= (int)len)
		out[0] = '\0';
}

/* attach a counting hist trigger; the key spelling differs across kernels */
static int attach(const struct event *e)
{
	static const char *const triggers[] = {
		"hist:keys=common_cpu",
		"hist:keys=cpu",
		"hist:keys=common_pid",
	};
	char path[1100];
	int ret = -EINVAL;

	event_path(e, "trigger", path, sizeof(path));
	for (size_t i = 0; i < sizeof(triggers) / sizeof(triggers[0]); i++) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return -errno;
		n = write(fd, triggers[i], strlen(triggers[i]));
		ret = n < 0 ? -errno : 0;
		close(fd);
		if (!ret)
			return 0;
	}
	return ret;
}

static unsigned long long event_hits(const struct event *e)
{
	char path[1100];
	size_t len;
	int cut;
	unsigned long long hits, dropped;
	char *text;

	event_path(e, "hist", path, sizeof(path));
	text = read_capped(path, 4u << 20, &len, &cut);
	if (!text)
		return 0;
	hits = collect_hist_hits(text, &dropped);
	if (dropped)
		agent_log("warn", "tracepoint %s: %llu hist entries dropped; the count is low",
			  e->name, dropped);
	free(text);
	return hits;
}

static void setup_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void setup_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	chan_sendf(MMREC_SETUP_ERROR, msg, strlen(msg), "what=collectors");
	console_log("setup error: %s", msg);
}

static int setup_tracepoints(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	struct utsname u;
	int ret = 0;

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	cs.events = calloc(COLLECT_MAX_EVENTS, sizeof(*cs.events));
	if (!copy || !cs.events) {
		setup_error("out of memory for the tracepoint list");
		free(copy);
		return -1;
	}
	if (access(TRACEFS "/events", R_OK)) {
		setup_error(
			"tracepoints asked for (%s) but tracefs is not available at %s on kernel %s; enable CONFIG_FTRACE or drop collectors.tracepoints",
			list, TRACEFS, u.release);
		free(copy);
		return -1;
	}
	for (char *pat = strtok_r(copy, ",", &save); pat && !ret;
	     pat = strtok_r(NULL, ",", &save)) {
		int n = match_pattern(pat);

		if (n < 0) {
			setup_error("more than %d tracepoints match %s; narrow the patterns",
				    COLLECT_MAX_EVENTS, list);
			ret = -1;
		} else if (n == 0) {
			setup_error(
				"tracepoint '%s' matches no event of kernel %s; the kernel's events are listed in %s/available_events (system:event)",
				pat, u.release, TRACEFS);
			ret = -1;
		}
	}
	free(copy);
	for (unsigned int i = 0; i < cs.nevents && !ret; i++) {
		int e = attach(&cs.events[i]);

		if (e) {
			setup_error(
				"cannot count tracepoint %s with a hist trigger: %s; the kernel needs CONFIG_HIST_TRIGGERS",
				cs.events[i].name, strerror(-e));
			ret = -1;
		}
	}
	if (!ret && cs.nevents)
		console_log("counting %u tracepoint(s)", cs.nevents);
	return ret;
}

/* ---- kernel threads ---- */

int collect_parse_stat(const char *text, char *comm, size_t commlen, unsigned long long *ticks)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long ut, st;
	size_t n;

	if (!open || !close || close < open || !commlen)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= commlen)
		n = commlen - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime: utime is the 12th field */
	if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) !=
	    2)
		return -1;
	*ticks = ut + st;
	return 0;
}

static int kthread_wanted(const char *comm)
{
	return !strncmp(comm, "kcompactd", 9) || !strncmp(comm, "kswapd", 6) ||
	       !strcmp(comm, "khugepaged");
}

/* fill out[] with the wanted threads; returns the count */
static unsigned int read_kthreads(struct kthread *out, unsigned int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char path[300], *text;
		size_t len;
		int cut;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		text = read_capped(path, 4096, &len, &cut);
		if (!text)
			continue;
		if (!collect_parse_stat(text, out[n].comm, sizeof(out[n].comm), &out[n].ticks) &&
		    kthread_wanted(out[n].comm)) {
			out[n].pid = atoi(e->d_name);
			n++;
		}
		free(text);
	}
	closedir(d);
	return n;
}

static size_t kthread_counts(char *buf, size_t cap)
{
	static struct kthread now[MAX_KTHREADS];
	unsigned int n = read_kthreads(now, MAX_KTHREADS);
	double hz = (double)sysconf(_SC_CLK_TCK);
	size_t used = 0;

	for (unsigned int i = 0; i < n && used < cap; i++) {
		unsigned long long before = now[i].ticks;

		for (unsigned int j = 0; j < cs.nkt; j++)
			if (cs.kt[j].pid == now[i].pid)
				before = cs.kt[j].ticks;
		bputf(buf, cap, &used, "kthread.%s.cpu_s %.3f\n", now[i].comm,
		      (double)(now[i].ticks - before) / hz);
	}
	return used < cap ? used : cap;
}

/* ---- dmesg ---- */

static void kmsg_begin(void)
{
	cs.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (cs.kmsg >= 0)
		lseek(cs.kmsg, 0, SEEK_END);
}

static size_t kmsg_counts(char *buf, size_t cap)
{
	static const char *const oops[] = {
		"Oops:", "BUG:", "kernel BUG at", "general protection fault", "cut here",
	};
	unsigned long warnings = 0, oopses = 0;
	size_t used = 0;
	char rec[8192];

	if (cs.kmsg < 0)
		return 0;
	for (;;) {
		ssize_t n = read(cs.kmsg, rec, sizeof(rec) - 1);
		const char *msg;

		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message" */
		if ((strtoul(rec, NULL, 10) & 7) <= 4)
			warnings++;
		msg = strchr(rec, ';');
		for (size_t i = 0; msg && i < sizeof(oops) / sizeof(oops[0]); i++)
			if (strstr(msg, oops[i])) {
				oopses++;
				break;
			}
	}
	close(cs.kmsg);
	cs.kmsg = -1;
	bputf(buf, cap, &used, "dmesg.warnings %lu\ndmesg.oopses %lu\n", warnings, oopses);
	return used;
}

/* ---- extfrag ---- */

static const char *const extfrag_files[2] = {
	"/sys/kernel/debug/extfrag/unusable_index",
	"/sys/kernel/debug/extfrag/extfrag_index",
};

static char *read_small(const char *path)
{
	size_t len;
	int cut;

	return read_capped(path, 64 << 10, &len, &cut);
}

/* "Node 0, zone   Normal 0.000 0.012 ..." -> one metric per line at EXTFRAG_ORDER */
static size_t extfrag_lines(const char *text, const char *what, const char *phase, char *buf,
			    size_t cap)
{
	size_t used = 0;

	while (text && *text && used < cap) {
		const char *nl = strchr(text, '\n');
		char zone[32], line[512];
		int node, off = 0;
		size_t ll = nl ? (size_t)(nl - text) : strlen(text);

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, text, ll);
		line[ll] = '\0';
		if (sscanf(line, "Node %d, zone %31s%n", &node, zone, &off) == 2) {
			const char *p = line + off;
			double v = 0;
			int k;

			for (k = 0; k <= EXTFRAG_ORDER; k++) {
				int m = 0;

				if (sscanf(p, "%lf%n", &v, &m) != 1)
					break;
				p += m;
			}
			if (k > EXTFRAG_ORDER)
				bputf(buf, cap, &used, "extfrag.node%d.%s.%s_o%d.%s %.3f\n", node,
				      zone, what, EXTFRAG_ORDER, phase, v);
		}
		text = nl ? nl + 1 : NULL;
	}
	return used < cap ? used : cap;
}

/* ---- the 1 Hz sampler ---- */

static int read_vmstat_fields(const char *path, const char *const *names, size_t nnames,
			      double *out)
{
	size_t len;
	int cut;
	char *text = read_capped(path, 64 << 10, &len, &cut), *line, *save = NULL;

	for (size_t i = 0; i < nnames; i++)
		out[i] = -1;
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		for (size_t i = 0; i < nnames; i++)
			if (!strcmp(name, names[i]))
				out[i] = (double)v;
	}
	free(text);
	return 0;
}

static void take_sample(void)
{
	static const char *const nf[] = { "nr_free_pages" };
	double *row;

	if (cs.nsamples == COLLECT_MAX_SAMPLES)
		return;
	row = realloc(cs.samples, (size_t)(cs.nsamples + 1) * cs.nseries * sizeof(*row));
	if (!row)
		return;
	cs.samples = row;
	row += (size_t)cs.nsamples * cs.nseries;
	read_vmstat_fields("/proc/vmstat", series_fields, NFIELDS, row);
	for (int n = 0; n < cs.nnodes; n++) {
		char path[128];

		snprintf(path, sizeof(path), NODE_DIR "/node%d/vmstat", cs.nodes[n]);
		read_vmstat_fields(path, nf, 1, row + NFIELDS + n);
	}
	cs.nsamples++;
}

static void *sampler(void *arg)
{
	struct timespec next;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&cs.lock);
	while (!cs.stop) {
		take_sample();
		next.tv_sec++;
		while (!cs.stop && pthread_cond_timedwait(&cs.cond, &cs.lock, &next) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&cs.lock);
	return NULL;
}

static void sampler_start(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&cs.cond);
	pthread_cond_init(&cs.cond, &ca);
	pthread_condattr_destroy(&ca);
	free(cs.samples);
	cs.samples = NULL;
	cs.nsamples = 0;
	cs.nseries = (unsigned int)NFIELDS + (unsigned int)cs.nnodes;
	cs.stop = 0;
	cs.running = !pthread_create(&cs.tid, NULL, sampler, NULL);
	if (!cs.running)
		agent_log("warn", "cannot start the 1 Hz sampler; no time series");
}

static void sampler_stop(void)
{
	if (!cs.running)
		return;
	pthread_mutex_lock(&cs.lock);
	cs.stop = 1;
	pthread_cond_signal(&cs.cond);
	pthread_mutex_unlock(&cs.lock);
	pthread_join(cs.tid, NULL);
	cs.running = 0;
}

static void send_series(unsigned int iter)
{
	size_t cap = (size_t)cs.nseries * ((size_t)cs.nsamples * 24 + 64) + 1;
	char *body = malloc(cap);
	size_t used = 0;

	if (!body || !cs.nsamples) {
		free(body);
		return;
	}
	for (unsigned int s = 0; s < cs.nseries; s++) {
		int have = 0;

		for (unsigned int k = 0; k < cs.nsamples; k++)
			have |= cs.samples[(size_t)k * cs.nseries + s] >= 0;
		if (!have)
			continue; /* a field this kernel lacks */
		if (s < NFIELDS)
			bputf(body, cap, &used, "vmstat.%s", series_fields[s]);
		else
			bputf(body, cap, &used, "node%d.vmstat.nr_free_pages",
			      cs.nodes[s - NFIELDS]);
		for (unsigned int k = 0; k < cs.nsamples; k++)
			bputf(body, cap, &used, " %.0f", cs.samples[(size_t)k * cs.nseries + s]);
		bputf(body, cap, &used, "\n");
	}
	chan_sendf(MMREC_SERIES, body, used, "iter=%u interval_s=1 samples=%u", iter, cs.nsamples);
	free(body);
}

/* ---- the phase ---- */

int collect_setup(const struct plan *p, const int *nodes, int nnodes)
{
	cs.enabled = p->collect_enabled;
	cs.nodes = nodes;
	cs.nnodes = nnodes;
	if (!cs.enabled)
		return 0;
	if (p->tracepoints[0] && setup_tracepoints(p->tracepoints) < 0)
		return -1;
	return 0;
}

void collect_begin(unsigned int iter)
{
	(void)iter;
	if (!cs.enabled)
		return;
	for (int i = 0; i < 2; i++) {
		free(cs.extfrag_before[i]);
		cs.extfrag_before[i] = read_small(extfrag_files[i]);
	}
	cs.nkt = read_kthreads(cs.kt, MAX_KTHREADS);
	kmsg_begin();
	for (unsigned int i = 0; i < cs.nevents; i++)
		cs.events[i].before = event_hits(&cs.events[i]);
	sampler_start();
}

void collect_end(unsigned int iter)
{
	static const char *const what[2] = { "unusable", "index" };
	size_t cap = 64 * 1024 + (size_t)cs.nevents * 200, used = 0;
	char *body;

	if (!cs.enabled)
		return;
	sampler_stop();
	body = malloc(cap);
	if (!body)
		return;
	for (unsigned int i = 0; i < cs.nevents; i++) {
		unsigned long long now = event_hits(&cs.events[i]);

		bputf(body, cap, &used, "trace.%s %llu\n", cs.events[i].name,
		      now >= cs.events[i].before ? now - cs.events[i].before : 0);
	}
	used += kthread_counts(body + used, cap - used);
	used += kmsg_counts(body + used, cap - used);
	for (int i = 0; i < 2; i++) {
		char *after = read_small(extfrag_files[i]);

		used += extfrag_lines(cs.extfrag_before[i], what[i], "before", body + used,
				      cap - used);
		used += extfrag_lines(after, what[i], "after", body + used, cap - used);
		free(after);
	}
	chan_sendf(MMREC_COUNTS, body, used < cap ? used : cap - 1, "iter=%u", iter);
	free(body);
	send_series(iter);
}
