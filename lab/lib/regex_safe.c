// SPDX-License-Identifier: GPL-2.0
/*
 * regex_safe.c - POSIX EREs compiled under limits (see regex_safe.h).
 *
 * The check walks the pattern as ERE syntax: escapes, bracket
 * expressions (with [:class:], [.coll.] and [=equiv=] inside), groups and
 * intervals. It tracks the last atom (a character, a bracket expression
 * or a group) so that an interval knows what it repeats, and for each open
 * group whether an interval occurs inside it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/regex_safe.h"

#define GROUP_DEPTH_MAX 32

struct atom {
	size_t start, end; /* the atom's bytes in the pattern */
	bool counted; /* an interval applies inside it */
};

struct scan {
	const char *p;
	size_t i, len;
	struct atom last; /* end == 0: none yet */
	size_t depth;
	struct atom groups[GROUP_DEPTH_MAX];
	char *err;
	size_t errlen;
};

static int fail(struct scan *s, const char *fmt, size_t at)
{
	snprintf(s->err, s->errlen, fmt, at + 1);
	return -1;
}

/* the index just past the bracket expression starting at s->i */
static int skip_bracket(struct scan *s, size_t *end)
{
	size_t i = s->i + 1;

	if (i < s->len && s->p[i] == '^')
		i++;
	if (i < s->len && s->p[i] == ']')
		i++;
	while (i < s->len && s->p[i] != ']') {
		char c = s->p[i];

		if (c == '[' && i + 1 < s->len &&
		    (s->p[i + 1] == ':' || s->p[i + 1] == '.' || s->p[i + 1] == '=')) {
			const char close[3] = { s->p[i + 1], ']', '\0' };
			const char *e = strstr(s->p + i + 2, close);

			if (!e)
				return fail(
					s,
					"an unterminated [:class:], [.coll.] or [=equiv=] at byte %zu",
					i);
			i = (size_t)(e - s->p) + 2;
			continue;
		}
		i++;
	}
	if (i >= s->len)
		return fail(s, "an unterminated bracket expression at byte %zu", s->i);
	*end = i + 1;
	return 0;
}

/* "{m}", "{m,}" or "{m,n}" at s->i: the largest count; 0 when not an interval */
static unsigned long interval_max(struct scan *s, size_t *end)
{
	const char *q = s->p + s->i + 1;
	char *e;
	unsigned long m, n;

	if (*q < '0' || *q > '9')
		return 0;
	m = strtoul(q, &e, 10);
	n = m;
	if (*e == ',') {
		if (e[1] >= '0' && e[1] <= '9')
			n = strtoul(e + 1, &e, 10);
		else
			e++; /* {m,}: the copies are m, then a star */
	}
	if (*e != '}')
		return 0;
	*end = (size_t)(e - s->p) + 1;
	return n > m ? n : (m ? m : 1);
}

static int on_interval(struct scan *s)
{
	size_t end = 0, copy;
	unsigned long n = interval_max(s, &end);

	if (!n) {
		s->i++; /* regcomp judges a brace that opens no interval */
		return 0;
	}
	if (!s->last.end)
		return fail(s, "a repetition {...} with nothing to repeat at byte %zu", s->i);
	if (s->last.counted)
		return fail(
			s,
			"a counted repetition {...} applied to a group that holds one (byte %zu); nested counted repetition makes the compiled expression huge: write the repetition out or use * and +",
			s->i);
	if (n > REGEX_SAFE_MAX_REPEAT) {
		snprintf(s->err, s->errlen,
			 "a counted repetition of %lu at byte %zu; at most %d allowed (use + or *)",
			 n, s->i + 1, REGEX_SAFE_MAX_REPEAT);
		return -1;
	}
	copy = (s->last.end - s->last.start) * n;
	if (copy > REGEX_SAFE_MAX_COPY) {
		snprintf(
			s->err, s->errlen,
			"the repetition at byte %zu copies %zu bytes of pattern; at most %d allowed",
			s->i + 1, copy, REGEX_SAFE_MAX_COPY);
		return -1;
	}
	s->last.counted = true;
	if (s->depth)
		s->groups[s->depth - 1].counted = true;
	s->i = end;
	return 0;
}

static int on_group(struct scan *s, char c)
{
	if (c == '(') {
		if (s->depth == GROUP_DEPTH_MAX)
			return fail(s, "groups nested more than 32 deep at byte %zu", s->i);
		s->groups[s->depth++] = (struct atom){ .start = s->i };
		s->last.end = 0;
	} else if (s->depth) {
		struct atom g = s->groups[--s->depth];

		g.end = s->i + 1;
		s->last = g;
		if (s->depth && g.counted)
			s->groups[s->depth - 1].counted = true;
	} else {
		s->last = (struct atom){ .start = s->i, .end = s->i + 1 };
	}
	s->i++;
	return 0;
}

static int step(struct scan *s)
{
	char c = s->p[s->i];
	size_t end;

	switch (c) {
	case '\\':
		if (s->i + 1 >= s->len)
			return fail(s, "a trailing backslash at byte %zu", s->i);
		if (s->p[s->i + 1] >= '1' && s->p[s->i + 1] <= '9')
			return fail(
				s,
				"a back-reference at byte %zu; back-references can take exponential time and are not allowed",
				s->i);
		s->last = (struct atom){ .start = s->i, .end = s->i + 2 };
		s->i += 2;
		return 0;
	case '[':
		if (skip_bracket(s, &end))
			return -1;
		s->last = (struct atom){ .start = s->i, .end = end };
		s->i = end;
		return 0;
	case '(':
	case ')':
		return on_group(s, c);
	case '{':
		return on_interval(s);
	case '*':
	case '+':
	case '?':
		s->i++; /* repeats the last atom: it stays the last */
		return 0;
	case '|':
		s->last.end = 0;
		s->i++;
		return 0;
	default:
		s->last = (struct atom){ .start = s->i, .end = s->i + 1 };
		s->i++;
		return 0;
	}
}

int regex_safe_check(const char *pattern, char *err, size_t errlen)
{
	struct scan s = { .p = pattern, .len = strlen(pattern), .err = err, .errlen = errlen };

	if (s.len > REGEX_SAFE_MAX_LEN) {
		snprintf(err, errlen, "the expression is %zu bytes; at most %d allowed", s.len,
			 REGEX_SAFE_MAX_LEN);
		return -1;
	}
	while (s.i < s.len)
		if (step(&s))
			return -1;
	return 0;
}

int regex_safe_compile(regex_t *re, const char *pattern, int cflags, char *err, size_t errlen)
{
	int rc;

	if (regex_safe_check(pattern, err, errlen))
		return -1;
	rc = regcomp(re, pattern, REG_EXTENDED | cflags);
	if (rc) {
		regerror(rc, re, err, errlen);
		return -1;
	}
	return 0;
}
