/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the libFuzzer targets of tests/fuzz/ share (README.md).
 * A target is one file fuzz_<name>.c defining LLVMFuzzerTestOneInput();
 * it calls mmlab's own parser, linked from build/fuzz/liblab.a.
 */
#ifndef MMLAB_FUZZ_H
#define MMLAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the input as a NUL-terminated string (malloc'd; a NUL in it ends it early) */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* /dev/null to write outputs to, opened once */
static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

#endif
