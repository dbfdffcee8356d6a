/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue_status.h - the queue's status document (queue_status(),
 * batch_status()) as a typed record: its jobs, each with its counts, its
 * kernel builds, its Slurm jobs and its items (boots and kernel builds).
 * queue_status_json.c reads the document into it, the only place that
 * reads its keys; the rest of the code reads fields.
 */
#ifndef MMLAB_BATCH_QUEUE_STATUS_H
#define MMLAB_BATCH_QUEUE_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* bounds of a document: one past them is refused, not cut */
#define QSTATUS_MAX_JOBS 100000
#define QSTATUS_MAX_ITEMS 1000000
#define QSTATUS_MAX_NAMES 4096

/* a state and how many items are in it ("counts", "builds") */
struct qs_count {
	char *state;
	long long n;
};

/* a name and a string ("slurm"'s "builds" and "states"); value NULL if not a string */
struct qs_pair {
	char *key;
	char *value;
};

struct queue_status_item {
	long long id;
	bool build; /* kind "build": a kernel build; else a boot */
	char *variant, *state; /* NULL when not a string */
	char *request; /* builds: the build request; NULL when not a string */
	long long needed_by; /* builds: how many boots need it */
	unsigned int first, count; /* boots: the first iteration and how many */
	char *error; /* NULL without */
	json_t *placement; /* a new reference, NULL without */
};

/* the Slurm jobs of a job submitted with "mmlab submit --slurm" */
struct queue_status_slurm {
	char *array, *finish; /* the job ids; NULL when not strings */
	struct qs_pair *builds; /* variant -> its build job's id */
	size_t nbuilds;
	struct qs_pair *states; /* job id -> Slurm's state of it */
	size_t nstates;
};

struct queue_status_job {
	long long id;
	char *run; /* NULL when not a string */
	long long priority;
	struct qs_count *counts; /* the boots per state */
	size_t ncounts;
	struct qs_count *builds; /* the kernel builds per state */
	size_t nbuilds;
	bool has_eta; /* eta_s is a number (else unknown) */
	double eta_s;
	bool has_slurm; /* "slurm" is an object */
	struct queue_status_slurm slurm;
	struct queue_status_item *items;
	size_t nitems;
};

struct queue_status {
	struct queue_status_job *jobs;
	size_t njobs;
};

/*
 * Read status document doc (an array of jobs, as queue_status() writes it)
 * into *out. 0, or -1 after a message when doc is not an array of objects
 * or is past a bound (*out is then empty). Release with
 * queue_status_release().
 */
int queue_status_from_json(const json_t *doc, struct queue_status *out);
void queue_status_release(struct queue_status *st);

/* one job of the document (an object), the same way; 0 or -1 after a message */
int queue_status_job_from_json(const json_t *o, struct queue_status_job *j);
void queue_status_job_release(struct queue_status_job *j);

/*
 * Adding to a job of the document (a new field of an item, Slurm's
 * states): what "queue status" prints is the document, so the additions
 * go there. The i-th of job's "items", borrowed (NULL past the end or
 * when it has none).
 */
json_t *qs_doc_item(json_t *job, size_t i);
/* set job's "slurm" object's "states" to states (taken; dropped when job has no "slurm") */
void qs_doc_set_slurm_states(json_t *job, json_t *states);

/* n of state in counts, 0 without */
long long qs_count_of(const struct qs_count *counts, size_t n, const char *state);
/* the value of key in pairs (NULL without, or when it is not a string) */
const char *qs_pair_get(const struct qs_pair *pairs, size_t n, const char *key);

#endif /* MMLAB_BATCH_QUEUE_STATUS_H */
