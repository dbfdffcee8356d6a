/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iteration_record.h - iteration.json as a struct: what one iteration of a
 * run stored (results/<run>/<variant>/<i>/iteration.json; the writer is
 * run/record.c) and what its readers use: the status and why, the guest's
 * kernel and nodes, the boot's phases, the metrics, the 1 Hz time series
 * and an mmtests import.
 *
 * JSON is converted in iteration_record_json.c only. The file is written
 * by the host but may come from anywhere (`mmlab results import`, a run
 * JSON given to `mmlab compare`): iteration_record_from_json() bounds what
 * it takes (ITER_MAX_*) and refuses a document that is not an object.
 * Every other key stays in "rest" as it was, and
 * iteration_record_to_json() writes it back.
 */
#ifndef MMLAB_ITERATION_RECORD_H
#define MMLAB_ITERATION_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* bounds of what one iteration record holds (a guest's iteration sends less) */
#define ITER_MAX_NAME 1024 /* a metric, series, node or phase name */
#define ITER_MAX_METRICS 100000 /* CMP_MAX_METRICS */
#define ITER_MAX_SERIES 4096
#define ITER_MAX_POINTS 1000000 /* samples of all series together */
#define ITER_MAX_NODES 1024 /* AGENT_MAX_NODES */
#define ITER_MAX_PHASES 64

/* "metrics": one numeric metric (other values are not metrics and are dropped) */
struct iter_metric {
	char *name;
	double value;
	bool integer; /* a JSON integer: ivalue holds it exactly */
	long long ivalue;
};

/* one named series of "timeseries"; NaN for a sample that is not a number */
struct iter_series {
	char *name;
	double *v;
	size_t n;
};

/*
 * "timeseries": {"interval_s", "samples", "series": {name: [values]}};
 * an older run stored the series object alone, read the same way.
 */
struct iter_timeseries {
	bool present;
	double interval_s; /* 0: not given */
	long long samples; /* -1: not given */
	struct iter_series *series; /* in the file's order */
	size_t nseries;
};

/* "guest"."nodes"[]: a NUMA node the guest saw */
struct iter_node {
	long long id;
	char *cpus; /* a node list, "0-1"; NULL if absent */
	long long memory_kb;
};

/* "boot"."phases": seconds of one phase, in the file's order */
struct iter_phase {
	char *name;
	double s;
};

struct iteration_record {
	unsigned int index;
	char *status; /* ok, crashed, timeout, failed (or what an older run wrote); NULL */
	char *reason; /* why it is not ok; NULL */
	char *kernel_release; /* "guest"."kernel_release"; NULL */
	struct iter_node *nodes;
	size_t nnodes;
	struct iter_phase *phases;
	size_t nphases;
	char *console_excerpt; /* the console around a crash; NULL */
	bool has_metrics; /* "metrics" is there (an object) */
	struct iter_metric *metrics; /* in the file's order */
	size_t nmetrics;
	struct iter_timeseries ts;
	/* "mmtests": an mmtests import (mmtests/mmtests.h reads it); NULL, borrowed from rest */
	const json_t *mmtests;
	json_t *rest; /* the whole document as read (owned); never NULL after a read */
};

/*
 * Fill rec from an iteration.json object; where names it in the message
 * ("run X variant Y iteration 2"). 0, or -1 after a message (rec released).
 */
int iteration_record_from_json(const json_t *j, struct iteration_record *rec, const char *where);
/*
 * Every element of a JSON array of iterations (a variant's stored
 * iteration documents, store_variant_iterations()) into *recs, *n of them
 * (an element that is not an object: a record with no status, not ok).
 * 0, or -1 after a message. iteration_records_free() them.
 */
int iteration_records_from_json(const json_t *its, struct iteration_record **recs, size_t *n,
				const char *where);
void iteration_records_free(struct iteration_record *recs, size_t n);
/*
 * j has what makes an iteration's result: a "status" string and a
 * "metrics" object (what `mmlab results import` takes for an
 * iteration.json; nothing is bounded or printed)
 */
bool iteration_json_has_result(const json_t *j);
/* rec as iteration.json (new reference): rest with the typed fields over it */
json_t *iteration_record_to_json(const struct iteration_record *rec);
void iteration_record_release(struct iteration_record *rec);
/* frees a time series (one moved out of its record) */
void iter_timeseries_release(struct iter_timeseries *ts);

/* the largest iteration.json read */
#define ITER_MAX_FILE (64u << 20)

/* the iteration's status is "ok" */
bool iteration_ok(const struct iteration_record *rec);
/* the value of metric name, or NaN when the iteration has none */
double iteration_metric(const struct iteration_record *rec, const char *name);
/* the series of name, or NULL */
const struct iter_series *iteration_series(const struct iteration_record *rec, const char *name);

#endif
