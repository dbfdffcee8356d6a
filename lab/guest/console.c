// SPDX-License-Identifier: GPL-2.0
/*
 * console.c - reading the guest's console log (console.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "guest/console.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static const char *const panic_marks[] = {
	"Kernel panic",	 "Oops:",
	"BUG:",		 "general protection fault",
	"kernel BUG at", "Unable to handle kernel",
};

/* text[0..len) NUL-terminated, a NUL in it shown as '?' (malloc'd) */
static char *copy_text(const char *text, size_t len)
{
	char *s = xmalloc(len + 1);

	for (size_t i = 0; i < len; i++)
		s[i] = text[i] ? text[i] : '?';
	s[len] = '\0';
	return s;
}

char *console_crash_excerpt(const char *text, size_t len)
{
	const char *hit = NULL, *start, *end, *stop = text + len;
	int lines;

	for (size_t i = 0; i < ARRAY_SIZE(panic_marks); i++) {
		size_t ml = strlen(panic_marks[i]), in = len;
		const char *h;

		/* only a mark that starts before the first hit so far matters */
		if (hit && (size_t)(hit - text) + ml < len)
			in = (size_t)(hit - text) + ml;
		h = memmem(text, in, panic_marks[i], ml);

		if (h && (!hit || h < hit))
			hit = h;
	}
	if (!hit)
		return NULL;
	start = hit;
	for (lines = 0; start > text && lines < 6; start--)
		if (start[-1] == '\n')
			lines++;
	end = hit;
	for (lines = 0; end < stop && lines < 30; end++)
		if (*end == '\n')
			lines++;
	if (end - start > CONSOLE_EXCERPT_MAX)
		end = start + CONSOLE_EXCERPT_MAX;
	return copy_text(start, (size_t)(end - start));
}

char *console_tail(const char *text, size_t len, size_t max)
{
	return len > max ? copy_text(text + len - max, max) : copy_text(text, len);
}

/* the length of the valid UTF-8 sequence at s (n bytes left), or 0 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t need;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

json_t *console_json_text(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	strbuf_grow(&sb, len + 1);
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(s + i, len - i);

		if (!k) {
			strbuf_add(&sb, "\xef\xbf\xbd", 3); /* U+FFFD */
			i++;
		} else if (k == 1 &&
			   ((s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)) {
			strbuf_addch(&sb, '?');
			i++;
		} else {
			strbuf_add(&sb, text + i, k);
			i += k;
		}
	}
	j = json_stringn(sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return j ? j : json_string("");
}
