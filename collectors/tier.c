// SPDX-License-Identifier: GPL-2.0
/*
 * tier.c - memory tiers in the guest (tier.h).
 *
 * The host gives kmem nodes' memory as soft-reserved ranges (memmap=...
 * +0xefffffff, lab/job/topo_layout.h); the kernel's dax_hmem driver makes a
 * dax device of each, bound to device_dax. As daxctl reconfigure-device
 * --mode=system-ram does, the agent unbinds it, gives it to kmem (new_id
 * with the device's name) and onlines its memory blocks movable: the
 * kernel then places the node in a lower memory tier (6.1: kmem's
 * MEMTIER_ADISTANCE_PMEM; later kernels: HMAT or the dax default).
 * Measured on Debian's 6.1.0-57 under TCG: dax0.0 -> kmem, node 1 in
 * memory_tier22, node 0 in memory_tier4.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "proto.h"
#include "sysfs.h"
#include "tier.h"

#define DAX_DEVICES "/sys/bus/dax/devices"
#define DAX_DRIVERS "/sys/bus/dax/drivers"
#define TIERS_DIR "/sys/devices/virtual/memory_tiering"
#define STR_CAP 256
#define DEMOTION "/sys/kernel/mm/numa/demotion_enabled"
#define TIERS_CAP (64u << 10)

/* a whole file (at most 4 KiB) without its trailing newline, or "" */
static void read_line(const char *path, char *out, size_t len)
{
	size_t n;
	int cut;
	char *buf = read_capped(path, 4096, &n, &cut);

	out[0] = '\0';
	if (!buf)
		return;
	n = strcspn(buf, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(out, buf, n);
	out[n] = '\0';
	free(buf);
}

static int in_list(const char *list, int v)
{
	const char *p = list;

	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);

		if (end == p)
			return 0;
		if (x == v)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int load_modules(const char *list, char *err, size_t errlen)
{
	char names[PLAN_NAME_MAX], *save = NULL, path[PLAN_NAME_MAX + 32];

	snprintf(names, sizeof(names), "%s", list);
	for (char *m = strtok_r(names, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		int fd;
		long rc;

		snprintf(path, sizeof(path), "/mmlab/modules/%s.ko", m);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open the module %s: %s", path,
				 strerror(errno));
			return -1;
		}
		rc = syscall(SYS_finit_module, fd, "", 0);
		close(fd);
		if (rc && errno != EEXIST) {
			snprintf(err, errlen, "loading the module %s: %s", path, strerror(errno));
			return -1;
		}
		console_log("tiers: module %s loaded", m);
	}
	return 0;
}

/* the driver a dax device is bound to ("" when none) */
static void dax_driver(const char *dev, char *out, size_t len)
{
	char path[300], link[300], *base;
	ssize_t n;

	snprintf(path, sizeof(path), DAX_DEVICES "/%s/driver", dev);
	n = readlink(path, link, sizeof(link) - 1);
	out[0] = '\0';
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	n = (ssize_t)strlen(base);
	if ((size_t)n >= len)
		n = (ssize_t)len - 1;
	memcpy(out, base, (size_t)n);
	out[n] = '\0';
}

/* give one dax device to kmem */
static int dax_to_kmem(const char *dev, char *err, size_t errlen)
{
	char drv[64], path[300];
	int e;

	dax_driver(dev, drv, sizeof(drv));
	if (!strcmp(drv, "kmem"))
		return 0;
	if (drv[0]) {
		snprintf(path, sizeof(path), DAX_DRIVERS "/%s/unbind", drv);
		e = write_str(path, dev);
		if (e) {
			snprintf(err, errlen, "unbinding %s from %s: %s", dev, drv, strerror(-e));
			return -1;
		}
	}
	e = write_str(DAX_DRIVERS "/kmem/new_id", dev);
	dax_driver(dev, drv, sizeof(drv));
	if (strcmp(drv, "kmem"))
		e = write_str(DAX_DRIVERS "/kmem/bind", dev);
	dax_driver(dev, drv, sizeof(drv));
	if (strcmp(drv, "kmem")) {
		snprintf(err, errlen, "the kmem driver did not take %s (%s)", dev,
			 e ? strerror(-e) : "no error");
		return -1;
	}
	console_log("tiers: %s -> kmem", dev);
	return 0;
}

