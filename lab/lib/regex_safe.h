/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex_safe.h - POSIX extended regular expressions from untrusted or
 * user-given text, compiled under limits that keep both the compiled
 * program and a match bounded: the pattern's length, no back-references
 * (the one ERE feature whose matching is exponential in glibc), counted
 * repetition {m,n} with n at most REGEX_SAFE_MAX_REPEAT, never nested in
 * another counted repetition, and never copying more than
 * REGEX_SAFE_MAX_COPY bytes of pattern (glibc expands {m,n} into copies).
 *
 * One helper for every regex the lab compiles from a job, a recipe or a
 * command line: the extractors of a command workload (lab/guest/extract.c,
 * checked when the job loads) and the recipes' dmesg expectations.
 * Matching stays the caller's to bound: match bounded text (one line at a
 * time), a bounded number of times.
 */
#ifndef MMLAB_REGEX_SAFE_H
#define MMLAB_REGEX_SAFE_H

#include <regex.h>
#include <stddef.h>

#define REGEX_SAFE_MAX_LEN 512
#define REGEX_SAFE_MAX_REPEAT 255
#define REGEX_SAFE_MAX_COPY 8192

/*
 * Check pattern against the limits above, then regcomp() it with
 * REG_EXTENDED | cflags. 0, or -1 with the reason in err (nothing to free).
 */
int regex_safe_compile(regex_t *re, const char *pattern, int cflags, char *err, size_t errlen);
/* only the checks; 0, or -1 with the reason in err */
int regex_safe_check(const char *pattern, char *err, size_t errlen);

#endif
