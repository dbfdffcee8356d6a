/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - inside the job loader only (lab/job/): the parse in progress and
 * what the section parsers share. Code outside lab/job/ uses job.h, and a
 * format with more keys (the repro recipes) uses job_yaml.h.
 *
 *	job.c             libyaml's two passes, the top-level mapping, the
 *	                  extension hook, job_load*() and job_free()
 *	job_yaml.c        walking the node tree and the FILE:LINE:COLUMN
 *	                  errors (job_yaml.h, plus the helpers below)
 *	parse_topology.c  topology:
 *	parse_hmat.c      topology.hmat (HMAT latency and bandwidth)
 *	topo_layout.c     the guest-physical memory layout of a topology
 *	parse_variants.c  variants: and kernels:
 *	parse_workload.c  workload: and its params
 *	parse_own.c       a command workload's keys (job_own.h)
 *	parse_metrics.c   its metrics: extractors
 *	parse_mmtests.c   workload.mmtests: an mmtests config (job_mmtests.h)
 *	parse_guest.c     image:, collect_files:, collectors:, timeouts:
 *
 * Every section parser reports through job_yaml_err() and goes on after an
 * error, so one load shows every mistake.
 */
#ifndef MMLAB_JOB_PARSE_H
#define MMLAB_JOB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "job/job.h"
#include "job/job_yaml.h"

#define JOB_MAX_CPUS 256
#define JOB_MAX_LIST 64 /* entries of a list value */
#define PATHLEN 160 /* field paths in messages */
#define SHOWLEN 48 /* user text quoted in messages */

struct job_yaml {
	const char *file; /* the name in messages */
	yaml_document_t *doc; /* while the node tree is walked */
	unsigned int nerr;
	uint64_t total_mem; /* bytes; 0 while the topology is invalid */
	const struct job_ext *ext; /* extra top-level keys, or NULL */
};

/* user text made safe to quote in a message: printable, bounded */
const char *job_show(char buf[SHOWLEN], const char *s);
/* "path.key" and "path[i]", cut short to fit: they only label messages */
const char *job_pkey(char buf[PATHLEN], const char *path, const char *key);
const char *job_pidx(char buf[PATHLEN], const char *path, size_t i);
/* words (NULL-terminated) joined by sep into buf, cut short to fit */
const char *job_join(char *buf, size_t len, const char *const *words, const char *sep);

/* v (the text at mark m) as an integer in [min, max], or false after an error */
bool job_yaml_text_uint(struct job_yaml *y, yaml_mark_t m, const char *path, const char *v,
			unsigned long long min, unsigned long long max, unsigned long long *out);
bool job_yaml_uint64(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned long long min,
		     unsigned long long max, unsigned long long *out);
/* a size such as 512M, in bytes */
bool job_yaml_size(struct job_yaml *y, yaml_node_t *n, const char *path, uint64_t *bytes);
/* bare seconds or a number with an s, m or h suffix; 1s..max seconds */
bool job_yaml_duration(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned int max,
		       unsigned int *out);
/* a job or variant name (JOB_NAME_MAX of [A-Za-z0-9._-]), malloc'd, or NULL */
char *job_yaml_name(struct job_yaml *y, yaml_node_t *n, const char *path);
/* a string or a list of 1..JOB_MAX_LIST non-empty strings into out (paths if dir) */
void job_yaml_str_list(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want,
		       const char *dir, struct strlist *out);

/* the sections, each given its value node */
void job_parse_topology(struct job_yaml *y, yaml_node_t *n, struct job_topology *t);
/* topology.hmat; nodes_ok: the nodes parsed, so entries can be checked against them */
void job_parse_hmat(struct job_yaml *y, yaml_node_t *n, struct job_topology *t, bool nodes_ok);
void job_parse_variants(struct job_yaml *y, yaml_node_t *n, struct job *job);
void job_parse_kernels(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_kernels *k);
void job_parse_workload(struct job_yaml *y, yaml_node_t *n, const char *dir,
			struct job_workload *w);
/* the keys of workload:, as job_parse_workload() fills them for job_parse_own() */
enum {
	W_NAME,
	W_PARAMS,
	W_COMMAND,
	W_FILES,
	W_BUILD,
	W_METRICS,
	W_TIMEOUT,
	W_PHASE,
	W_MODULE,
	W_MMTESTS,
	W_N
};
void job_parse_own(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *dir,
		   struct job_workload *w);
/* workload.mmtests (parse_mmtests.c): also fills w->own, the command that runs it */
void job_parse_mmtests(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *dir,
		       struct job_workload *w);
void job_check_mmtests(struct job_yaml *y, struct job *job);
/* a list of Debian package names (image.packages and the like) */
void job_parse_packages(struct job_yaml *y, yaml_node_t *n, const char *path, struct strlist *out);
void job_parse_metrics(struct job_yaml *y, yaml_node_t *n, struct job_workload *w);
/* after every section: what a command workload asks of the rest of the job */
void job_check_own(struct job_yaml *y, struct job *job);
void job_parse_collectors(struct job_yaml *y, yaml_node_t *n, struct job_collectors *jc);
void job_parse_timeouts(struct job_yaml *y, yaml_node_t *n, struct job_timeouts *t);
void job_parse_image(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_image *im);
void job_parse_collect(struct job_yaml *y, yaml_node_t *n, struct strlist *out);

#endif
