// SPDX-License-Identifier: GPL-2.0
/*
 * stage.c - the staging directories of boots (see stage.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run/stage.h"
#include "lib/util.h"

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
static void stage_sweep_one(const char *path)
{
	char *mine = xasprintf("%s.swept-%lld", path, (long long)getpid());

	if (!strstr(path, ".swept-") && rename(path, mine)) {
		free(mine);
		return; /* another sweeper took it */
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
			continue; /* not a stage of ours */
		}
		owner = xasprintf("%s/owner", path);
		text = path_exists(owner) ? read_file(owner, NULL, 256) : NULL;
		if (text && sscanf(text, "%lld %63s", &pid, boot) >= 1)
			dead = pid > 0 && !process_alive(pid, boot);
		else /* an older mmlab's, or one being made right now */
			dead = time(NULL) - st.st_mtime > STAGE_UNOWNED_S;
		if (dead)
			stage_sweep_one(path);
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
		lab_err("cannot create a staging directory in %s: %s", STAGE_DIR, strerror(errno));
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

void stage_done(const char *path)
{
	if (path && !getenv("MMLAB_KEEP_STAGE"))
		rm_rf(path);
}
