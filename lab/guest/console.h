/* SPDX-License-Identifier: GPL-2.0 */
/*
 * console.h - the guest's console log (ttyS0) as the host reads it: the
 * lines around a crash, the tail of the log, and any of its text made
 * safe for JSON. The log is untrusted: the kernel writes it, and so can
 * anything in the guest that opens the console; it may hold NUL bytes,
 * control characters and invalid UTF-8.
 */
#ifndef MMLAB_GUEST_CONSOLE_H
#define MMLAB_GUEST_CONSOLE_H

#include <stddef.h>

#include <jansson.h>

#define CONSOLE_EXCERPT_MAX 8192 /* bytes of the crash excerpt */
#define CONSOLE_TAIL_MAX 2048 /* bytes of the tail kept when an iteration fails */

/*
 * The console lines around the first sign of a crash (Kernel panic,
 * Oops:, BUG:, ...): 6 lines before, 30 after, at most
 * CONSOLE_EXCERPT_MAX bytes; NULL when there is none. (malloc'd)
 */
char *console_crash_excerpt(const char *text, size_t len);

/* the last max bytes of the log (malloc'd, NUL-terminated) */
char *console_tail(const char *text, size_t len, size_t max);

/*
 * text[0..len) as a JSON string, never NULL: valid UTF-8 is kept, each
 * byte of an invalid sequence becomes U+FFFD, and control characters but
 * newline and tab become '?'. (jansson refuses invalid UTF-8: the crash
 * excerpt and the console tail used to vanish from iteration.json.)
 * Returns a new reference.
 */
json_t *console_json_text(const char *text, size_t len);

#endif
