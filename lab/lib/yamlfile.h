/* SPDX-License-Identifier: GPL-2.0 */
/*
 * yamlfile.h - a small YAML file (an image recipe) checked against a fixed
 * shape, with libyaml. Every problem is reported as job files report theirs
 * (lab/job/job.c):
 *
 *	FILE:LINE:COLUMN: error: FIELD: what is wrong; what is allowed
 *
 * and counted; checking goes on after an error so one run shows every
 * mistake (up to YF_MAX_ERRORS). The caller walks the tree from the root
 * with the helpers below and prints one summary when yf.nerr is not 0.
 *
 *	struct yfile y;
 *	yaml_node_t *root = yf_load(&y, "images/x.yaml", buf, len);
 *
 *	if (root) ... yf_map(&y, root, "", "a mapping", fields, n) ...
 *	if (y.nerr) ... one lab_err() summary ...
 *	yf_close(&y);
 */
#ifndef MMLAB_YAMLFILE_H
#define MMLAB_YAMLFILE_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#define YF_MAX_ERRORS 20
#define YF_STR_MAX 4096 /* any one scalar */
#define YF_PATHLEN 160 /* field paths in messages */
#define YF_SHOWLEN 48 /* user text quoted in messages */

struct yfile {
	const char *name; /* the file, in messages */
	yaml_document_t doc;
	bool loaded; /* doc holds a document */
	unsigned int nerr;
};

/* one key of a mapping with a fixed set of keys */
struct yfield {
	const char *key;
	yaml_node_t *key_node; /* NULL when not given */
	yaml_node_t *val;
};

/*
 * Parse buf (one YAML document, no aliases) into y. Returns the root node,
 * or NULL after an error (syntax, a second document, an empty file, an
 * alias); y must be closed either way.
 */
yaml_node_t *yf_load(struct yfile *y, const char *name, const char *buf, size_t len);
void yf_close(struct yfile *y);

void yf_err(struct yfile *y, yaml_mark_t m, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "a list", "a scalar", "a mapping", "an empty value" */
const char *yf_kind(const yaml_node_t *n);
bool yf_is_null(const yaml_node_t *n);
size_t yf_seq_len(const yaml_node_t *n);
yaml_node_t *yf_seq_item(struct yfile *y, const yaml_node_t *n, size_t i);
/* user text made safe to quote in a message: printable, bounded */
const char *yf_shown(char buf[YF_SHOWLEN], const char *s);
/* "path[i]" and "path.key" into buf (YF_PATHLEN) */
const char *yf_pidx(char *buf, const char *path, size_t i);
const char *yf_pkey(char *buf, const char *path, const char *key);

/* the scalar's text (one line, at most YF_STR_MAX), or NULL after an error */
const char *yf_scalar(struct yfile *y, yaml_node_t *n, const char *field, const char *want);
/* any scalar text (newlines allowed) up to max bytes, or NULL after an error */
const char *yf_text(struct yfile *y, yaml_node_t *n, const char *field, size_t max, size_t *len);
bool yf_uint(struct yfile *y, yaml_node_t *n, const char *field, unsigned long long min,
	     unsigned long long max, unsigned long long *out);
/* index in choices (NULL-terminated), or -1 after an error */
int yf_enum(struct yfile *y, yaml_node_t *n, const char *field, const char *const *choices);
/*
 * Fill f[0..nf) (nf < 16) from mapping n: unknown and duplicate keys are
 * errors. false after an error when n is not a mapping.
 */
bool yf_map(struct yfile *y, yaml_node_t *n, const char *field, const char *want, struct yfield *f,
	    size_t nf);
void yf_missing(struct yfile *y, yaml_node_t *map, const char *field, const char *key,
		const char *example);
/* a list of at most max items, or false after an error */
bool yf_seq(struct yfile *y, yaml_node_t *n, const char *field, const char *example, size_t max);

#endif
