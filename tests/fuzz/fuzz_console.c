// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_console - the console log as the host classifies it
 * (lab/guest/console.c): the crash excerpt, the tail, the text made safe
 * for JSON, which must read back as JSON.
 * fuzz-options: -max_len=65536
 */
#include <jansson.h>

#include "fuzz.h"
#include "guest/console.h"

static void to_json(const char *s, size_t len)
{
	json_t *j = console_json_text(s, len);
	char *text = json_dumps(j, JSON_ENCODE_ANY);
	json_t *back = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;

	if (!j || !text || !back)
		abort(); /* iteration.json must hold it and read back */
	json_decref(back);
	free(text);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char *excerpt = console_crash_excerpt(text, size);
	char *tail = console_tail(text, size, CONSOLE_TAIL_MAX);

	if (excerpt) {
		if (strlen(excerpt) > CONSOLE_EXCERPT_MAX)
			abort();
		to_json(excerpt, strlen(excerpt));
	}
	to_json(tail, strlen(tail));
	to_json(text, size);
	free(excerpt);
	free(tail);
	return 0;
}
