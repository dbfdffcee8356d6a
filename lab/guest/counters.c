// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - parse counter files from the guest and take their deltas.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "guest/counters.h"
#include "lib/util.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-' || c == '(' || c == ')';
}

static bool name_ok(const char *s, size_t len)
{
	if (!len || len >= COUNTERS_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

/*
 * FNV-1a from a basis drawn once per process, then mixed (murmur3's
 * finaliser): the table uses the low bits, and with a fixed hash a guest
 * could send 4096 names that share them, making each snapshot cost 4096^2
 * comparisons.
 */
static size_t hash(const char *name, size_t len)
{
	static uint64_t basis;
	uint64_t h;

	if (!basis) {
		if (getrandom(&basis, sizeof(basis), GRND_NONBLOCK) != (ssize_t)sizeof(basis))
			basis = (uint64_t)(uintptr_t)&basis ^ (uint64_t)time(NULL);
		basis |= 1;
	}
	h = basis;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (size_t)h;
}

/* the slot of name in the index: its entry, or the empty slot to use */
static size_t *slot(const struct counters *s, const char *name, size_t len)
{
	size_t mask = s->index_size - 1, i = hash(name, len) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *e = &s->index[i];
		const char *n;

		if (!*e)
			return e;
		n = s->v[*e - 1].name;
		if (!strncmp(n, name, len) && !n[len])
			return e;
	}
}

static void rehash(struct counters *s)
{
	free(s->index);
	s->index_size = s->index_size ? s->index_size * 2 : 128;
	s->index = xcalloc(s->index_size, sizeof(*s->index));
	for (size_t i = 0; i < s->n; i++)
		*slot(s, s->v[i].name, strlen(s->v[i].name)) = i + 1;
}

static void add(struct counters *s, const char *name, size_t len, int64_t v)
{
	size_t *e;

	if (!s->index)
		rehash(s);
	e = slot(s, name, len);
	if (*e)
		return; /* the first occurrence wins */
	if (s->n >= COUNTERS_MAX_ENTRIES) {
		s->skipped++;
		return;
	}
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 64;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n].name = xstrndup(name, len);
	s->v[s->n].value = v;
	*e = ++s->n;
	if (s->n * 2 > s->index_size) /* keep the table at most half full */
		rehash(s);
}

/* a whole token as a signed decimal int64; false if not one or too big */
static bool parse_i64(const char *s, size_t len, int64_t *out)
{
	char buf[32], *end;
	long long v;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!((buf[0] >= '0' && buf[0] <= '9') ||
	      (buf[0] == '-' && buf[1] >= '0' && buf[1] <= '9')))
		return false;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* split [p, end) into at most max whitespace-separated tokens */
static size_t tokens(const char *p, const char *end, const char **tok, size_t *tlen, size_t max)
{
	size_t n = 0;

	while (p < end) {
		const char *t;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			break;
		t = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (n == max)
			return max + 1;
		tok[n] = t;
		tlen[n] = (size_t)(p - t);
		n++;
	}
	return n;
}

typedef size_t (*line_fn)(const char *line, const char *end, struct counters *out);

static size_t each_line(const char *text, size_t len, struct counters *out, line_fn fn)
{
	const char *p, *end;
	size_t added = 0;

	if (!text)
		return 0;
	p = text;
	end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t got;

		if (le > p) {
			got = fn(p, le, out);
			if (got == (size_t)-1)
				out->skipped++;
			else
				added += got;
		}
		p = nl ? nl + 1 : end;
	}
	return added;
}

static size_t kv_line(const char *line, const char *end, struct counters *out)
{
	const char *tok[3];
	size_t tlen[3];
	int64_t v;

	if (tokens(line, end, tok, tlen, 2) != 2 || !name_ok(tok[0], tlen[0]) ||
	    !parse_i64(tok[1], tlen[1], &v))
		return (size_t)-1;
	add(out, tok[0], tlen[0], v);
	return 1;
}

size_t counters_parse_kv(const char *text, size_t len, struct counters *out)
{
	return each_line(text, len, out, kv_line);
}

/* "Node 0 MemTotal:  123 kB" (the unit is optional: HugePages_Total has none) */
static size_t meminfo_line(const char *line, const char *end, struct counters *out)
{
	const char *tok[6];
	size_t tlen[6], n = tokens(line, end, tok, tlen, 5);
	int64_t v;

	if (n < 4 || n > 5 || tlen[0] != 4 || memcmp(tok[0], "Node", 4) || tlen[2] < 2 ||
	    tok[2][tlen[2] - 1] != ':' || !name_ok(tok[2], tlen[2] - 1) ||
	    !parse_i64(tok[3], tlen[3], &v))
		return (size_t)-1;
	add(out, tok[2], tlen[2] - 1, v);
	return 1;
}

size_t counters_parse_node_meminfo(const char *text, size_t len, struct counters *out)
{
	return each_line(text, len, out, meminfo_line);
}

#define BUDDY_MAX_ORDER 16

/* "Node 0, zone   Normal      1      2 ..." */
static size_t buddy_line(const char *line, const char *end, struct counters *out)
{
	const char *tok[BUDDY_MAX_ORDER + 5];
	size_t tlen[BUDDY_MAX_ORDER + 5], added = 0;
	size_t n = tokens(line, end, tok, tlen, BUDDY_MAX_ORDER + 4);
	int64_t node, v;
	char name[COUNTERS_NAME_MAX];

	if (n < 5 || n > BUDDY_MAX_ORDER + 4 || tlen[0] != 4 || memcmp(tok[0], "Node", 4) ||
	    tlen[1] < 2 || tok[1][tlen[1] - 1] != ',' || !parse_i64(tok[1], tlen[1] - 1, &node) ||
	    node < 0 || tlen[2] != 4 || memcmp(tok[2], "zone", 4) || !name_ok(tok[3], tlen[3]) ||
	    tlen[3] > 32)
		return (size_t)-1;
	for (size_t i = 4; i < n; i++) {
		int len;

		if (!parse_i64(tok[i], tlen[i], &v))
			return added ? added : (size_t)-1;
		len = snprintf(name, sizeof(name), "node%lld.%.*s.order%zu", (long long)node,
			       (int)tlen[3], tok[3], i - 4);
		add(out, name, (size_t)len, v);
		added++;
	}
	return added;
}

size_t counters_parse_buddyinfo(const char *text, size_t len, struct counters *out)
{
	return each_line(text, len, out, buddy_line);
}

const int64_t *counters_get(const struct counters *s, const char *name)
{
	size_t *e;

	if (!s->index)
		return NULL;
	e = slot(s, name, strlen(name));
	return *e ? &s->v[*e - 1].value : NULL;
}

size_t counters_delta(const struct counters *before, const struct counters *after,
		      struct counters *out)
{
	for (size_t i = 0; i < after->n; i++) {
		const int64_t *b = counters_get(before, after->v[i].name);
		int64_t d;

		if (!b || __builtin_sub_overflow(after->v[i].value, *b, &d))
			continue;
		add(out, after->v[i].name, strlen(after->v[i].name), d);
	}
	return out->n;
}

void counters_free(struct counters *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	free(s->index);
	memset(s, 0, sizeof(*s));
}
