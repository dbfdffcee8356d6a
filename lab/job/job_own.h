/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job_own.h - the user's own workload: a job's "workload:" with a
 * "command:" (an argv list) or a "module:" (an out-of-tree kernel module)
 * instead of a built-in name (docs/job-format.md, "Workload";
 * docs/workloads.md, "Bring your own workload"). Parsed and checked by
 * lab/job/parse_own.c; everything here is resolved: host paths absolute,
 * guest paths relative to the working directory, durations in seconds.
 */
#ifndef MMLAB_JOB_OWN_H
#define MMLAB_JOB_OWN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

#define OWN_MAX_ARGS 64
#define OWN_ARG_MAX 1000 /* bytes of one argument (the plan's line limit) */
#define OWN_MAX_FILES 64
#define OWN_FILE_MAX (256u << 20) /* one file copied into the guest */
#define OWN_MAX_METRICS 64 /* extractors */
#define OWN_MAX_READ 16 /* guest files read back after each iteration */
#define OWN_MAX_SOURCES 64
#define OWN_NAME_MAX 64 /* the workload name: the metric prefix */

enum own_phase {
	OWN_PHASE_WHOLE, /* the whole process is the measured phase */
	OWN_PHASE_HANDSHAKE, /* ready/go/done on fds 3 and 4, as the built-ins */
};

/* where an extractor reads, and how */
enum own_from {
	OWN_FROM_STDOUT, /* text: "name value" lines, or a regex */
	OWN_FROM_STDERR,
	OWN_FROM_DMESG, /* the kernel log of the iteration */
	OWN_FROM_FILE, /* text of a guest file (file:) */
	OWN_FROM_JSON, /* a JSON document: file: or stdout, with path: */
	OWN_FROM_YAML, /* the same in YAML */
};

enum own_dir { OWN_DIR_NEUTRAL, OWN_DIR_LOWER, OWN_DIR_HIGHER };

/* what one metric is when a regex matches several lines */
enum own_reduce {
	OWN_REDUCE_LAST,
	OWN_REDUCE_FIRST,
	OWN_REDUCE_MIN,
	OWN_REDUCE_MAX,
	OWN_REDUCE_MEAN,
	OWN_REDUCE_SUM,
	OWN_REDUCE_COUNT,
};

/*
 * One entry of "metrics:". An extractor (regex, or from json/yaml, or
 * "name value" lines of a text) or, with only name/unit/direction, the
 * declaration of a metric another extractor yields.
 */
struct own_metric {
	char *name; /* metric name; with values: the field naming each element */
	enum own_from from;
	char *regex; /* POSIX ERE with one capture group, or NULL */
	char *file; /* guest path (relative: to the working dir), or NULL */
	int file_index; /* its index in job_own.read, or -1 */
	char *path; /* json/yaml: "metrics[*]", "a.b[0]"; NULL = the document */
	struct strlist values; /* json/yaml: the keys read in each element */
	char *unit; /* or NULL */
	enum own_dir dir;
	enum own_reduce reduce;
	bool declare_only; /* no source: name/unit/direction of another's metric */
};

/* a host file copied into the guest's working directory */
struct own_file {
	char *src; /* absolute host path */
	char *dst; /* relative to the working dir, no ".." */
};

/* build: C sources compiled on the host into one static program */
struct own_build {
	struct strlist sources; /* absolute */
	struct strlist cflags, ldflags;
	char *output; /* the program's name in the working directory */
	unsigned int line, column; /* of build: in the job, for its errors */
};

/* module: an out-of-tree kernel module built per variant */
struct own_module {
	char *src; /* absolute host directory holding its Kbuild or Makefile */
	char *name; /* the .ko's name without .ko */
	struct kvlist params; /* module parameters, in order */
	char *param_text; /* "a=1 b=2", as finit_module() takes them */
};

struct job_own {
	struct strlist argv; /* empty: a module without a command */
	struct own_file *files;
	size_t nfiles;
	bool has_build;
	struct own_build build;
	bool has_module;
	struct own_module module;
	struct own_metric *metrics;
	size_t nmetrics;
	struct strlist read; /* guest files the extractors read, deduplicated */
	bool read_dmesg; /* an extractor reads the kernel log */
	unsigned int timeout_s; /* 0: none but the host's iteration deadline */
	unsigned int timeout_line, timeout_column; /* of timeout:, for later checks */
	enum own_phase phase;
	bool name_given; /* workload.name was given (else argv[0]'s basename) */
};

void job_own_free(struct job_own *o);

/*
 * The full names ("<wl>.<name>") of the metrics an extractor yields, as
 * fnmatch() patterns (malloc'd into out; returns how many): what a
 * direction or unit given with it applies to.
 */
#define OWN_PATTERNS_MAX (2 * JOB_OWN_VALUES_MAX)
#define JOB_OWN_VALUES_MAX 64
size_t own_metric_patterns(const char *wl, const struct own_metric *m, char *out[OWN_PATTERNS_MAX]);

const char *own_from_name(enum own_from f);
const char *own_dir_name(enum own_dir d); /* "lower", "higher", "neutral" */
const char *own_reduce_name(enum own_reduce r);

#endif
