// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - read the counters of one phase and send them raw; the host
 * parses them (lab/guest/counters.c), so the guest stays simple.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "proto.h"
#include "snapshot.h"
#include "sysfs.h"

static int send_file(unsigned int iter, const char *phase, const char *name, const char *path)
{
	size_t len = 0;
	int truncated;
	char *buf = read_capped(path, SNAP_CAP, &len, &truncated);

	if (!buf) {
		agent_log("warn", "iteration %u: cannot read %s: %s", iter, path, strerror(errno));
		return -1;
	}
	if (truncated)
		agent_log("warn", "iteration %u: %s longer than %u bytes, cut", iter, path,
			  SNAP_CAP);
	chan_sendf(MMREC_SNAPSHOT, buf, len, "iter=%u phase=%s name=%s", iter, phase, name);
	free(buf);
	return 0;
}

int snapshot_phase(unsigned int iter, const char *phase, const int *nodes, int nnodes)
{
	static const char *const global[] = { "vmstat", "buddyinfo", "pagetypeinfo" };
	static const char *const pernode[] = { "vmstat", "numastat", "meminfo" };
	char name[64], path[128];
	int failed = 0;

	for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%s", global[i]);
		failed += send_file(iter, phase, global[i], path) < 0;
	}
	for (int n = 0; n < nnodes; n++) {
		for (size_t i = 0; i < sizeof(pernode) / sizeof(pernode[0]); i++) {
			snprintf(name, sizeof(name), "node%d/%s", nodes[n], pernode[i]);
			snprintf(path, sizeof(path), NODE_DIR "/%s", name);
			failed += send_file(iter, phase, name, path) < 0;
		}
	}
	return failed;
}
