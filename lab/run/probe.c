// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - stage and run the accel probe (see vm/accel.c for the verdict).
 */
#include <stdlib.h>

#include <jansson.h>

#include "guest/stream.h"
#include "run/stage.h"
#include "run/probe.h"
#include "lib/util.h"

#define PROBE_DATA_MAX (4u << 20)

int probe_agent_reached(const char *data_path, const char *console_path, void *arg)
{
	struct guest_report *gs;
	size_t len;
	char *buf;
	bool hello;

	(void)console_path;
	(void)arg;
	if (!path_exists(data_path))
		return 0;
	buf = read_file(data_path, &len, PROBE_DATA_MAX);
	if (!buf)
		return 0;
	gs = guest_stream_parse(buf, len, "probe");
	hello = gs->info.hello;
	guest_stream_free(gs);
	free(buf);
	return hello;
}

int probe_accel(struct vm_host *h, enum accel_mode mode, const char *cache_dir, const char *kernel,
		const struct image *img, bool reprobe, struct accel_choice *out)
{
	char *stage, *kcopy, *initrd, *dir;
	struct kvlist plan = { 0 };
	int ret = accel_decide(h, mode, cache_dir, reprobe, out);

	if (ret)
		return ret < 0 ? -1 : 0;
	ret = -1;
	stage = stage_create();
	if (!stage)
		return -1;
	kcopy = xasprintf("%s/kernel", stage);
	initrd = xasprintf("%s/probe.initrd", stage);
	dir = xasprintf("%s/probe", stage);
	kvlist_set(&plan, "run", "probe");
	kvlist_set(&plan, "variant", "probe");
	kvlist_set(&plan, "probe", "1");
	if (mkdir_p(dir, 0755) || copy_file(kernel, kcopy, 0644) ||
	    image_boot_initrd(img->path, &plan, initrd))
		goto out;
	ret = accel_probe(h, cache_dir, kcopy, initrd, dir, probe_agent_reached, NULL, out);
out:
	kvlist_free(&plan);
	vm_reap(h); /* libvirt restores the owners of the probe's files first */
	stage_done(stage);
	free(stage);
	free(kcopy);
	free(initrd);
	free(dir);
	return ret;
}
