// SPDX-License-Identifier: GPL-2.0
/*
 * jpath.c - paths over JSON trees (see jpath.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jpath.h"
#include "lib/util.h"

#define LABEL_MAX 512

static int seg_key(struct jpath *p, const char *s, size_t len)
{
	struct jpath_seg *g = &p->seg[p->n++];

	if (len == 1 && *s == '*') {
		g->kind = JPATH_ANY;
		return 0;
	}
	g->kind = JPATH_KEY;
	g->key = xstrndup(s, len);
	return 0;
}

/* "[N]" or "[*]" at s; the bytes it takes, or 0 when malformed */
static size_t seg_bracket(struct jpath *p, const char *s)
{
	struct jpath_seg *g = &p->seg[p->n];
	const char *close = strchr(s, ']');
	char *end;

	if (!close)
		return 0;
	if (close == s + 2 && s[1] == '*') {
		g->kind = JPATH_ANY;
	} else {
		if (s[1] < '0' || s[1] > '9')
			return 0;
		g->kind = JPATH_INDEX;
		g->index = strtoul(s + 1, &end, 10);
		if (end != close || g->index > 1000000)
			return 0;
	}
	p->n++;
	return (size_t)(close - s) + 1;
}

static int bad(struct jpath *p, char *err, size_t errlen, const char *why, size_t at)
{
	snprintf(err, errlen, "%s at character %zu", why, at + 1);
	jpath_free(p);
	return -1;
}

int jpath_parse(const char *s, struct jpath *p, char *err, size_t errlen)
{
	size_t i = 0, len = strlen(s);

	memset(p, 0, sizeof(*p));
	if (len > JPATH_MAX_LEN)
		return bad(p, err, errlen, "the path is too long (at most 256 characters)", 0);
	while (i < len) {
		size_t k, step;

		if (p->n == JPATH_MAX_SEGS)
			return bad(p, err, errlen, "more than 16 steps", i);
		if (s[i] == '[') {
			step = seg_bracket(p, s + i);
			if (!step)
				return bad(p, err, errlen, "expected [N] or [*]", i);
			i += step;
		} else {
			k = strcspn(s + i, ".[]");
			if (!k)
				return bad(p, err, errlen, "an empty key", i);
			for (size_t j = i; j < i + k; j++)
				if ((unsigned char)s[j] < 0x20)
					return bad(p, err, errlen, "a control character", j);
			seg_key(p, s + i, k);
			i += k;
		}
		if (i < len && s[i] == '.') {
			if (++i == len)
				return bad(p, err, errlen, "a path ends with '.'", i - 1);
		} else if (i < len && s[i] != '[') {
			return bad(p, err, errlen, "expected '.' or '['", i);
		}
	}
	return 0;
}

void jpath_free(struct jpath *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->seg[i].key);
	p->n = 0;
}

bool jpath_has_wildcard(const struct jpath *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->seg[i].kind == JPATH_ANY)
			return true;
	return false;
}

struct walk {
	const struct jpath *p;
	size_t max, found;
	jpath_fn fn;
	void *arg;
	char label[LABEL_MAX];
};

static void walk(struct walk *w, json_t *v, size_t depth, size_t lablen);

/* descend into child with "name" added to the label */
static void walk_any(struct walk *w, json_t *child, const char *name, size_t depth, size_t lablen)
{
	int n = snprintf(w->label + lablen, LABEL_MAX - lablen, "%s%s", lablen ? "." : "", name);

	if (n < 0 || (size_t)n >= LABEL_MAX - lablen)
		return; /* a label too long to name a metric */
	walk(w, child, depth + 1, lablen + (size_t)n);
	w->label[lablen] = '\0';
}

static void walk(struct walk *w, json_t *v, size_t depth, size_t lablen)
{
	const struct jpath_seg *g = &w->p->seg[depth];
	const char *key;
	json_t *child;
	char idx[24];
	size_t i;

	if (!v || w->found > w->max)
		return;
	if (depth == w->p->n) {
		if (++w->found <= w->max)
			w->fn(v, w->label, w->arg);
		return;
	}
	if (g->kind == JPATH_KEY) {
		walk(w, json_object_get(v, g->key), depth + 1, lablen);
	} else if (g->kind == JPATH_INDEX) {
		walk(w, json_array_get(v, g->index), depth + 1, lablen);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			snprintf(idx, sizeof(idx), "%zu", i);
			walk_any(w, child, idx, depth, lablen);
		}
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, child)
			walk_any(w, child, key, depth, lablen);
	}
}

size_t jpath_select(const struct jpath *p, json_t *root, size_t max, jpath_fn fn, void *arg)
{
	struct walk w = { .p = p, .max = max, .fn = fn, .arg = arg };

	walk(&w, root, 0, 0);
	return w.found;
}
