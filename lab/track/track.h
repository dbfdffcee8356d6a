/* SPDX-License-Identifier: GPL-2.0 */
/*
 * track.h - the lab server's regression robot, the engine behind "mmlab
 * track" (lab/builtin/cmd-track.c; docs/track.md).
 *
 * A track is a file (trackfile.c) naming a series of kernels (a branch's
 * first-parent commits, tags, or an explicit list of points, each any
 * kernel a job accepts, or the same kernel with other boot settings) and
 * the jobs that measure each. Its state lives in the results store, in
 * RESULTS/tracks/NAME/: the track file as added, state.json (the points,
 * the run of each point and job, the change points found, their
 * confirmation and bisection), jobs/ (the YAML of every run it made), the
 * bisections' state (bisect/KEY/) and a lock held by "track run".
 *
 * The runs themselves are ordinary runs of the store: "mmlab compare" and
 * "mmlab report" work on them as on any other.
 *
 * The steps of "track run" (each resumable, each recorded in state.json
 * before the next starts, so a kill -9 measures nothing twice):
 *
 *   points.c   the series: git rev-list, tags, or the file's list
 *   measure.c  a run per unmeasured point and job, booted through the queue
 *   detect.c   every watched (job, metric) series through E-divisive means
 *              (analysis/changepoint.h), Benjamini-Hochberg over them all
 *   confirm.c  the two kernels around each change measured again, together
 *   tbisect.c  a confirmed change between commits more than one apart bisected
 *   report.c   text, JSON, HTML and mbox
 *
 * Every function prints its own error (lab_err) and returns 0 or -1
 * unless it says otherwise.
 */
#ifndef MMLAB_TRACK_H
#define MMLAB_TRACK_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* what the engine needs from the command line's global options */
struct track_env {
	const char *results_dir;
	const char *cache_dir;
	const char *connect_uri; /* NULL: the default */
};

/*
 * "track add FILE": check the track file and every job it names, then
 * make (or update) RESULTS/tracks/NAME. *name (malloc'd) is the track's.
 * Returns 0, or -1 after the file's errors (FILE:LINE:COLUMN).
 */
int track_add(const struct track_env *env, const char *file, char **name);

struct track_run_opts {
	unsigned int jobs; /* VMs at once (the queue's --jobs); 0: as the host holds */
	bool follow; /* poll for new points until interrupted */
	unsigned int poll_s; /* --poll (default 600) */
	bool no_confirm, no_bisect; /* stop after detection / after confirmation */
	/*
	 * --slurm: the runs of the kernels are submitted as Slurm array jobs
	 * (batch/submit.h) instead of booted by the local queue, and track
	 * run waits for them; the store must be where the nodes see it
	 */
	bool slurm;
	const char *partition; /* --partition, or NULL */
	const char *mmlab; /* this binary, as the nodes run it (required with slurm) */
};

/*
 * "track run NAME": measure, detect, confirm, bisect. 0 done; -1 after a
 * message, *bad_input true when the track could not be opened (no such
 * track, a damaged state, another track run holds it) and false when a
 * step failed or was interrupted (state kept: run it again).
 */
int track_run(const struct track_env *env, const char *name, const struct track_run_opts *o,
	      bool *bad_input);

/* "track status NAME": the state as JSON (a new reference), NULL after a message */
json_t *track_status(const struct track_env *env, const char *name);
void track_print_status(FILE *f, json_t *status);

enum track_format { TRACK_TEXT, TRACK_JSON, TRACK_HTML, TRACK_MBOX };
/* "track report NAME": the report to f */
int track_report(const struct track_env *env, const char *name, enum track_format fmt, FILE *f);

/* a track of the store, as "track list" names it */
struct track_info {
	char *name;
	size_t points;
	char *file; /* the track file as added, or NULL */
};

/* "track list": the tracks of the store (*n of them, malloc'd: track_list_free()) */
struct track_info *track_list(const struct track_env *env, size_t *n);
void track_list_free(struct track_info *l, size_t n);
/* the list as "track list --json" prints it, [{"name","points","file"}]: a new reference */
json_t *track_list_json(const struct track_info *l, size_t n);

#endif
