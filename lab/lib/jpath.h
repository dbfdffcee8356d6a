/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jpath.h - a small path language over a JSON tree (jansson), for the
 * metric extractors of command workloads (docs/job-format.md, "metrics"):
 *
 *	metrics[*]          every element of the list under "metrics"
 *	results.latency_us  a key of a key
 *	runs[0].ops         an element by index
 *	stressors.*         every value of a mapping (its key labels it)
 *
 * Keys are non-empty runs of any characters but '.', '[', ']'; "[*]" and
 * "*" match every element of a list (labelled by its index) or every value
 * of a mapping (labelled by its key). The empty path is the document.
 */
#ifndef MMLAB_JPATH_H
#define MMLAB_JPATH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define JPATH_MAX_SEGS 16
#define JPATH_MAX_LEN 256

enum jpath_kind { JPATH_KEY, JPATH_INDEX, JPATH_ANY };

struct jpath_seg {
	enum jpath_kind kind;
	char *key; /* JPATH_KEY */
	size_t index; /* JPATH_INDEX */
};

struct jpath {
	struct jpath_seg seg[JPATH_MAX_SEGS];
	size_t n;
};

/* 0, or -1 with the reason in err (p then holds nothing) */
int jpath_parse(const char *s, struct jpath *p, char *err, size_t errlen);
void jpath_free(struct jpath *p);
bool jpath_has_wildcard(const struct jpath *p);

/*
 * Call fn for each value p selects in root, in document order, with the
 * labels of the wildcards that led there joined by '.' ("" without
 * wildcards), at most max times. Returns how many values were selected
 * (more than max when some were left out).
 */
typedef void (*jpath_fn)(json_t *v, const char *label, void *arg);
size_t jpath_select(const struct jpath *p, json_t *root, size_t max, jpath_fn fn, void *arg);

#endif