/* online the node's offline memory blocks, movable */
static int online_node(int node, char *err, size_t errlen)
{
	char dir[128], path[400], state[32];
	struct dirent *d;
	DIR *dp;
	int e, ret = 0;

	snprintf(dir, sizeof(dir), NODE_DIR "/node%d", node);
	dp = opendir(dir);
	if (!dp) {
		snprintf(err, errlen, "node %d is not online after kmem took its memory", node);
		return -1;
	}
	while ((d = readdir(dp)) && !ret) {
		if (strncmp(d->d_name, "memory", 6) || !d->d_name[6] ||
		    strspn(d->d_name + 6, "0123456789") != strlen(d->d_name + 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s/state", dir, d->d_name);
		read_line(path, state, sizeof(state));
		if (strcmp(state, "offline"))
			continue;
		e = write_str(path, "online_movable");
		if (e) {
			snprintf(err, errlen, "onlining %s: %s", path, strerror(-e));
			ret = -1;
		}
	}
	closedir(dp);
	return ret;
}

static int setup_kmem(const char *kmem, char *err, size_t errlen)
{
	char path[300], v[32];
	struct dirent *d;
	DIR *dp;
	int taken = 0;

	/* online as it comes (falls back to online_node() where this fails) */
	write_str("/sys/devices/system/memory/auto_online_blocks", "online_movable");
	dp = opendir(DAX_DEVICES);
	if (!dp) {
		snprintf(
			err, errlen,
			"no %s: the kernel has no dax driver; build it with kernels/lab.config (docs/job-format.md)",
			DAX_DEVICES);
		return -1;
	}
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, "dax", 3))
			continue;
		snprintf(path, sizeof(path), DAX_DEVICES "/%s/target_node", d->d_name);
		read_line(path, v, sizeof(v));
		if (!v[0] || !in_list(kmem, atoi(v)))
			continue;
		if (dax_to_kmem(d->d_name, err, errlen) < 0) {
			closedir(dp);
			return -1;
		}
		taken++;
	}
	closedir(dp);
	if (!taken) {
		snprintf(
			err, errlen,
			"no dax device targets the kmem node(s) %s: the kernel made none of the soft-reserved memory (needs dax_hmem, CONFIG_DEV_DAX_HMEM)",
			kmem);
		return -1;
	}
	for (const char *p = kmem; *p; p += strcspn(p, ","), p += *p == ',')
		if (online_node(atoi(p), err, errlen) < 0)
			return -1;
	return 0;
}

int tier_setup(const struct plan *p, char *err, size_t errlen)
{
	int e;

	if (p->tier_modules[0] && load_modules(p->tier_modules, err, errlen) < 0)
		return -1;
	if (p->tier_kmem[0] && setup_kmem(p->tier_kmem, err, errlen) < 0)
		return -1;
	if (p->tier_demotion < 0)
		return 0;
	e = write_str(DEMOTION, p->tier_demotion ? "true" : "false");
	if (e) {
		snprintf(
			err, errlen,
			"cannot write %s: %s (demotion needs Linux 5.15 or later with CONFIG_MIGRATION)",
			DEMOTION, strerror(-e));
		return -1;
	}
	return 0;
}

/* ---- the TIERS record ---- */

static void put(char *buf, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= TIERS_CAP)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, TIERS_CAP - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < TIERS_CAP ? *used + (size_t)n : TIERS_CAP - 1;
}

static void report_tiers(char *buf, size_t *used)
{
	char path[400], nodes[256];
	struct dirent *d;
	DIR *dp = opendir(TIERS_DIR);

	while (dp && (d = readdir(dp))) {
		if (strncmp(d->d_name, "memory_tier", 11) || !d->d_name[11])
			continue;
		snprintf(path, sizeof(path), TIERS_DIR "/%s/nodelist", d->d_name);
		read_line(path, nodes, sizeof(nodes));
		put(buf, used, "tier=%s nodes=%s\n", d->d_name + 11, nodes[0] ? nodes : "-");
	}
	if (dp)
		closedir(dp);
}

/* access class c of node n: its initiators and HMAT values */
static void report_access(char *buf, size_t *used, int n, int c)
{
	static const char *const attrs[] = { "read_latency", "write_latency", "read_bandwidth",
					     "write_bandwidth" };
	char dir[200], path[300], v[32], ini[256] = "";
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), NODE_DIR "/node%d/access%d/initiators", n, c);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, "node", 4) || !d->d_name[4])
			continue;
		if (strlen(ini) + strlen(d->d_name) + 2 < sizeof(ini))
			snprintf(ini + strlen(ini), sizeof(ini) - strlen(ini), "%s%s",
				 ini[0] ? "," : "", d->d_name + 4);
	}
	closedir(dp);
	put(buf, used, "access=%d class=%d initiators=%s", n, c, ini[0] ? ini : "-");
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i]);
		read_line(path, v, sizeof(v));
		if (v[0] && strspn(v, "0123456789") == strlen(v))
			put(buf, used, " %s=%s", attrs[i], v);
	}
	put(buf, used, "\n");
}

static void report_nodes(char *buf, size_t *used)
{
	int ids[AGENT_MAX_NODES], n = list_nodes(ids, AGENT_MAX_NODES);
	char path[128], cpus[STR_CAP];

	for (int i = 0; i < n; i++) {
		long long kb = -1;
		size_t len;
		int cut;
		char *mi;

		snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", ids[i]);
		read_line(path, cpus, sizeof(cpus));
		snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", ids[i]);
		mi = read_capped(path, 64 << 10, &len, &cut);
		if (mi && strstr(mi, "MemTotal:"))
			sscanf(strstr(mi, "MemTotal:") + 9, "%lld", &kb);
		free(mi);
		put(buf, used, "node=%d cpus=%s memory_kb=%lld\n", ids[i], cpus[0] ? cpus : "-",
		    kb);
		report_access(buf, used, ids[i], 0);
		report_access(buf, used, ids[i], 1);
	}
}

void tier_report(unsigned int iter)
{
	char *buf = malloc(TIERS_CAP), v[32];
	size_t used = 0;

	if (!buf)
		return;
	buf[0] = '\0';
	read_line(DEMOTION, v, sizeof(v));
	put(buf, &used, "demotion_enabled=%s\n", v[0] ? v : "-");
	report_tiers(buf, &used);
	report_nodes(buf, &used);
	chan_sendf(MMREC_TIERS, buf, used, "iter=%u", iter);
	free(buf);
}
