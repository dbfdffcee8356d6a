/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - the results store.
 *
 * Layout (see results/README.md and docs/mmlab.md):
 *
 *   DIR/mmlab.db                      SQLite index (WAL): runs, iterations, metrics
 *   DIR/<run>/run.json                run facts: job, status, host, order, variants' kernels
 *   DIR/<run>/job.yaml                the job file as it was given
 *   DIR/<run>/<variant>/<i>/iteration.json   status, guest facts, metrics
 *   DIR/<run>/<variant>/<i>/console.log, agent.bin, before/, after/
 *   DIR/<run>/tasks/<task>.json       Slurm tasks' state records (batch/taskrec.h)
 *   DIR/<run>/kernels/<variant>.json  a kernel a Slurm build job built
 *   DIR/<run>/import.json             where an imported run came from
 *
 * Every file is written atomically (temp + fsync + rename). The files are
 * the truth; the database is an index rebuilt from them when missing.
 */
#ifndef MMLAB_STORE_H
#define MMLAB_STORE_H

#include <stdbool.h>
#include <jansson.h>

#include "kernel/kcache.h"

struct store;

/* the most iterations a variant has (directory names above it are ignored) */
#define STORE_MAX_ITERATIONS 1000000u
/* the largest <run>/kernels/<variant>.json read */
#define STORE_MAX_KERNEL_FILE (1u << 20)

/*
 * Open DIR with its index: DIR/mmlab.db is created (and filled from the
 * files) if missing, and runs other hosts wrote (those with task records,
 * <run>/tasks/) are indexed again when their files changed (store_sync()).
 * Only one host may do this (docs/queue.md): SQLite's WAL needs every
 * process on one host.
 */
struct store *store_open(const char *dir);
/*
 * Open DIR as files alone, never touching a SQLite file: what a process on
 * another host than the store's (a Slurm task) uses. Writes go to the
 * files only; the host with the index folds them in later.
 */
struct store *store_open_files(const char *dir);
bool store_indexed(const struct store *s);
/* index the runs other hosts changed since they were last indexed; 0 or -1 */
int store_sync(struct store *s);
/* the index emptied and rebuilt from the files alone; 0 or -1 */
int store_reindex(struct store *s);
/* (re)index one run from its files; 0 or -1 */
int store_index_run(struct store *s, const char *run);
/* <run>/kernels/<variant>.json: a kernel a Slurm build job handed on */
char *store_kernel_file(const struct store *s, const char *run, const char *variant);
void store_close(struct store *s);
const char *store_dir(const struct store *s);

/* new run id "<YYYYmmdd-HHMMSS>-<job>-<4 hex>"; creates DIR/<run>/ */
char *store_run_create(struct store *s, const char *job_name);
char *store_run_path(const struct store *s, const char *run);
/* resolve "latest", a prefix or NULL to a full run id (NULL + error) */
char *store_run_resolve(struct store *s, const char *run);

/*
 * run.json, the only way into it, as a struct run_record (run_record.h):
 * 0, or -1 after a message. Reading overlays the kernels Slurm build jobs
 * handed on (<run>/kernels/); writing is whole, atomic, and indexed.
 */
struct run_record;
int store_record_read(struct store *s, const char *run, struct run_record *rec);
int store_record_write(struct store *s, const char *run, const struct run_record *rec);
/*
 * The kernels the runs under results_dir use (their variants' kernel
 * records): what the kernel and package caches' gc keep. A missing
 * directory has none; a run.json that cannot be read is skipped after a
 * message. 0, or -1 after a message.
 */
int store_kernels_used(const char *results_dir, struct kernel_uses *out);

/* iteration.json plus the index rows; it must hold "status" and "metrics" */
int store_iteration_write(struct store *s, const char *run, const char *variant, unsigned int index,
			  json_t *iteration);
char *store_iteration_path(const struct store *s, const char *run, const char *variant,
			   unsigned int index);
/* the iteration has a final status stored (ok, crashed, timeout, failed) */
bool store_iteration_done(struct store *s, const char *run, const char *variant,
			  unsigned int index);

/* one run of the store as its listing shows it (results list) */
struct run_row {
	char *run, *job, *created; /* job "?" and created "" when run.json has none */
	char *status; /* as run_record_status() says */
	char *job_file; /* the job file's path as given, or NULL (not in the listing) */
	size_t variants;
	long long iterations, iterations_ok;
};

/* the store's runs, newest first, into *rows (*n of them); -1 when unlistable */
int store_run_rows(struct store *s, struct run_row **rows, size_t *n);
void run_rows_free(struct run_row *rows, size_t n);
/* the rows as `results list --json` prints them, a new reference (run_row_json.c) */
json_t *run_rows_to_json(const struct run_row *rows, size_t n);

#endif
