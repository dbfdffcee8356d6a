// SPDX-License-Identifier: GPL-2.0
/*
 * regex_safe.c - measure a POSIX extended regex before regcomp() expands
 * it (regex_safe.h). The walk follows ERE syntax as glibc reads it, and
 * where it is unsure it counts more, never less: a '{' that does not open
 * an interval is a literal, a ')' without '(' is a literal.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/regex_safe.h"

struct rx {
	const char *p;
	int depth;
	int qlevel; /* quantifiers nested in what was just measured */
	bool nullable; /* what was just measured can match the empty string */
	unsigned long weight; /* the quantified pieces so far, each 2^(its nesting) */
	const char *refused; /* why, once refused */
};

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
	return a && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}

static size_t alternation(struct rx *x);

/* skip a bracket expression at x->p ('['); "[]a]" and "[^]a]" hold ']' */
static void bracket(struct rx *x)
{
	const char *p = x->p + 1;

	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *end = strchr(p + 2, p[1]);

			while (end && end[1] != ']')
				end = strchr(end + 1, p[1]);
			p = end ? end + 2 : p + 1;
			continue;
		}
		p++;
	}
	x->p = *p ? p + 1 : p;
}

/* one atom at x->p: its size */
static size_t atom(struct rx *x)
{
	size_t n;

	switch (*x->p) {
	case '(':
		if (++x->depth > REGEX_MAX_DEPTH) {
			_Static_assert(REGEX_MAX_DEPTH == 32, "update the message");
			x->refused = "nests groups more than 32 deep";
			return SIZE_MAX;
		}
		x->p++;
		n = alternation(x); /* sets x->qlevel and x->nullable */
		if (*x->p == ')')
			x->p++;
		x->depth--;
		return sat_add(n, 2);
	case '[':
		x->qlevel = 0;
		x->nullable = false;
		bracket(x);
		return 1;
	case '\\':
		x->qlevel = 0;
		/* glibc's word anchors match the empty string */
		x->nullable = x->p[1] && strchr("bB<>`'", x->p[1]);
		if (x->p[1] >= '1' && x->p[1] <= '9') {
			x->refused = "uses a back-reference (\\1 .. \\9), which can make matching "
				     "take exponential time";
			return SIZE_MAX;
		}
		x->p += x->p[1] ? 2 : 1;
		return 1;
	default:
		x->qlevel = 0;
		x->nullable = *x->p == '^' || *x->p == '$';
		x->p++;
		return 1;
	}
}

/* a decimal number at *pp (saturating); false if there are no digits */
static bool number(const char **pp, size_t *out)
{
	const char *p = *pp;
	size_t v = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		v = sat_add(sat_mul(v, 10), (size_t)(*p - '0'));
	*pp = p;
	*out = v;
	return true;
}

/*
 * An interval "{n}", "{n,}", "{n,m}", "{,m}" or "{,}" at x->p: the copies
 * of the atom it makes (at least 1), or 0 when it is not an interval.
 * glibc reads "{,m}" as "{0,m}", and so "{,}" as "{0,}", a star.
 */
static size_t interval(struct rx *x, size_t *min)
{
	const char *p = x->p + 1;
	size_t lo = 0, hi = 0;
	bool have_lo = number(&p, &lo), comma = false, have_hi = false;

	if (*p == ',') {
		comma = true;
		p++;
		have_hi = number(&p, &hi);
	}
	if (*p != '}' || (!have_lo && !comma))
		return 0;
	x->p = p + 1;
	if (!comma)
		hi = lo;
	else if (!have_hi)
		hi = sat_add(lo, 1); /* n copies and a star */
	if (hi < lo)
		hi = lo;
	*min = lo;
	return hi ? hi : 1;
}

/* one more quantifier over what holds x->qlevel of them; false if too many */
static bool quantifier_nest(struct rx *x)
{
	if (++x->qlevel <= REGEX_MAX_QUANT_NEST)
		return true;
	_Static_assert(REGEX_MAX_QUANT_NEST == 4, "update the message");
	x->refused = "nests quantifiers more than 4 deep (as in ((a+)?)+ or a+?+*), which makes "
		     "compiling it take exponential time";
	return false;
}

/*
 * The quantifiers after an atom of size n: the size of the whole. Each
 * one over an atom that holds quantifiers nests them one deeper
 * (x->qlevel).
 */
