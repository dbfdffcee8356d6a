// SPDX-License-Identifier: GPL-2.0
/*
 * pagebench - the page-allocator microbenchmark. The host builds the
 * kernel module workloads/pagebench/ against the variant's kernel and puts
 * it in the boot's image as /mmlab/modules/pagebench.ko. The measured
 * phase is the module's load: its init times alloc_pages/__free_pages
 * batches for orders 0..--max_order in cycles. The results are read back
 * from /proc/mmlab_pagebench and the module is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl.h"

#define MODULE_PATH "/mmlab/modules/pagebench.ko"
#define RESULTS "/proc/mmlab_pagebench"

int main(int argc, char **argv)
{
	uint64_t max_order, iters, batch;
	char args[128], line[256];
	FILE *f;
	int fd, e = 0, n = 0;

	if (wl_init(argc, argv) < 0 || wl_param_u64("max_order", 4, &max_order) < 0 ||
	    wl_param_u64("iters", 100, &iters) < 0 || wl_param_u64("batch", 64, &batch) < 0)
		return 2;
	snprintf(args, sizeof(args), "max_order=%llu iters=%llu batch=%llu",
		 (unsigned long long)max_order, (unsigned long long)iters,
		 (unsigned long long)batch);
	fd = open(MODULE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"pagebench: %s: %s (the host did not build the module for this kernel)\n",
			MODULE_PATH, strerror(errno));
		return 1;
	}
	syscall(SYS_delete_module, "pagebench", O_NONBLOCK); /* a leftover */
	if (wl_ready_and_wait() < 0)
		return 1;
	if (syscall(SYS_finit_module, fd, args, 0))
		e = errno;
	if (wl_done_and_wait() < 0)
		return 1;
	close(fd);
	if (e) {
		fprintf(stderr, "pagebench: loading %s (%s): %s\n", MODULE_PATH, args, strerror(e));
		return 1;
	}
	f = fopen(RESULTS, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned int order;
		double ac, fc;
		unsigned long long failed, ops;
		char name[64];

		if (sscanf(line, "order=%u alloc_cycles=%lf free_cycles=%lf failed=%llu ops=%llu",
			   &order, &ac, &fc, &failed, &ops) != 5)
			continue;
		snprintf(name, sizeof(name), "alloc_cycles.o%u", order);
		wl_metric(name, ac);
		snprintf(name, sizeof(name), "free_cycles.o%u", order);
		wl_metric(name, fc);
		snprintf(name, sizeof(name), "failed.o%u", order);
		wl_metric(name, (double)failed);
		n++;
	}
	if (f)
		fclose(f);
	if (syscall(SYS_delete_module, "pagebench", O_NONBLOCK))
		fprintf(stderr, "pagebench: removing the module: %s\n", strerror(errno));
	if (n != (int)max_order + 1) {
		fprintf(stderr, "pagebench: %s had %d result lines, expected %llu\n", RESULTS, n,
			(unsigned long long)max_order + 1);
		return 1;
	}
	return 0;
}
