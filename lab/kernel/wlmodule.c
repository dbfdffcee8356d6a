// SPDX-License-Identifier: GPL-2.0
/*
 * wlmodule.c - build workload kernel modules for a variant's kernel.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/initramfs.h"
#include "lib/spawn.h"
#include "lib/util.h"
#include "kernel/wlmodule.h"

#define MODULE_BUILD_TIMEOUT_S 900

const char *wlmodule_for_workload(const char *workload)
{
	return workload && !strcmp(workload, "pagebench") ? "pagebench" : NULL;
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

static int copy_sources(const char *src, const char *dst)
{
	static const char *const files[] = { "Kbuild", NULL };
	int ret = 0;

	for (size_t i = 0; files[i] && !ret; i++) {
		char *a = xasprintf("%s/%s", src, files[i]);
		char *b = xasprintf("%s/%s", dst, files[i]);

		ret = copy_file(a, b, 0644);
		free(a);
		free(b);
	}
	return ret;
}

char *wlmodule_build(const char *name, const char *kernel_path, const char *release,
		     const char *out_dir)
{
	char *kdir = wlmodule_build_dir(kernel_path, release);
	char *src = xasprintf("%s/modules-src/%s", image_guest_dir(), name);
	char *dst = xasprintf("%s/%s", out_dir, name);
	char *csrc = xasprintf("%s/%s.c", src, name), *cdst = xasprintf("%s/%s.c", dst, name);
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
	if (mkdir_p(dst, 0755) || copy_sources(src, dst) || copy_file(csrc, cdst, 0644)) {
		lab_err("cannot copy the %s module source from %s; run 'make'", name, src);
		goto out;
	}
	lab_info("building the %s module for %s against %s", name, release, kdir);
	if (spawn_run(argv, &o, &r) || access(ko, R_OK)) {
		char how[64];

		lab_err("building the %s module against %s failed (make %s); its output:\n%s", name,
			kdir, spawn_describe(&r, o.timeout_s, how, sizeof(how)),
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
	free(csrc);
	free(cdst);
	free(ko);
	free(m);
	return ret;
}
