/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job_yaml.h - for files in the job format with more top-level keys (the
 * repro recipes of lab/repro/recipe.c): job.c parses the job keys and hands each
 * extra key's YAML node to the caller, who checks it with these helpers
 * (job_yaml.c, the same ones the job's own sections use) so
 * that every problem is reported like the job's own, as
 * "FILE:LINE:COLUMN: error: FIELD: what; what is allowed", and counted.
 *
 * The nodes live only during the callbacks; keep marks, not nodes.
 */
#ifndef MMLAB_JOB_YAML_H
#define MMLAB_JOB_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "job/job.h"

struct job_yaml; /* the parse in progress */

/* one key of a mapping with a fixed set of keys */
struct job_field {
	const char *key;
	yaml_node_t *key_node; /* NULL when not given */
	yaml_node_t *val;
};

/* one error at mark m; path names the field ("expect[2].op") */
void job_yaml_err(struct job_yaml *y, yaml_mark_t m, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
unsigned int job_yaml_errors(struct job_yaml *y);

yaml_node_t *job_yaml_node(struct job_yaml *y, int id);
bool job_yaml_is_null(const yaml_node_t *n);
const char *job_yaml_kind(const yaml_node_t *n); /* "a list", "a scalar", ... */
size_t job_yaml_seq_len(const yaml_node_t *n);
yaml_node_t *job_yaml_seq_item(struct job_yaml *y, const yaml_node_t *n, size_t i);

/* the scalar's text, or NULL after an error saying want was expected */
const char *job_yaml_scalar(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want);
bool job_yaml_uint(struct job_yaml *y, yaml_node_t *n, const char *path, unsigned int min,
		   unsigned int max, unsigned int *out);
/* index in choices (NULL-terminated), or -1 after an error */
int job_yaml_enum(struct job_yaml *y, yaml_node_t *n, const char *path, const char *const *choices);
/*
 * Fill f[0..nf) (any number of keys; each field's key_node and val start
 * NULL) from mapping n; unknown, duplicate and non-scalar keys are errors at
 * their mark. false after an error when n is not a mapping.
 */
bool job_yaml_map(struct job_yaml *y, yaml_node_t *n, const char *path, const char *want,
		  struct job_field *f, size_t nf);
void job_yaml_missing(struct job_yaml *y, yaml_node_t *map, const char *path, const char *key,
		      const char *example);

#endif
