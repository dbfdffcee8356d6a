/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm.h - helpers the memory workloads share: raw NUMA syscalls (no libnuma
 * in a static binary), /proc/meminfo, pagemap, percentiles, thread lists.
 */
#ifndef MMLAB_WL_MM_H
#define MMLAB_WL_MM_H

#include <stddef.h>
#include <stdint.h>

#define WL_HPAGE (2UL << 20)
#define WL_MAX_COUNTS 64

/* a "1,2,4" list of counts 1..max; the number of entries or -1 */
int wl_parse_counts(const char *s, unsigned int *v, int max, unsigned int lim);
/* a field of /proc/meminfo in bytes, or 0 */
uint64_t wl_meminfo(const char *field);
/* the node of the page at addr (move_pages query), or -1 */
int wl_page_node(void *addr);
/* the node of the CPU this thread runs on, or -1 */
int wl_cpu_node(void);
/* is the 4 KiB page at addr present (/proc/self/pagemap)? -1 on error */
int wl_page_present(int pagemap_fd, const void *addr);
/* sort v and return the p-th percentile (0..100), nearest rank */
double wl_percentile(double *v, size_t n, double p);
double wl_mean(const double *v, size_t n);
/* raw syscalls */
long wl_mbind(void *addr, size_t len, int mode, const unsigned long *mask, unsigned long maxnode,
	      unsigned int flags);
long wl_set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode);
long wl_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
		   int flags);
/* bind the calling thread to the CPUs of node (from sysfs cpulist); 0 or -1 */
int wl_bind_to_node(int node);
/* number of online nodes (node0..nodeN-1 in sysfs) */
int wl_nodes(void);

/*
 * Fragment memory: map size bytes (2 MB aligned) of base pages, touch them,
 * free every other 4 KiB page, then write a file of a quarter of the freed
 * memory to fill part of the holes with page cache. Returns the mapping
 * (kept mapped) or NULL after a message on stderr.
 */
char *wl_fragment(size_t size, const char *file, size_t *freed);
/* unusable free space index at order (0..1) from /proc/buddyinfo; -1 on error */
double wl_unusable_index(int order, unsigned long long *blocks_at_order);
/* fault n 2 MB MADV_HUGEPAGE pages; how many came huge (pagemap) */
int wl_thp_attempts(int n, int pagemap_fd);

#endif
