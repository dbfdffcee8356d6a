// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - stage and run the accel probe (see accel.c for the verdict).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "guest/stream.h"
#include "vm/probe.h"
#include "lib/util.h"

#define PROBE_DATA_MAX (4u << 20)

#define STAGE_DIR "/tmp"
#define STAGE_PREFIX "mmlab-stage-"
/* a stage without an owner file is left alone this long (being created) */
#define STAGE_UNOWNED_S 3600

/*
 * Remove a dead process's stage. Two processes may sweep at once: the one
 * whose rename succeeds removes it, the other finds it gone. The new name
 * keeps the prefix and the owner file, so a sweeper that dies half-way
 * leaves it to the next.
 */
static void stage_remove(const char *path)
{
	char *mine = xasprintf("%s.swept-%lld", path, (long long)getpid());

	if (!strstr(path, ".swept-") && rename(path, mine)) {
		free(mine);
		return;	/* another sweeper took it */
	}
	rm_rf(strstr(path, ".swept-") ? path : mine);
	free(mine);
}

/*
 * Remove the stages of mmlab processes that died without removing theirs
 * (kill -9, a reboot): each stage's "owner" file says "PID BOOT_ID".
 */
static void stage_sweep(void)
{
	DIR *d = opendir(STAGE_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path, *owner, *text;
		long long pid = 0;
		char boot[64] = "";
		struct stat st;
		bool dead;

		if (strncmp(e->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)))
			continue;
		path = xasprintf("%s/%s", STAGE_DIR, e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
			free(path);
			continue;	/* not a stage of ours */
		}
		owner = xasprintf("%s/owner", path);
		text = path_exists(owner) ? read_file(owner, NULL, 256) : NULL;
		if (text && sscanf(text, "%lld %63s", &pid, boot) >= 1)
			dead = pid > 0 && process_gone(pid, boot);
		else	/* an older mmlab's, or one being made right now */
			dead = time(NULL) - st.st_mtime > STAGE_UNOWNED_S;
		if (dead)
			stage_remove(path);
		free(text);
		free(owner);
		free(path);
	}
	closedir(d);
}

char *stage_create(void)
{
	char tmpl[] = STAGE_DIR "/" STAGE_PREFIX "XXXXXX";
	char *owner, *bid, *text;
	int rc;

	stage_sweep();
	if (!mkdtemp(tmpl)) {
		lab_err("cannot create a staging directory in %s: %s", STAGE_DIR,
			strerror(errno));
		return NULL;
	}
	/* QEMU runs as another user (libvirt-qemu): it must reach these files */
	if (chmod(tmpl, 0755)) {
		lab_err("cannot chmod %s: %s", tmpl, strerror(errno));
		rmdir(tmpl);
		return NULL;
	}
	owner = xasprintf("%s/owner", tmpl);
	bid = host_boot_id();
	/* MMLAB_KEEP_STAGE: kept for debugging, so never swept (pid 0) */
	text = getenv("MMLAB_KEEP_STAGE") ? xstrdup("0 kept\n") :
	       xasprintf("%lld %s\n", (long long)getpid(), bid);
	rc = write_file_atomic(owner, text, strlen(text), 0644);
	free(text);
	free(bid);
	free(owner);
	if (rc) {
		rm_rf(tmpl);
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
	if (!getenv("MMLAB_KEEP_STAGE"))
		rm_rf(stage);
	free(stage);
	free(kcopy);
	free(initrd);
	free(dir);
	return ret;
}
