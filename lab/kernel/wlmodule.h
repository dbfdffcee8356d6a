/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wlmodule.h - kernel modules that workloads load in the guest (pagebench).
 * The host builds workloads/<name>/ (copied to <guest dir>/modules-src/) for
 * each variant's kernel with "make -C <build dir> M=<copy>" and the boot's
 * image carries the .ko as /mmlab/modules/<name>.ko.
 */
#ifndef MMLAB_WLMODULE_H
#define MMLAB_WLMODULE_H

struct job;

/* the module a workload needs, or NULL */
const char *wlmodule_for_workload(const char *workload);
/* the module a job's workload needs (a built-in's or the user's module:), or NULL */
const char *wlmodule_for_job(const struct job *job);
/* the source directory of the user's module:, or NULL (the lab's own) */
const char *wlmodule_src_for_job(const struct job *job);
/*
 * The kernel build tree (or headers) for the kernel image at kernel_path
 * (may be NULL) whose release is release: the module build kit next to the
 * image (<dir of kernel_path>/build: a kernel from the lab's cache, see
 * kcache.h), else MMLAB_KBUILD_DIR, else /lib/modules/<release>/build,
 * else /usr/src/linux-headers-<release>. NULL when none has a Makefile.
 */
char *wlmodule_build_dir(const char *kernel_path, const char *release);
/*
 * Build module name for that kernel in out_dir (created), from src_dir (the
 * regular files of a user's module directory) or, when NULL, from the lab's
 * workloads/<name>/. Returns the .ko path, or NULL after a message saying
 * what to install or showing the build's output.
 */
char *wlmodule_build(const char *name, const char *src_dir, const char *kernel_path,
		     const char *release, const char *out_dir);

#endif
