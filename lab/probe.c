// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - stage and run the accel probe (see accel.c for the verdict).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "agent.h"
#include "probe.h"
#include "util.h"

#define PROBE_DATA_MAX (4u << 20)

char *stage_create(void)
{
	char tmpl[] = "/tmp/mmlab-stage-XXXXXX";

	if (!mkdtemp(tmpl)) {
		lab_err("cannot create a staging directory in /tmp: %s", strerror(errno));
		return NULL;
	}
	/* QEMU runs as another user (libvirt-qemu): it must reach these files */
	if (chmod(tmpl, 0755)) {
		lab_err("cannot chmod %s: %s", tmpl, strerror(errno));
		rmdir(tmpl);
		return NULL;
	}
	return xstrdup(tmpl);
}

int probe_agent_reached(const char *data_path, const char *console_path, void *arg)
{
	size_t len;
	char *buf;
	json_t *j;
	int ok;

	(void)console_path;
	(void)arg;
	if (!path_exists(data_path))
		return 0;
	buf = read_file(data_path, &len, PROBE_DATA_MAX);
	if (!buf)
		return 0;
	j = agent_parse_stream(buf, len, "probe");
	ok = json_is_object(json_object_get(j, "hello"));
	json_decref(j);
	free(buf);
	return ok;
}

int probe_accel(struct vm_host *h, enum accel_mode mode, const char *cache_dir,
		const char *kernel, const struct image *img, bool reprobe,
		struct accel_choice *out)
{
	char *stage = stage_create();
	char *kcopy, *initrd, *dir;
	struct kvlist plan = { 0 };
	int ret = -1;

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
	ret = accel_resolve(h, mode, cache_dir, kcopy, initrd, dir, probe_agent_reached,
			    NULL, reprobe, out);
out:
	kvlist_free(&plan);
	if (!getenv("MMLAB_KEEP_STAGE"))
		rm_rf(stage);
	free(stage);
	free(kcopy);
	free(initrd);
	free(dir);
	return ret;
}