static size_t quantified(struct rx *x, size_t n)
{
	for (;;) {
		size_t copies, min;

		if (x->refused)
			return SIZE_MAX;
		if (*x->p && strchr("*?+", *x->p) && !quantifier_nest(x))
			return SIZE_MAX;
		switch (*x->p) {
		case '*':
		case '?':
			n = sat_add(n, 1);
			x->nullable = true;
			x->p++;
			break;
		case '+':
			n = sat_add(sat_mul(n, 2), 1); /* glibc: a+ is aa* */
			x->p++;
			break;
		case '{':
			copies = interval(x, &min);
			if (!copies)
				return n; /* a literal '{': the next atom */
			/*
			 * copies of a part that matches the empty string and
			 * holds a quantifier: glibc's regcomp() computes their
			 * empty-match closures in exponential time ("5?{,3}{63,}"
			 * ran for minutes; "5?{3}{63,}" for 10 ms: a bound that
			 * tells them apart is not known, so both are refused)
			 */
			if (copies > 1 && x->nullable && x->qlevel > 0) {
				x->refused = "repeats a part that can match the empty string and "
					     "holds a quantifier (as in (a?){3} or a*{2,}), which "
					     "makes compiling it take exponential time";
				return SIZE_MAX;
			}
			if (!quantifier_nest(x))
				return SIZE_MAX;
			n = sat_add(sat_mul(n, copies), copies);
			if (!min)
				x->nullable = true;
			break;
		default:
			return n;
		}
	}
}

/*
 * a branch: its size; x->qlevel the deepest quantifier nesting in it,
 * x->nullable whether all of it can match the empty string
 */
static size_t branch(struct rx *x)
{
	size_t n = 0;
	int deepest = 0;
	bool nullable = true;

	while (*x->p && *x->p != '|' && *x->p != ')' && !x->refused) {
		n = sat_add(n, quantified(x, atom(x)));
		if (x->qlevel > deepest)
			deepest = x->qlevel;
		nullable = nullable && x->nullable;
		/*
		 * many quantified parts, each within the nesting limit, add up:
		 * 45 of "]????" took glibc 1.2 s (fuzz_regex)
		 */
		if (x->qlevel > 0 && x->qlevel <= REGEX_MAX_QUANT_NEST)
			x->weight += 1ul << x->qlevel;
		if (x->weight > REGEX_MAX_QUANT_WEIGHT && !x->refused) {
			_Static_assert(REGEX_MAX_QUANT_WEIGHT == 64, "update the message");
			x->refused =
				"has too many quantifiers for their nesting (at most 32 "
				"single ones such as a+, 16 doubled such as a+?, 4 of four such as a+??*), "
				"which makes compiling it slow";
			return SIZE_MAX;
		}
	}
	x->qlevel = deepest;
	x->nullable = nullable;
	return n;
}

static size_t alternation(struct rx *x)
{
	size_t n = branch(x);
	int deepest = x->qlevel;
	bool nullable = x->nullable;

	while (*x->p == '|' && !x->refused) {
		x->p++;
		n = sat_add(sat_add(n, branch(x)), 1);
		if (x->qlevel > deepest)
			deepest = x->qlevel;
		nullable = nullable || x->nullable;
	}
	x->qlevel = deepest;
	x->nullable = nullable;
	return n;
}

size_t regex_size(const char *pattern, char *why, size_t len)
{
	struct rx x = { .p = pattern };
	size_t n = 0;

	if (strnlen(pattern, REGEX_MAX_LEN + 1) > REGEX_MAX_LEN) {
		snprintf(why, len, "is longer than %d bytes", REGEX_MAX_LEN);
		return 0;
	}
	while (*x.p && !x.refused) {
		n = sat_add(n, alternation(&x));
		if (*x.p == ')') { /* unbalanced: regcomp decides; count it */
			x.p++;
			x.qlevel = 0; /* a literal ')' */
			x.nullable = false;
			n = sat_add(n, quantified(&x, 1));
		}
	}
	if (x.refused) {
		snprintf(why, len, "%s", x.refused);
		return 0;
	}
	return n ? n : 1;
}

int regex_compile_safe(regex_t *re, const char *pattern, int cflags, char *why, size_t len)
{
	size_t n;
	int rc;

	if (!(cflags & REG_EXTENDED)) {
		snprintf(why, len, "cannot be checked: only extended regular expressions are");
		return -1;
	}
	n = regex_size(pattern, why, len);
	if (!n)
		return -1;
	if (n > REGEX_MAX_SIZE) {
		snprintf(why, len,
			 "is too complex: it expands to %s%zu positions, at most %d are allowed "
			 "(counted repetition such as {255} copies what it repeats; nest less)",
			 n == SIZE_MAX ? "more than " : "",
			 n == SIZE_MAX ? (size_t)REGEX_MAX_SIZE : n, REGEX_MAX_SIZE);
		return -1;
	}
	rc = regcomp(re, pattern, cflags);
	if (rc) {
		char msg[128];

		regerror(rc, re, msg, sizeof(msg));
		regfree(re);
		snprintf(why, len, "is not a valid regular expression (%s)", msg);
		return -1;
	}
	return 0;
}
