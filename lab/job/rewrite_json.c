// SPDX-License-Identifier: GPL-2.0
/*
 * rewrite_json.c - a derived variant's set (rewrite.h: "kernel", "ref",
 * "cmdline", "sysctl", "thp") read into struct job_rewrite_set for
 * rewrite.c.
 */
#include "job/rewrite.h"

void job_rewrite_set_read(const json_t *set, struct job_rewrite_set *s)
{
	const json_t *sysctl = json_object_get(set, "sysctl"), *thp = json_object_get(set, "thp");
	const json_t *cmdline = json_object_get(set, "cmdline");

	*s = (struct job_rewrite_set){
		.kernel = json_object_get(set, "kernel"),
		.ref = json_object_get(set, "ref"),
		.sysctl = json_is_object(sysctl) ? sysctl : NULL,
		.thp = json_is_object(thp) ? thp : NULL,
		.cmdline = json_string_value(cmdline),
		.has_sysctl = sysctl != NULL,
		.has_thp = thp != NULL,
		.has_cmdline = cmdline != NULL,
	};
}
