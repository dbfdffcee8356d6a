// SPDX-License-Identifier: GPL-2.0
/*
 * page_bench01.c - an out-of-tree page-allocator microbenchmark in the
 * style of page_bench01 (Jesper Dangaard Brouer's prototype-kernel): the
 * example of a user's own kernel module as a workload
 * (jobs/own-module.yaml, docs/workloads.md). mmlab builds it against each
 * variant's kernel and loads it in the guest; its init runs the benchmark
 * and prints the result, which the job's extractor reads from dmesg.
 *
 *	page_bench01: order 0: 412 cycles(tsc) per alloc+free, 100000 loops, 0 failed
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/timex.h>

static int loops = 100000;
module_param(loops, int, 0444);
MODULE_PARM_DESC(loops, "alloc+free pairs to time");

static int order;
module_param(order, int, 0444);
MODULE_PARM_DESC(order, "allocation order (0..10)");

static int __init page_bench01_init(void)
{
	cycles_t start, stop;
	int failed = 0, i;

	if (loops < 1 || order < 0 || order > 10)
		return -EINVAL;
	start = get_cycles();
	for (i = 0; i < loops; i++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);

		if (!p) {
			failed++;
			continue;
		}
		__free_pages(p, order);
	}
	stop = get_cycles();
	pr_info("page_bench01: order %d: %llu cycles(tsc) per alloc+free, %d loops, %d failed\n",
		order, (unsigned long long)(stop - start) / loops, loops, failed);
	return 0;
}

static void __exit page_bench01_exit(void)
{
}

module_init(page_bench01_init);
module_exit(page_bench01_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("page allocator alloc+free cost, the example module of mmlab");
