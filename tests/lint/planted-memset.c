// SPDX-License-Identifier: GPL-2.0
/*
 * planted-memset.c - a known bug for the linter's own test (tests/lint/run):
 * memset's length and fill swapped, so nothing is cleared (clang-tidy's
 * bugprone-*). Not part of the build or of the linted tree.
 *
 * lint-expect: clang-tidy bugprone-suspicious-memset-usage
 */
#include <string.h>

struct planted {
	char name[32];
	unsigned int n;
};

void planted_clear(struct planted *p);

void planted_clear(struct planted *p)
{
	memset(p, sizeof(*p), 0); /* the bug: arguments swapped */
}
