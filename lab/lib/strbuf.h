/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strbuf.h - a growable, always NUL-terminated string, in the spirit of
 * git's strbuf: appending is amortised O(1), so joining n pieces costs
 * O(total length), not O(n * length) as repeated xasprintf("%s%s") does.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *
 *	strbuf_addf(&sb, "%s=%u", key, n);
 *	use(sb.buf);			(never NULL, "" while empty)
 *	free(strbuf_detach(&sb));	or strbuf_release(&sb)
 *
 * Allocation failures abort with a message, like xmalloc().
 */
#ifndef MMLAB_STRBUF_H
#define MMLAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc; /* 0: buf is the shared empty string */
	size_t len;
	char *buf;
};

extern char strbuf_empty[];
/* clang-format off */
#define STRBUF_INIT { .alloc = 0, .len = 0, .buf = strbuf_empty }
/* clang-format on */

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* the string, malloc'd (never NULL); sb is empty afterwards */
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* room for extra more bytes (plus the NUL) */
void strbuf_grow(struct strbuf *sb, size_t extra);

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* append s, preceded by sep unless sb is empty ("a, b, c" joins) */
void strbuf_addsep(struct strbuf *sb, const char *sep, const char *s);

struct strlist;
/* the strings joined by sep, malloc'd ("" for none) */
char *strlist_join(const struct strlist *l, const char *sep);

#endif
