/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the files of lab/track/ share (track.h is the engine's
 * interface). The state is struct track_state (state.h), state.json
 * written whole and atomically after every step; its shape is documented
 * in docs/track.md ("STATE").
 */
#ifndef MMLAB_TRACK_INTERNAL_H
#define MMLAB_TRACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/util.h"
#include "store/store.h"
#include "track/runs.h"
#include "track/state.h"
#include "track/track.h"

#define TRACK_MAX_JOBS 16
#define TRACK_MAX_POINTS 1000
#define TRACK_MAX_WATCH 64
#define TRACK_NAME_MAX 64

struct track_job {
	char *path; /* absolute */
	char *variant; /* the job's variant whose settings a point keeps; NULL: the first */
	char *name; /* the job's name (from the job file) */
	size_t from; /* that variant's index */
	unsigned int line, col; /* where the track file names it */
};

struct track_watch {
	char *glob; /* fnmatch() pattern over metric names */
	double min_rel; /* this entry's minimum change; NAN: the track's */
	int better; /* -1 lower is better, +1 higher, 0: the metric's own (metrics_dir.h) */
};

/* kernels.list[]: a point the file names */
struct track_list_point {
	char *name;
	char *ref; /* the git ref it gives, or NULL */
	json_t *set; /* its settings: {"kernel"|"ref", "cmdline", "sysctl", "thp"} */
};

/* the track file, checked (trackfile.c) */
struct track_def {
	char *name;
	char *file; /* absolute */
	/* kernels: a branch of a tree, its tags, or a list */
	char *tree; /* absolute, or NULL */
	char *branch, *since, *tags;
	unsigned int every;
	json_t *config; /* {"base","fragments"} with absolute paths (job/rewrite.h), or NULL */
	char *config_base; /* the same as fields: NULL (tinyconfig) unless given */
	struct strlist config_fragments;
	struct track_list_point *list; /* NULL: no list */
	size_t nlist;
	struct track_job jobs[TRACK_MAX_JOBS];
	size_t njobs;
	unsigned int iterations;
	struct track_watch watch[TRACK_MAX_WATCH];
	size_t nwatch;
	/* detection */
	double q; /* Benjamini-Hochberg level */
	double min_rel; /* minimum relative change */
	unsigned int min_segment;
	unsigned long long seed;
	/* confirmation and bisection */
	unsigned int confirm_max; /* iterations per kernel at most */
	double alpha;
	bool bisect;
};

/*
 * path: the track file to read; as_file: the file it is a copy of, whose
 * directory relative paths resolve against (NULL: path itself)
 */
int trackfile_load(const char *path, const char *as_file, struct track_def *d);
/* the file's text alone (no job is loaded); name in messages, dir for relative paths */
int trackfile_parse(const char *name, const char *buf, size_t len, const char *dir,
		    struct track_def *d);
void trackfile_release(struct track_def *d);

/* an open track: its directory, definition, state and lock */
struct track {
	const struct track_env *env;
	char *dir; /* RESULTS/tracks/NAME */
	struct track_def def;
	struct track_state state;
	struct store *store;
	int lock_fd; /* -1 unless locked */
};

/* open RESULTS/tracks/NAME (its track.yaml and state.json); lock: take the run lock */
int track_open(const struct track_env *env, const char *name, bool lock, struct track *t);
void track_close(struct track *t);
/* state.json written atomically */
int track_save(struct track *t);
/* FNV-1a of "a/b": a seed of its own for each series or change, from its names */
unsigned long long track_hash(const char *a, const char *b);
/* a state written whole and atomically to path (track add's first one, track_save) */
int track_state_write(const char *path, const struct track_state *st);
/*
 * Sleep, with SIGINT and SIGTERM caught for the time: false when one of
 * them came (the caller stops waiting; its state is already saved).
 */
bool track_sleep(unsigned int seconds);
/* the tracks directory of a store (malloc'd) */
char *track_root(const char *results_dir);

/* points.c: the series as the state's points, new points appended */
int track_points_update(struct track *t, size_t *added);
/* "git -C tree ARGS..." output (malloc'd), NULL after a message */
char *track_git(const char *tree, const char *const *args);

/* measure.c: a run of every unmeasured point and job, booted through the queue */
int track_measure(struct track *t, const struct track_run_opts *o);
/* the runs' state of the points: counts of "done", "queued", "failed" */
void track_counts(struct track *t, unsigned int *done, unsigned int *queued, unsigned int *failed);
/*
 * The derived job of a point for job j, written to jobs/; its path
 * (malloc'd) or NULL. *existed: an earlier track run had written it (only
 * then can a run of the store name it: see track_find_run()).
 */
struct track_variant {
	const char *name;
	json_t *set; /* borrowed: the point's settings (job/rewrite.h) */
};
char *track_job_file(struct track *t, size_t j, const char *file_name,
		     const struct track_variant *variants, size_t nvariants,
		     unsigned int iterations, bool *existed);
/* the directory of job j's file (malloc'd): the derived jobs' relative paths resolve there */
char *track_job_dir(const struct track *t, size_t j);
/* a job track_job_file() wrote, loaded with job j's directory; NULL after a message */
struct job;
struct job *track_load_job(struct track *t, size_t j, const char *path);
/*
 * A run of the store for the derived job at path, or NULL (malloc'd):
 * one whose job file is path (only a complete one if complete_only), else
 * a complete one whose job.yaml is path's text, whichever host made it
 * (an imported run is one like any other). Reads every run.json.
 */
char *track_find_run(struct track *t, const char *path, bool complete_only);

/* detect.c: the state's analysis from the stored runs */
int track_detect(struct track *t);

/* a kernel's value of a series: the mean of its ok iterations */
struct track_cell {
	bool has; /* false: the metric has no value at this kernel */
	double mean;
	double hw; /* the 95 % CI's half-width; NAN for n < 2 */
	unsigned long n;
};

/* a watched (job, metric) series over the measured kernels */
struct track_series {
	char *metric;
	struct track_cell *cells; /* one per measured kernel (ids) */
};

/* the watched series of a job, and the ids of its measured kernels in order */
struct track_series_set {
	const char **ids; /* borrowed from the state's points */
	size_t nids;
	struct track_series *series;
	size_t nseries;
};

/* the watched series of job j; 0 or -1 after a message */
int track_job_series(struct track *t, size_t j, struct track_series_set *out);
void track_job_series_release(struct track_series_set *s);
/* the per-iteration values of metric in variant of run (ok iterations); count or -1 */
int track_samples(struct track *t, const char *run, const char *variant, const char *metric,
		  double *out, size_t max);

/* confirm.c: the state's confirm entry of every significant candidate */
int track_confirm(struct track *t);
/* tbisect.c: the state's bisect entry of every confirmed change between commits */
int track_bisect(struct track *t);

/* -1 lower is better, +1 higher, 0 neither: the watch entry's, else the metric's */
int track_better(const struct track *t, const char *metric);
/* the point of the state with this id, or NULL */
struct track_point *track_point(struct track *t, const char *id);
/* "job/before..after": the key of a change in state */
char *track_change_key(const char *job, const char *before, const char *after);

#endif
