/* SPDX-License-Identifier: GPL-2.0 */
/*
 * taskrec.h - the state record of a Slurm task: RESULTS/<run>/tasks/<task>.json,
 * the only thing besides the iteration directories (and a built kernel's
 * <run>/kernels/<variant>.json) a task on another host writes. It is
 * written whole to a temporary name and renamed into place, which is safe
 * on NFS; no task opens a SQLite file. The submitting host folds the
 * records into its queue (docs/queue.md, "Several hosts").
 *
 * <task> is "boot-<K>" (queue exec) or "build-<variant>" (queue build).
 * States: running (with a heartbeat counter the task increments every
 * TASKREC_BEAT_S), done, failed (with the reason).
 *
 * A record is read back by other processes and may be damaged or hostile:
 * taskrec_parse() bounds it (tests/fuzz/fuzz_taskrec.c).
 */
#ifndef MMLAB_BATCH_TASKREC_H
#define MMLAB_BATCH_TASKREC_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define TASKREC_MAX_BYTES 65536u
#define TASKREC_BEAT_S 2.0
/* no heartbeat seen to change for this long (this host's clock): lost */
#define TASKREC_STALE_S 120.0

enum taskrec_state { TASK_RUNNING, TASK_DONE, TASK_FAILED };

struct taskrec {
	char task[160]; /* boot-K or build-VARIANT */
	enum taskrec_state state;
	char reason[512]; /* why it failed */
	char host[256], boot_id[64];
	long long pid;
	unsigned int attempt; /* SLURM_RESTART_COUNT + 1 */
	char slurm_job[32];
	char request[65]; /* a build's kcache request */
	unsigned long long beat; /* heartbeats so far */
};

const char *taskrec_state_name(enum taskrec_state s);

/* 0 and *t filled, or -1 (no message: the caller names the file) */
int taskrec_parse(const char *buf, size_t len, struct taskrec *t);

/* RESULTS/<run>/tasks/<task>.json */
char *taskrec_path(const char *results_dir, const char *run, const char *task);
/* write t atomically (creating tasks/); 0 or -1 after a message */
int taskrec_write(const char *results_dir, const char *run, const struct taskrec *t);
/*
 * read run's record of task: 0 read (*mtime: the file's mtime, as the file
 * server set it), 1 none, -1 unreadable or invalid (message)
 */
int taskrec_read(const char *results_dir, const char *run, const char *task, struct taskrec *t,
		 struct timespec *mtime);

/* this process as the owner of a new record of task: host, boot id, pid, Slurm ids */
void taskrec_self(struct taskrec *t, const char *task, unsigned int attempt);
/* the record is this process's (host, boot id, pid and attempt) */
bool taskrec_same_owner(const struct taskrec *a, const struct taskrec *b);

/*
 * Whether a running task is alive, judged on the observing host alone:
 * what it last saw of the record (beat and mtime) and when, by its own
 * monotonic clock. A change of beat or mtime is a heartbeat, whatever the
 * mtime says; an unchanged record is stale after stale_s of this host's
 * time. The mtime is compared only with an earlier mtime of the same
 * file, never with a clock of this or another host. *seen is updated.
 */
struct task_seen {
	unsigned long long beat;
	struct timespec mtime;
	double at; /* now_monotonic() when it last changed; 0 never seen */
};
bool taskrec_stale(struct task_seen *seen, const struct taskrec *t, struct timespec mtime,
		   double now, double stale_s);

#endif
