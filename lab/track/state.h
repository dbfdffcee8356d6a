/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - a track's state.json as a struct (docs/track.md, "STATE"): the
 * points of the series, the run of each point and job, the analysis and
 * its candidates, the confirmations and the bisections. JSON is converted
 * in state_json.c only; every step of lab/track/ reads and writes fields.
 *
 * The file format is the one track add and every earlier track run wrote:
 * a state read and written again is the same file, byte for byte (keys
 * sorted, one space of indent). Conventions: a NULL string and a NAN
 * double are keys that are not written; top-level keys this file does not
 * know stay in "rest" and are written back unchanged.
 */
#ifndef MMLAB_TRACK_STATE_H
#define MMLAB_TRACK_STATE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* the largest state.json read, and the most entries of each of its lists */
#define TRACK_STATE_MAX_BYTES (256u << 20)
#define TRACK_STATE_MAX_ITEMS 1000000u
/* the longest string of the state (a label, a path, a metric list, a date) */
#define TRACK_STATE_MAX_STR 65536u

/* a number of the state that may be missing (NAN), as the report reads it: 0 */
static inline double track_or0(double d)
{
	return isnan(d) ? 0 : d;
}

/* runs[POINT][JOB]: the run of a point and job */
struct track_slot {
	char *job;
	char *run;
	char *job_file;
	char *status; /* queued, measured, failed */
};

/* points[]: a kernel of the series */
struct track_point {
	char *id;
	char *label;
	char *commit; /* NULL: not a commit of the tree */
	char *subject;
	char *added; /* ISO 8601 */
	json_t *set; /* the settings its runs get (job/rewrite.h), an object */
	bool in_runs; /* runs has an entry for it (maybe empty) */
	struct track_slot *slots;
	size_t nslots;
};

/* analysis.candidates[]: a change point of a (job, metric) series */
struct track_cand {
	char *job, *metric, *before, *after; /* point ids */
	double p, q, stat, rel, min_change;
	double mean_before, mean_after, median_before, median_after;
	json_int_t perms, kernels, kernels_before, kernels_after;
	bool kept, significant;
};

struct track_analysis {
	bool present;
	char *when, *method;
	json_int_t seed, series_tested, family, significant;
	double q, min_change;
	struct track_cand *cands;
	size_t ncands;
};

/* confirm[KEY].tests[]: compare's test of one metric */
struct track_test {
	char *metric;
	json_int_t n_before, n_after;
	double mean_before, mean_after;
	bool agrees, confirmed;
	double p, t, rel, ci_low, ci_high; /* NAN: not written */
	char *why; /* why there is no test */
};

/* confirm[KEY] */
struct track_confirmation {
	char *key; /* JOB/BEFORE..AFTER (track_change_key()) */
	char *status; /* running, confirmed, not confirmed */
	char *metrics; /* comma-joined */
	char *run;
	bool has_tests;
	struct track_test *tests;
	size_t ntests;
};

/* a commit as the report names it */
struct track_commit {
	char *commit, *shortc, *subject, *author, *date;
	json_t *rest; /* other keys the bisect engine wrote, kept */
};

/* bisect[KEY] */
struct track_bisection {
	char *key;
	char *status; /* running, done, failed */
	char *why, *dir;
	bool has_range;
	json_int_t range_commits;
	bool has_first;
	struct track_commit first;
	json_t *result; /* the bisect engine's result (bisect/session.h), or NULL */
};

struct track_state {
	char *name, *created;
	char *file; /* the track file as added (absolute) */
	struct track_point *points;
	size_t npoints;
	bool has_runs;
	json_t *runs_rest; /* runs of points not in points[], kept as they are */
	struct track_analysis analysis;
	bool has_confirm;
	struct track_confirmation *confirm;
	size_t nconfirm;
	bool has_bisect;
	struct track_bisection *bisect;
	size_t nbisect;
	json_t *rest; /* top-level keys of no field above */
};

/*
 * st from state.json's text (name in messages): 0, or -1 after a message
 * naming what is wrong. The file is untrusted: sizes, counts and strings
 * are bounded, every field's type is checked.
 */
int track_state_parse(const char *name, const char *buf, size_t len, struct track_state *st);
/* st from a parsed document; -1 and err filled (no message) when it is not a state */
int track_state_from_json(const json_t *j, struct track_state *st, char *err, size_t errlen);
/* state.json's document of st: a new reference */
json_t *track_state_to_json(const struct track_state *st);
/* the parts of the document, new references (the report's JSON is made of them) */
json_t *track_analysis_to_json(const struct track_analysis *a);
json_t *track_cand_to_json(const struct track_cand *x);
json_t *track_test_to_json(const struct track_test *x);
json_t *track_confirm_to_json(const struct track_confirmation *e);
json_t *track_bisect_to_json(const struct track_bisection *b);
/* state.json's text of st (malloc'd) */
char *track_state_dump(const struct track_state *st);
/* read and parse path: 0, or -1 after a message */
int track_state_load(const char *path, struct track_state *st);
/* the same without a message: -1 when path is missing or not a state */
int track_state_try_load(const char *path, struct track_state *st);
void track_state_release(struct track_state *st);

/* a commit's record ({"commit","short","subject","author","date"}); -1: not one */
int track_commit_from_json(const json_t *j, struct track_commit *c);
/* the first bad commit of the bisect engine's result (bisect/session.h); -1: none */
int track_result_first(const json_t *result, struct track_commit *c);
void track_commit_release(struct track_commit *c);

/*
 * "track status --json" is the state with "counts" and "jobs"; the state
 * and the job names of such a document (what track_print_status() prints):
 * 0, or -1 and err filled
 */
int track_status_from_json(const json_t *j, struct track_state *st, char ***jobs, size_t *njobs,
			   char *err, size_t errlen);

/* lookups and additions (state.c): NULL when there is none */
struct track_point *track_state_point(struct track_state *st, const char *id);
struct track_slot *track_point_slot(struct track_point *pt, const char *job);
/* the slot of job in pt, added (empty) when there is none */
struct track_slot *track_point_slot_add(struct track_point *pt, const char *job);
struct track_confirmation *track_state_confirm(struct track_state *st, const char *key);
struct track_confirmation *track_state_confirm_add(struct track_state *st, const char *key);
struct track_bisection *track_state_bisect(struct track_state *st, const char *key);
struct track_bisection *track_state_bisect_add(struct track_state *st, const char *key);
void track_analysis_release(struct track_analysis *a);
void track_tests_release(struct track_test *tests, size_t n);

#endif
