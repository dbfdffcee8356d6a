// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_regex - lab/lib/regex_safe.c: a pattern it lets through must
 * compile in bounded time and memory (libFuzzer's -timeout and
 * -rss_limit_mb catch one that does not), and match a few short lines.
 * fuzz-options: -max_len=2048
 */
#include <regex.h>

#include "fuzz.h"
#include "lib/regex_safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const lines[] = {
		"[   12.345678] WARNING: CPU: 1 PID: 77 at mm/compaction.c:1234 foo+0x12/0x34",
		"BUG: kernel NULL pointer dereference, address: 0000000000000008",
		"elapsed_s 1.25",
		"",
	};
	char *pattern = fuzz_cstr(data, size), why[256];
	regex_t re;

	if (regex_compile_safe(&re, pattern, REG_EXTENDED | (size & 1 ? REG_NOSUB : 0), why,
			       sizeof(why)) == 0) {
		regmatch_t m[4];

		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			regexec(&re, lines[i], 4, m, 0);
		regfree(&re);
	} else if (!why[0]) {
		abort(); /* a refusal always says why */
	}
	free(pattern);
	return 0;
}
