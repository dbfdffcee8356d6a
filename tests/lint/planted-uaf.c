// SPDX-License-Identifier: GPL-2.0
/*
 * planted-uaf.c - a known bug for the linter's own test (tests/lint/run):
 * a use after free on an error path, which only a path-sensitive checker
 * (clang-tidy's clang-analyzer-*) sees. Not part of the build or of the
 * linted tree.
 *
 * lint-expect: clang-tidy clang-analyzer-unix.Malloc
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

char *planted_uaf(const char *name, int fail);

char *planted_uaf(const char *name, int fail)
{
	char *copy = xstrdup(name);

	if (fail) {
		free(copy);
		lab_err("cannot use %s", copy); /* the bug: copy was freed */
		return NULL;
	}
	return copy;
}
