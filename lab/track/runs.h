/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs.h - what lab/track/ reads of the runs of the store, as structs
 * (run_json.c converts): the iterations of a run's variants with their
 * numeric metrics (detect.c, measure.c, confirm.c), and the setup of a
 * confirmation run the report names (entries.c).
 */
#ifndef MMLAB_TRACK_RUNS_H
#define MMLAB_TRACK_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct store;
struct run_record;
struct run_data;

#define TRACK_RUN_MAX_VARIANTS 4096u
#define TRACK_RUN_MAX_METRICS 100000u
#define TRACK_RUN_MAX_STR 4096u

/* an iteration: its status and its numeric metrics */
struct track_iter {
	bool done; /* it has a status */
	bool ok; /* the status is "ok" */
	char **names;
	double *values;
	size_t nmetrics;
};

struct track_run_variant {
	char *name; /* NULL: not a string */
	struct track_iter *its;
	size_t nits;
};

struct track_stored_run {
	char *workload; /* the job's workload, or NULL */
	struct track_run_variant *vars;
	size_t nvars;
};

/* r from a run the store loaded (store_run_load()) */
void track_run_from_data(const struct run_data *run, struct track_stored_run *r);
/* the run id of the store; -1 after the store's message */
int track_run_load(struct store *s, const char *id, struct track_stored_run *r);
void track_run_release(struct track_stored_run *r);

/* the setup of a run: topology, workload, kernels and host */
struct track_setup {
	bool has_job; /* run.json holds the resolved job */
	char *workload;
	struct {
		long long cpus, memory_kib;
	} * nodes;
	size_t nnodes;
	struct {
		char *variant, *release; /* release NULL: unknown */
	} * kernels;
	size_t nkernels;
	char *accel, *qemu; /* NULL: unknown */
};

void track_setup_from_record(const struct run_record *rec, struct track_setup *su);
/* store_record_read() of run: 0, or -1 after its message */
int track_setup_load(struct store *s, const char *run, struct track_setup *su);
void track_setup_release(struct track_setup *su);

#endif
