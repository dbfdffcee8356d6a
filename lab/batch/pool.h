/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool.h - the worker pool behind "mmlab queue run": claim the queue's
 * local items one by one, start each in a forked worker (a boot on host
 * CPUs and nodes of its own, lab/vm/placement.h; or a kernel build), reap
 * the workers and settle their items, heartbeat the claims, and on
 * SIGINT/SIGTERM stop the workers and queue their items again. It runs
 * until nothing is running and nothing can be claimed. See docs/queue.md.
 */
#ifndef MMLAB_BATCH_POOL_H
#define MMLAB_BATCH_POOL_H

#include "batch/queue.h"
#include "batch/worker.h"
#include "run/runner.h"
#include "store/store.h"

/* an owner silent this long (another host's runner) is dead */
#define POOL_STALE_S 120.0
/* how often a runner refreshes its claims */
#define POOL_HEARTBEAT_S 2.0

/*
 * What a worker runs, in its own process with its own store (and, for a
 * build, queue) connection; the result is the worker's exit status.
 * boot: one boot item placed as bo says; BATCH_FAILED an iteration not ok
 * (runner_boot()'s return through batch_result_of_run()). The pool judges
 * a boot by what the store holds afterwards, not by this result alone.
 * build: one claimed build item into the kernel cache cache_dir.
 */
struct pool_ops {
	enum batch_result (*boot)(struct store *s, const struct queue_item *it,
				  const struct boot_opts *bo, void *arg);
	enum batch_result (*build)(struct store *s, struct queue *q, const struct queue_item *it,
				   const char *cache_dir, void *arg);
	void *arg;
};

struct pool_opts {
	unsigned int jobs; /* VMs at once; 0: one per host CPU */
	unsigned int build_jobs; /* kernel builds at once, beside the VMs */
	const char *cache_dir; /* the kernel cache build items build into */
	const char *connect_uri; /* libvirt, for the boots (NULL: the default) */
	const struct pool_ops *ops; /* NULL: runner_boot(), build_item_build() */
};

/*
 * Run the queue of store s until it is empty, as this host's one queue
 * runner: first requeue (or complete, when stored) the items of a runner
 * that died. 0 every item done; -1 an item failed, the run was stopped
 * (SIGINT/SIGTERM) or another runner holds the store.
 */
int pool_run(struct queue *q, struct store *s, const struct pool_opts *o);

#endif
