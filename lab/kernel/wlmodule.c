// SPDX-License-Identifier: GPL-2.0
/*
 * wlmodule.c - build workload kernel modules for a variant's kernel.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/stat.h>

#include "image/initramfs.h"
#include "job/job.h"
#include "job/job_own.h"
#include "lib/spawn.h"
#include "lib/util.h"
#include "kernel/wlmodule.h"

#define MODULE_BUILD_TIMEOUT_S 900
#define WLMODULE_MAX_FILES 256
#define WLMODULE_FILE_MAX (16 << 20)

const char *wlmodule_for_workload(const char *workload)
{
	return workload && !strcmp(workload, "pagebench") ? "pagebench" : NULL;
}

const char *wlmodule_for_job(const struct job *job)
{
	const struct job_own *o = job->workload.own;

	if (o)
		return o->has_module ? o->module.name : NULL;
	return wlmodule_for_workload(job->workload.name);
}

const char *wlmodule_src_for_job(const struct job *job)
{
	const struct job_own *o = job->workload.own;

	return o && o->has_module ? o->module.src : NULL;
}

static char *try_dir(char *d)
{
	char *mk = xasprintf("%s/Makefile", d);
	int ok = !access(mk, R_OK);

	free(mk);
	if (ok)
		return d;
	free(d);
	return NULL;
}

char *wlmodule_build_dir(const char *kernel_path, const char *release)
{
	const char *e = getenv("MMLAB_KBUILD_DIR");
	const char *slash = kernel_path ? strrchr(kernel_path, '/') : NULL;
	char *d;

	/* a kernel from the lab's cache: the kit made with it (kcache.c) */
	if (slash) {
		d = try_dir(xasprintf("%.*s/build", (int)(slash - kernel_path), kernel_path));
		if (d)
			return d;
	}
	if (e && *e)
		return try_dir(xstrdup(e));
	d = try_dir(xasprintf("/lib/modules/%s/build", release));
	if (!d)
		d = try_dir(xasprintf("/usr/src/linux-headers-%s", release));
	return d;
}

/* the regular files of a user's module directory (not its subdirectories) */
static int copy_dir_files(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int ret = 0, n = 0;

	if (!d)
		return -1;
	while (!ret && (e = readdir(d))) {
		char *a = xasprintf("%s/%s", src, e->d_name);
		char *b = xasprintf("%s/%s", dst, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && !stat(a, &st) && S_ISREG(st.st_mode))
			ret = ++n > WLMODULE_MAX_FILES || st.st_size > WLMODULE_FILE_MAX ||
			      copy_file(a, b, 0644);
		free(a);
		free(b);
	}
	closedir(d);
	return ret ? -1 : 0;
}

/* the lab's module: its Kbuild and <name>.c from the guest directory */
static int copy_sources(const char *src, const char *dst, const char *name)
{
	static const char *const files[] = { "Kbuild", NULL };
	char *csrc = xasprintf("%s/%s.c", src, name), *cdst = xasprintf("%s/%s.c", dst, name);
	int ret = copy_file(csrc, cdst, 0644);

	for (size_t i = 0; files[i] && !ret; i++) {
		char *a = xasprintf("%s/%s", src, files[i]);
		char *b = xasprintf("%s/%s", dst, files[i]);

		ret = copy_file(a, b, 0644);
		free(a);
		free(b);
	}
	free(csrc);
	free(cdst);
	return ret;
}

char *wlmodule_build(const char *name, const char *src_dir, const char *kernel_path,
		     const char *release, const char *out_dir)
{
	char *kdir = wlmodule_build_dir(kernel_path, release);
	char *src = src_dir ? xstrdup(src_dir) :
			      xasprintf("%s/modules-src/%s", image_guest_dir(), name);
	char *dst = xasprintf("%s/%s", out_dir, name);
	char *ko = xasprintf("%s/%s.ko", dst, name), *m = xasprintf("M=%s", dst);
	const char *argv[] = { "make", "-C", kdir, m, "modules", NULL };
	struct spawn_opts o = { .timeout_s = MODULE_BUILD_TIMEOUT_S, .capture_max = 16384 };
	struct spawn_result r;
	char *ret = NULL;

	if (!kdir) {
		lab_err("cannot run %s on this kernel: no build tree or headers for %s "
			"(looked in /lib/modules/%s/build and /usr/src/linux-headers-%s); "
			"install linux-headers-%s or set MMLAB_KBUILD_DIR",
			name, release, release, release, release);
		goto out;
	}
	argv[2] = kdir;
	if (mkdir_p(dst, 0755) ||
	    (src_dir ? copy_dir_files(src, dst) : copy_sources(src, dst, name))) {
		lab_err("cannot copy the %s module source from %s%s", name, src,
			src_dir ? " (at most 256 regular files of 16 MiB each)" : "; run 'make'");
		goto out;
	}
	lab_info("building the %s module for %s against %s", name, release, kdir);
	if (spawn_run(argv, &o, &r) || access(ko, R_OK)) {
		char how[64];

		lab_err("building the %s module against %s failed (make %s%s%s); its output:\n%s",
			name, kdir, spawn_describe(&r, o.timeout_s, how, sizeof(how)),
			r.exit_code == 0 ? ", but made no " : "", r.exit_code == 0 ? ko : "",
			r.out ? r.out : "");
		spawn_result_free(&r);
		goto out;
	}
	spawn_result_free(&r);
	ret = ko;
	ko = NULL;
out:
	free(kdir);
	free(src);
	free(dst);
	free(ko);
	free(m);
	return ret;
}
