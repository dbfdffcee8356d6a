// SPDX-License-Identifier: GPL-2.0
/*
 * agent.c - the guest agent, PID 1 of the lab's initramfs or disk image:
 * mount, say hello, unpack the payload disk (disk image), read the plan,
 * apply settings, run the iterations, send the files to collect, power
 * off. PID 1
 * must never return (the kernel panics), so every path ends in power_off().
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "collect.h"
#include "files.h"
#include "payload.h"
#include "own.h"
#include "plan.h"
#include "proto.h"
#include "run.h"
#include "sysfs.h"
#include "tier.h"

static __attribute__((noreturn)) void power_off(void)
{
	chan_flush();
	sync();
	if (getpid() == 1) {
		reboot(RB_POWER_OFF);
		console_log("power off failed: %s", strerror(errno));
		for (;;)
			pause();
	}
	exit(0);
}

static __attribute__((noreturn, format(printf, 1, 2))) void fatal(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	agent_log("error", "fatal: %s; powering off", msg);
	power_off();
}

static void send_hello(void)
{
	struct utsname u;
	double boot_s = -1;
	size_t len;
	int cut;
	char *up = read_capped("/proc/uptime", 256, &len, &cut);

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	if (!up || sscanf(up, "%lf", &boot_s) != 1)
		boot_s = -1;
	free(up);
	chan_sendf(MMREC_HELLO, NULL, 0, "agent=%s release=%s boot_s=%.3f", AGENT_VERSION,
		   u.release, boot_s);
	console_log("hello: kernel %s, %.2f s after boot", u.release, boot_s);
}

/* "Node 0 MemTotal:  123 kB" -> 123 */
static long long node_memtotal(int id)
{
	char path[128];
	size_t len;
	int cut;
	char *buf, *p;
	long long kb = -1;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", id);
	buf = read_capped(path, 64 << 10, &len, &cut);
	if (!buf)
		return -1;
	p = strstr(buf, "MemTotal:");
	if (p && sscanf(p + 9, "%lld", &kb) != 1)
		kb = -1;
	free(buf);
	return kb;
}

static void send_nodes(const int *ids, int n)
{
	char *body = malloc((size_t)n * 512 + 1), path[128];
	size_t used = 0;

	if (!body)
		fatal("out of memory listing %d nodes", n);
	body[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t len;
		int cut;
		char *cpus;

		snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", ids[i]);
		cpus = read_capped(path, 256, &len, &cut);
		if (cpus)
			cpus[strcspn(cpus, " \n")] = '\0';
		used += (size_t)snprintf(body + used, 512, "node=%d cpus=%s memory_kb=%lld\n",
					 ids[i], cpus && *cpus ? cpus : "-", node_memtotal(ids[i]));
		free(cpus);
	}
	chan_sendf(MMREC_NODES, body, used, "count=%d", n);
	console_log("%d NUMA node(s)", n);
	free(body);
}

/* write every setting; returns the number that failed (each LOGged) */
static int apply_settings(const struct plan *p)
{
	char path[PLAN_NAME_MAX + 64];
	int failed = 0, e;

	for (unsigned int i = 0; i < p->nsysctls; i++) {
		const struct plan_kv *kv = &p->sysctls[i];

		snprintf(path, sizeof(path), "/proc/sys/%s", kv->name);
		for (char *c = path + 10; *c; c++)
			if (*c == '.')
				*c = '/';
		e = write_str(path, kv->value);
		if (e) {
			agent_log("error", "sysctl %s=%s: %s", kv->name, kv->value, strerror(-e));
			failed++;
		}
	}
	for (int i = 0; i < 2; i++) {
		const char *what = i ? "defrag" : "enabled";
		const char *v = i ? p->thp_defrag : p->thp_enabled;

		if (!*v)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", what);
		e = write_str(path, v);
		if (e) {
			agent_log("error", "THP %s=%s: %s", what, v, strerror(-e));
			failed++;
		}
	}
	return failed;
}

/* a disk image's plan and files: on the payload disk, unpacked into / */
static void unpack_payload(void)
{
	struct payload_stats st;
	char err[512];
	struct timespec t0, t1;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = payload_unpack(&st, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0)
		fatal("the payload disk: %s", err);
	if (r > 0)
		console_log(
			"payload: %u file(s), %llu bytes unpacked in %.3f s", st.files, st.bytes,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

/* the plan's memory tiers; -1 after SETUP_ERROR */
static int setup_tiers(const struct plan *p)
{
	char err[512];

	if (tier_setup(p, err, sizeof(err)) == 0)
		return 0;
	chan_sendf(MMREC_SETUP_ERROR, err, strlen(err), "what=tiers");
	console_log("setup error: %s", err);
	return -1;
}

static void read_plan(struct plan *p)
{
	char err[256];
	size_t len;
	int cut;
	char *text = read_capped(MMPLAN_PATH, MMPLAN_MAX_SIZE, &len, &cut);

	if (!text)
		fatal("cannot read the plan %s: %s", MMPLAN_PATH, strerror(errno));
	if (cut)
		fatal("the plan %s is larger than %u bytes", MMPLAN_PATH, MMPLAN_MAX_SIZE);
	if (plan_parse(text, len, p, err, sizeof(err)) < 0)
		fatal("bad plan %s: %s", MMPLAN_PATH, err);
	free(text);
}

int main(void)
{
	static struct plan plan;
	int nodes[AGENT_MAX_NODES], nnodes, setup_failed, failed = 0;

	signal(SIGPIPE, SIG_IGN);
	mount_all();
	console_open();
	console_log("starting (pid %d)", (int)getpid());
	if (chan_open(AGENT_DATA_TTY) < 0)
		power_off();
	mount_report();
	send_hello();
	nnodes = list_nodes(nodes, AGENT_MAX_NODES);
	send_nodes(nodes, nnodes);
	unpack_payload();
	read_plan(&plan);
	if (plan.probe) {
		chan_sendf(MMREC_DONE, NULL, 0, "iterations=0");
		power_off();
	}
	setup_failed = apply_settings(&plan);
	if (setup_tiers(&plan) < 0) {
		chan_sendf(MMREC_DONE, NULL, 0, "iterations=0");
		power_off();
	}
	if (plan.tier_kmem[0]) { /* the kmem nodes came online: snapshot them too */
		nnodes = list_nodes(nodes, AGENT_MAX_NODES);
		send_nodes(nodes, nnodes);
	}
	if (collect_setup(&plan, nodes, nnodes) < 0) {
		chan_sendf(MMREC_DONE, NULL, 0, "iterations=0");
		power_off();
	}
	for (unsigned int i = 0; i < plan.iterations; i++) {
		unsigned int iter = plan.iteration_first + i;

		console_log("iteration %u: %s", iter, plan.workload);
		if (plan.tier_report)
			tier_report(iter);
		failed += (plan.own ? own_run_iteration : run_iteration)(&plan, iter, nodes, nnodes,
									 setup_failed) < 0;
	}
	console_log("done: %u iteration(s), %d failed", plan.iterations, failed);
	files_send(&plan);
	chan_sendf(MMREC_DONE, NULL, 0, "iterations=%u", plan.iterations);
	power_off();
}
