// SPDX-License-Identifier: GPL-2.0
/*
 * compact - explicit and proactive compaction of a fragmented guest.
 *
 * Setup (not measured): fragment --size bytes like thpfault (base pages,
 * every other 4 KiB page freed, a quarter of the holes refilled with page
 * cache), and read the unusable free space index at --order from
 * /proc/buddyinfo.
 *
 * Measured, by --mode:
 *   all        write 1 to /proc/sys/vm/compact_memory (every node), timed
 *   node       write 1 to /sys/devices/system/node/node<--node>/compact
 *   proactive  set vm.compaction_proactiveness to --proactiveness and
 *              wait --window_s seconds (kcompactd works in the background;
 *              the old value is restored after the window)
 * then the unusable index again. After "done" (not measured), fault up to
 * 64 MADV_HUGEPAGE 2 MB pages and count how many came huge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm.h"
#include "wl.h"

#define FILL_FILE "/tmp/compact.fill"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -errno;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = wl_param("mode");
	uint64_t size, node, pro, window, order;
	unsigned long long blocks_before, blocks_after;
	double ub, ua, t0, secs;
	char path[128], old[32] = "", val[32];
	size_t freed;
	int e = 0, pagemap, tries, huge;

	if (wl_init(argc, argv) < 0 || wl_param_u64("size", 64 << 20, &size) < 0 ||
	    wl_param_u64("node", 0, &node) < 0 || wl_param_u64("proactiveness", 20, &pro) < 0 ||
	    wl_param_u64("window_s", 5, &window) < 0 || wl_param_u64("order", 9, &order) < 0)
		return 2;
	mode = wl_param("mode");
	if (!mode)
		mode = "all";
	if ((strcmp(mode, "all") && strcmp(mode, "node") && strcmp(mode, "proactive")) ||
	    order > 10 || pro > 100 || size < 4 * WL_HPAGE) {
		fprintf(stderr,
			"compact: bad parameters: mode=%s (all|node|proactive) order=%llu (0..10) proactiveness=%llu (0..100) size=%llu (>= 8M)\n",
			mode, (unsigned long long)order, (unsigned long long)pro,
			(unsigned long long)size);
		return 2;
	}
	if (wl_meminfo("MemAvailable") && size > wl_meminfo("MemAvailable") / 10 * 9)
		size = wl_meminfo("MemAvailable") / 10 * 9;
	size &= ~(WL_HPAGE - 1);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%llu/compact",
		 (unsigned long long)node);
	if (!strcmp(mode, "node") && access(path, W_OK)) {
		fprintf(stderr, "compact: %s: %s (no such node, or no CONFIG_COMPACTION)\n", path,
			strerror(errno));
		return 2;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pagemap < 0 || !wl_fragment(size, FILL_FILE, &freed))
		return 1;
	ub = wl_unusable_index((int)order, &blocks_before);
	if (wl_ready_and_wait() < 0)
		return 1;
	t0 = wl_now();
	if (!strcmp(mode, "all")) {
		e = write_str("/proc/sys/vm/compact_memory", "1");
	} else if (!strcmp(mode, "node")) {
		e = write_str(path, "1");
	} else {
		e = read_str("/proc/sys/vm/compaction_proactiveness", old, sizeof(old));
		snprintf(val, sizeof(val), "%llu", (unsigned long long)pro);
		if (!e)
			e = write_str("/proc/sys/vm/compaction_proactiveness", val);
		if (!e)
			sleep((unsigned int)window);
	}
	secs = wl_now() - t0;
	ua = wl_unusable_index((int)order, &blocks_after);
	if (wl_done_and_wait() < 0)
		return 1;
	if (old[0])
		write_str("/proc/sys/vm/compaction_proactiveness", old);
	if (e) {
		fprintf(stderr, "compact: triggering compaction (%s): %s\n", mode, strerror(-e));
		return 1;
	}
	/* high-order allocations after: THP faults, with the job's defrag mode */
	tries = (int)(wl_meminfo("MemFree") / WL_HPAGE / 2);
	if (tries > 64)
		tries = 64;
	huge = tries > 0 ? wl_thp_attempts(tries, pagemap) : 0;
	unlink(FILL_FILE);
	wl_metric("time_s", secs);
	wl_metric("unusable_before", ub);
	wl_metric("unusable_after", ua);
	wl_metric("free_blocks_before", (double)blocks_before);
	wl_metric("free_blocks_after", (double)blocks_after);
	wl_metric("thp_tries", tries);
	wl_metric("thp_success_pct", tries ? 100.0 * huge / tries : 0);
	return 0;
}
