/* SPDX-License-Identifier: GPL-2.0 */
/*
 * worker.h - the one way the batch layer forks a worker process (a queue
 * boot, a queue kernel build, a Slurm build step's build), and the stop
 * flag its parent watches.
 *
 * The child dies with its parent (PR_SET_PDEATHSIG: a killed "queue run"
 * takes its workers, their libvirt connections and so, through
 * AUTODESTROY, their guests), takes the default SIGINT/SIGTERM back,
 * appends its output to its own log, and opens its own store (and queue)
 * connections: SQLite and libvirt handles must not cross fork.
 */
#ifndef MMLAB_BATCH_WORKER_H
#define MMLAB_BATCH_WORKER_H

#include <stdbool.h>
#include <sys/types.h>

#include "batch/queue.h"
#include "store/store.h"

/*
 * What a step of batch/ came to, when its caller must tell outcomes apart
 * (a worker child exits with it): the engines of batch/ return it and only
 * builtin/ maps it to an exit status.
 */
enum batch_result {
	BATCH_OK = 0,
	BATCH_FAILED = 1, /* a boot not ok, a build or a submission that failed */
	BATCH_BAD_INPUT = 2, /* no such run, boot or variant; a bad job file */
	BATCH_INTERRUPTED = 3, /* SIGINT or SIGTERM stopped it */
};

/* the runner's return (runner_boot(), runner_create(): run/'s exit status) as a batch result */
enum batch_result batch_result_of_run(int rc);

/* what the child runs, with its own connections: its result is its exit status */
typedef enum batch_result (*worker_fn)(struct store *s, struct queue *q, void *arg);

struct worker_spec {
	const char *results_dir; /* the store (and queue) the child opens */
	bool open_queue; /* q is NULL unless set */
	bool files_only; /* the store without its index (store_open_files()) */
	const char *log; /* stdout and stderr appended here; NULL: kept */
	worker_fn fn;
	void *arg; /* the parent's memory, as fork copied it */
};

/*
 * Fork a worker running w->fn. Returns its pid in the parent, or -1 after
 * a message naming what ("a worker for RUN V/0"). The child never returns:
 * it exits with fn's result, BATCH_FAILED when it cannot open its
 * connections, or BATCH_INTERRUPTED when its parent died before it could
 * ask to die with it.
 */
pid_t worker_start(const struct worker_spec *w, const char *what);

/*
 * SIGINT and SIGTERM set the stop flag instead of ending this process
 * (the parent of workers, which ends them itself); the flag is cleared.
 * worker_stop_release() puts the earlier handlers back.
 */
void worker_stop_catch(void);
void worker_stop_release(void);
bool worker_stop_requested(void);

/* a child's exit status as a shell shows it: its code, or 128 + signal */
int worker_exit_code(int wait_status);

#endif
