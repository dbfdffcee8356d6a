/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h - a comparison of variants: samples per metric and variant
 * (from run JSON or a samples CSV), derived metrics, statistics against a
 * baseline, and the output formats. docs/compare.md is the reference.
 *
 * Use: cmp_new(); cmp_add_run()/cmp_add_samples_csv() one or more times;
 * cmp_add_derived() for user formulas; cmp_compute(); cmp_write();
 * cmp_free().
 */
#ifndef MMLAB_COMPARE_H
#define MMLAB_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/metrics_dir.h"
#include "analysis/stats.h"
#include "store/iteration_record.h"
#include "store/run_data.h"
#include "lib/util.h"

enum cmp_format { CMP_TEXT, CMP_MARKDOWN, CMP_CSV, CMP_JSON, CMP_HTML };

/* one ok iteration's 1 Hz time series, for the report */
struct cmp_series {
	struct iter_timeseries ts; /* ts.interval_s > 0: 1 when the run did not say */
	double elapsed_s; /* the iteration's time.elapsed_s, NaN when unknown */
};

/* a variant's kernel and settings as the report names them (runinfo_json.c) */
struct cmp_setup {
	char *ksource, *kbase, *kpath; /* the kernel's source, base_commit, path; NULL */
	struct strlist kops; /* its operations, "<op> <arg>" ("?" for a part missing) */
	char *cmdline; /* the job's for the variant, NULL when none */
	json_t *thp, *sysctl; /* the job's maps for the variant (objects, owned), or NULL */
};

/* a node of a run's topology: its CPUs and MiB (-1 unknown) */
struct cmp_node {
	long long cpus, mib;
};

/* a row of the topology's distances */
struct cmp_dist_row {
	long long *v;
	size_t n;
};

/* a direction the job declared for the metrics of a command workload */
struct cmp_dir_decl {
	char *pattern; /* fnmatch pattern of full metric names */
	enum metric_dir dir;
};

/* what the report's header says about a run, and what the run's job adds (runinfo_json.c) */
struct cmp_runinfo {
	char *run, *job, *created; /* NULL when not recorded */
	bool has_host;
	char *accel, *accel_reason, *qemu, *libvirt, *hostname, *cpu; /* the host's; NULL */
	long long cpus; /* the host's online CPUs, 0 unknown */
	char *order_mode; /* "random", "sequential"; NULL: no order recorded */
	long long seed;
	struct strlist sequence;
	/* the job (job_resolved) */
	char *job_accel; /* the accelerator the job asked for, or NULL */
	char *workload; /* its name, NULL: a command */
	json_t *params; /* the workload's parameters (an object, owned), or NULL */
	bool has_iterations;
	long long iterations, iterations_per_boot;
	char *image_kind; /* NULL: not recorded */
	struct cmp_node *nodes;
	size_t nnodes;
	struct cmp_dist_row *dist;
	size_t ndist;
	struct cmp_dir_decl *dirs; /* in the job's order: a later one wins */
	size_t ndirs;
	json_t *derived; /* the job's formulas, name -> expression (an object, owned), or NULL */
};

struct cmp_variant {
	char *name; /* label: unique; "<name>.r<k>" if run k repeats a name */
	char *run; /* run id, NULL for samples CSV */
	char *kernel; /* kernel release, or NULL */
	size_t niter; /* samples (ok iterations) */
	struct kvlist config; /* what must match for a fair comparison */
	struct cmp_setup setup; /* its kernel and settings, for the report */
	struct cmp_series *ts; /* per ok iteration that has a time series */
	size_t nts;
};

/* one metric in one variant */
struct cmp_cell {
	double *v; /* v[i] = sample of iteration i; NaN = missing */
	size_t n, alloc;
	struct stats_summary s;
	struct stats_test t; /* against the baseline; !t.valid for it */
	double q; /* Benjamini-Hochberg adjusted p */
	double pct; /* change in percent, positive = better */
	double ci_low, ci_high; /* 95 % CI of pct, same orientation */
	bool significant;
};

