// SPDX-License-Identifier: GPL-2.0
/*
 * planted-oob.c - a known bug for the linter's own test (tests/lint/run):
 * the one-past-the-end write of issue 16, which `make lint` passed when
 * cppcheck checked nothing. Not part of the build or of the linted tree.
 *
 * lint-expect: cppcheck arrayIndexOutOfBounds
 */
#include <string.h>

#include "lib/util.h"

void planted_oob(const char *line);

void planted_oob(const char *line)
{
	char name[16];
	size_t len = strcspn(line, "=");

	if (len > sizeof(name))
		return;
	memcpy(name, line, len);
	name[sizeof(name)] = '\0'; /* the bug: one past the end */
	lab_info("option %s", name);
}
