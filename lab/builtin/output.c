// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - what the commands print alike: their --json output.
 */
#include <stdio.h>

#include <jansson.h>

#include "builtin/builtin.h"

void print_json(const json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}
