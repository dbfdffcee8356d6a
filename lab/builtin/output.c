// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - what the commands print alike: their --json output, a
 * stored run's among them.
 */
#include <stdio.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "store/run_data.h"

void print_json(const json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

int print_run_json(struct store *s, const char *run)
{
	struct run_data d;
	json_t *j;
	int rc = store_run_load(s, run, &d);

	if (!rc) {
		j = run_data_to_json(&d);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(j);
	}
	run_data_release(&d);
	return rc;
}