struct cmp_metric {
	char *name;
	enum metric_dir dir;
	enum metric_kind kind;
	char *formula; /* derived metrics: the expression */
	enum metric_group group; /* where the evidence tables show it */
	bool constant; /* one value in every sample of every variant */
	bool hmean; /* mean row shows the harmonic mean (Hmean) */
	struct cmp_cell *cells; /* one per variant */
};

/*
 * Limits of one comparison (the inputs are samples CSV files and stored
 * runs, which anyone may have written): every metric keeps a cell per
 * variant, so their product is bounded too. Past one, loading fails with
 * a message.
 */
#define CMP_MAX_VARIANTS 64
#define CMP_MAX_METRICS 100000
#define CMP_MAX_CELLS 200000 /* variants x metrics, about 200 bytes each */
#define CMP_MAX_DERIVED 256 /* user formulas */

struct comparison {
	struct cmp_variant *vars;
	size_t nvars;
	struct cmp_metric *metrics;
	json_t *metric_index; /* name -> position in metrics */
	size_t nmetrics, alloc;
	size_t hint; /* metric_find() tries hint + 1 first */
	size_t baseline;
	double alpha;
	double effect; /* --power: relative effect, 0 = not asked */
	struct kvlist derived; /* user formulas: name -> expression */
	struct strlist runs;
	struct cmp_runinfo *runinfo; /* per run added (cmp_add_run()): its facts */
	size_t nruninfo;
	struct strlist warnings;
	struct strlist notes;
};

struct comparison *cmp_new(void);
void cmp_free(struct comparison *c);

/* add the variants of one run (store_run_load(), run_data_from_json()) */
int cmp_add_run(struct comparison *c, const struct run_data *run);
/* add samples: CSV rows variant,metric,value[,direction]; header optional */
int cmp_add_samples_csv(struct comparison *c, const char *path);
int cmp_add_samples_buf(struct comparison *c, const char *name, const char *buf);
/* a user-defined derived metric; the expression is checked for syntax */
int cmp_add_derived(struct comparison *c, const char *name, const char *expr);

/*
 * Derive metrics, keep those matching globs (comma-separated fnmatch
 * patterns; NULL = the default set, see docs/compare.md), run the tests
 * against baseline (a variant label or name; NULL = the first variant) and
 * apply Benjamini-Hochberg. -1 after a message on bad input.
 */
int cmp_compute(struct comparison *c, const char *baseline, double alpha, const char *globs);

int cmp_write(const struct comparison *c, enum cmp_format fmt, FILE *out);
/* iterations needed per metric for a relative effect (0.02 = 2 %) */
int cmp_write_power(const struct comparison *c, double effect, enum cmp_format fmt, FILE *out);
/* self-contained HTML with SVG box plots and time series (report_html.c) */
int cmp_write_html(const struct comparison *c, FILE *out);

int cmp_parse_format(const char *s, enum cmp_format *fmt);

/* ---- runinfo_json.c: what a run's JSON parts (its job, kernels) give ---- */

/* ri from run: the record's facts and its job's (job_resolved) */
void cmp_runinfo_read(struct cmp_runinfo *ri, const struct run_data *run);
void cmp_runinfo_release(struct cmp_runinfo *ri);
/*
 * variant i of run (run->rec.variants[i]): its kernel and job settings into
 * v->setup, what must match between variants into v->config
 */
void cmp_variant_read(struct cmp_variant *v, const struct run_data *run, size_t i);
void cmp_setup_release(struct cmp_setup *s);

/* helpers shared with report_html.c */
/* percent change of new against base, positive = better; NaN if base is 0 */
double cmp_pct(double base, double new, enum metric_dir dir);
const char *cmp_mean_label(const struct cmp_metric *m);
double cmp_mean_value(const struct cmp_metric *m, const struct cmp_cell *cell);

#endif
