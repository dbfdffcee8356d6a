/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rewrite.h - a job derived from a job file's text: its name, iterations
 * and variants replaced, each new variant taking the settings of one of the
 * file's variants with some of them replaced or amended. The engines that
 * measure one kernel of a series write such a job (bisect: a commit; track:
 * a point of the series, and the two points around a change, together).
 * The text stays the user's YAML, so the derived job is loaded, checked
 * and stored like the job file itself (with the file's directory for its
 * relative paths).
 */
#ifndef MMLAB_JOB_REWRITE_H
#define MMLAB_JOB_REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* one variant of the derived job */
struct job_rewrite_variant {
	const char *name;
	size_t from; /* the job file's variant (0-based) whose settings it keeps */
	/*
	 * What changes, a JSON object (borrowed) of any of:
	 *   "kernel": a string or an object, as a job's kernel:
	 *   "ref": a string (built from kernels.tree)
	 *   "cmdline": a string, appended to the variant's
	 *   "sysctl": an object of strings or numbers, merged over the variant's
	 *   "thp": an object {"enabled", "defrag"}, merged over the variant's
	 * The variant's kernel: and ref: are dropped when either is given;
	 * with drop_ops its revert:, cherry_pick: and apply: are dropped too.
	 */
	const json_t *set;
	bool drop_ops;
};

/*
 * A variant's set as rewrite.c uses it, read by job_rewrite_set_read()
 * (rewrite_json.c); the fields borrow from the JSON.
 */
struct job_rewrite_set {
	const json_t *kernel, *ref; /* NULL when absent */
	const json_t *sysctl, *thp; /* NULL when absent or not an object */
	const char *cmdline; /* NULL when absent or not a string */
	/* the key is there, of any type: the variant's own is not kept */
	bool has_sysctl, has_thp, has_cmdline;
};
void job_rewrite_set_read(const json_t *set, struct job_rewrite_set *s);

struct job_rewrite {
	const char *name; /* the derived job's name */
	const struct job_rewrite_variant *variants;
	size_t nvariants;
	const char *tree; /* kernels.tree, or NULL: the job file's */
	const json_t *config; /* kernels.config ({"base", "fragments"}), or NULL */
	unsigned int iterations; /* 0: the job file's */
	unsigned int per_boot; /* iterations_per_boot; 0: the job file's */
};

/*
 * The derived job's YAML (malloc'd), or NULL with a message in err when the
 * text is not a job-shaped YAML mapping or names no such variant.
 */
char *job_rewrite_yaml(const char *text, size_t len, const struct job_rewrite *rw, char *err,
		       size_t errlen);

#endif
