// SPDX-License-Identifier: GPL-2.0
/*
 * global.c - the options every command sees (--results, --connect and the
 * cache), with their defaults from the environment.
 */
#include <stdlib.h>

#include "builtin/builtin.h"
#include "lib/util.h"

struct global_opts gopts = {
	.results_dir = "results",
	.cache_dir = "/var/tmp/mmlab-cache",
};

void gopts_init(void)
{
	const char *e;

	e = getenv("MMLAB_RESULTS");
	gopts.results_dir = e && *e ? e : "results";
	e = getenv("MMLAB_LIBVIRT_URI");
	gopts.connect_uri = e && *e ? e : NULL;
	e = getenv("MMLAB_CACHE");
	if (e && *e)
		gopts.cache_dir = e;
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		gopts.cache_dir = xasprintf("%s/mmlab", e);
	else if ((e = getenv("HOME")) && *e)
		gopts.cache_dir = xasprintf("%s/.cache/mmlab", e);
}
