/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slurm.h - the Slurm client: the argv of sbatch, sinfo, sacct, squeue
 * and scancel (spawned, never through a shell), the scripts sbatch runs,
 * and the parsing of what they print. submit.c submits runs with it;
 * "queue status" shows Slurm's view through slurm_status_fill(). See
 * docs/queue.md.
 */
#ifndef MMLAB_BATCH_SLURM_H
#define MMLAB_BATCH_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "store/store.h"
#include "lib/util.h"

#define SLURM_SBATCH_TIMEOUT_S 60

/* sh single-quoted form of s; NULL (no message) if s holds a newline */
char *sh_quote(const char *s);

/* a name Slurm takes as one token (a partition): [A-Za-z0-9._-], 1..128 */
bool slurm_valid_name(const char *s);

/*
 * The script of a Slurm job: "#!/bin/sh ... export MMLAB_CACHE='C'; exec
 * 'MMLAB' --results 'RESULTS' queue 'WORD'..." (every word quoted), with
 * --boot "$SLURM_ARRAY_TASK_ID" for an array task. cache_dir is made
 * absolute. NULL after a message when a path or word holds a newline.
 */
char *slurm_script_text(const char *mmlab, const char *results, const char *cache_dir,
			const char *const words[], size_t nwords, bool array);

/* where the jobs of a run go, and the sbatch options they share */
struct slurm_target {
	const char *partition; /* --partition, or NULL */
	const char *dir; /* --chdir, and where --output files go */
};

/*
 * The argv (into a, which must be empty) of the sbatch of each job of a
 * run: a kernel build of variant (cpus, minutes); the array of ntasks
 * boots, each with cpus for minutes, after the builds deps (":id:id..."
 * or NULL) succeed; the finishing job after the array ends.
 */
void slurm_build_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		      const char *variant, unsigned int cpus, unsigned int minutes,
		      const char *script);
void slurm_array_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		      unsigned int ntasks, unsigned int cpus, unsigned int minutes,
		      const char *deps, const char *script);
void slurm_finish_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		       const char *array_id, const char *script);

/* run sbatch --parsable (argv a): the job id (malloc'd), or NULL after a message */
char *slurm_sbatch(const struct strlist *a);

/* the job id of sbatch --parsable's output ("id[;cluster]\n"), or NULL */
char *slurm_parse_job_id(const char *out);

/* CPUs of the partition's smallest node ("sinfo -o %c"), at most 32; 1 if unknown */
unsigned int slurm_node_cpus(const char *partition);
/* the same from sinfo's output ("64\n8+\n"): 0 if none */
unsigned int slurm_parse_node_cpus(const char *out);

/* scancel each job id (messages of scancel ignored) */
void slurm_scancel(const char *const ids[], size_t n);

/*
 * Job states from sacct -P -o JobID,State ("ID|STATE") or squeue -o "%i
 * %T" ("ID STATE") output, one a line, into states {id: state}; the
 * .batch and .extern steps are left out.
 */
void slurm_parse_states(const char *out, json_t *states);

/*
 * For a job of "queue status" submitted to Slurm (j["slurm"] = {"array",
 * "finish", "builds"}): ask sacct (where accounting is on) and squeue for
 * the states of its Slurm jobs and tasks, put them in j["slurm"]["states"],
 * and derive the items' states with slurm_items_state().
 */
void slurm_status_fill(json_t *j, struct store *s);

/*
 * The items of j from Slurm's states (j["slurm"]["states"]) and the store:
 * a boot is done when stored, failed or cancelled when the queue says so
 * (its kernel build failed), else running, queued or failed as its array
 * task is (a task that completed but stored nothing failed); a build item
 * gets its job's Slurm state. j["counts"] is recounted.
 */
void slurm_items_state(json_t *j, struct store *s);

#endif
