// SPDX-License-Identifier: GPL-2.0
/*
 * kernels.c - each variant's kernel for a run, got the way the entry
 * point asks (struct run_spec): found or built now, left to the queue's
 * build items as requests, or the one a build item recorded; then the
 * workload's kernel module built against each, and the images staged
 * where QEMU can read them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tiermods.h"
#include "kernel/wlmodule.h"
#include "lib/util.h"
#include "run/run.h"

/* the record of variant i's kernel in run.json, when the run has one */
static const struct run_kernel *recorded(const struct run *r, size_t i)
{
	if (i >= r->rec.nvariants || !r->rec.variants[i].has_kernel)
		return NULL;
	return &r->rec.variants[i].kernel;
}

/* the queue's record: a failed build item, or the image it built (1); else 0 */
static int kernel_from_queue(const struct run_kernel *rk, struct kernel_info *ki)
{
	if (!rk)
		return 0;
	if (rk->build_failed) {
		/* the queue's build item failed: no second try here */
		ki->build_failed = true;
		ki->build_log = xstrdup(rk->build_log ? rk->build_log : "");
		return 1;
	}
	/* the queue built it for this run: boot exactly that image */
	return rk->cache_key && run_kernel_load(rk, ki) == 0;
}

static int resolve_one(struct run *r, size_t i)
{
	const struct job_variant *v = &r->job->variants[i];
	const struct run_kernel *rk = recorded(r, i);
	struct kernel_info *ki = &r->kernels[i];

	if (r->spec->kernels == RUN_KERNELS_REQUEST) {
		int rc = kernel_request_job(r->job, i, ki);

		if (rc <= 0)
			return rc; /* the queue builds it (0), or a bad request */
	}
	if (r->spec->kernels == RUN_KERNELS_RECORDED && kernel_from_queue(rk, ki))
		return 0;
	if (kernel_resolve_job(r->job, i, r->spec->cache_dir, ki)) {
		if (!ki->build_failed)
			return -1;
		lab_warn("variant '%s': no kernel (the build failed); its iterations are "
			 "recorded as failed and the run goes on with the others",
			 v->name);
		return 0;
	}
	if (rk && rk->sha256 && strcmp(rk->sha256, ki->sha256)) {
		lab_err("variant '%s': the kernel %s changed since run %s started; "
			"start a new run instead of resuming",
			v->name, ki->path, r->id);
		return -1;
	}
	return 0;
}

int run_resolve_kernels(struct run *r)
{
	r->kernels = xcalloc(r->job->nvariants, sizeof(*r->kernels));
	for (size_t i = 0; i < r->job->nvariants; i++) {
		if (r->spec->variant && strcmp(r->job->variants[i].name, r->spec->variant))
			continue; /* another item's kernel, maybe still building */
		if (resolve_one(r, i))
			return -1;
	}
	return 0;
}

/* a kernel to boot: resolved, not failed */
static bool bootable(const struct kernel_info *ki)
{
	return ki->path && !ki->build_failed;
}

/* a kmem topology: does each kernel have the dax drivers, built in or as modules? */
static int check_tier_modules(struct run *r)
{
	for (size_t i = 0; i < r->job->nvariants && topology_has_kmem(&r->job->topo); i++) {
		const struct kernel_info *ki = &r->kernels[i];
		struct kvlist files = { 0 };
		struct strbuf names = STRBUF_INIT;
		char *mdir;
		int ret;

		if (!bootable(ki))
			continue;
		mdir = tiermods_dir(ki->path, ki->release);
		ret = tiermods_find(r->job->variants[i].name, mdir, &files, &names);
		kvlist_free(&files);
		strbuf_release(&names);
		free(mdir);
		if (ret)
			return -1;
	}
	return 0;
}

/* the workload's kernel module: is there a tree to build it against? */
int run_check_modules(struct run *r)
{
	const char *mod = wlmodule_for_job(r->job);

	if (check_tier_modules(r))
		return -1;

	for (size_t i = 0; mod && i < r->job->nvariants; i++) {
		const struct kernel_info *ki = &r->kernels[i];
		const char *name = r->job->variants[i].name;
		char *kdir;

		if (!bootable(ki))
			continue;
		kdir = wlmodule_build_dir(ki->path, ki->release);
		if (kdir) {
			free(kdir);
		} else if (ki->cache_key) {
			lab_err("variant '%s': cannot run %s on its kernel %s: it was built "
				"without loadable modules; add CONFIG_MODULES=y to the job's "
				"config fragments (kernels/lab.config has it)",
				name, r->job->workload.name, ki->cache_key);
			return -1;
		} else {
			lab_err("variant '%s': cannot run %s on this kernel: no build tree or headers for %s; install linux-headers-%s (Debian) or set MMLAB_KBUILD_DIR to the kernel's build directory",
				name, r->job->workload.name, ki->release, ki->release);
			return -1;
		}
	}
	return 0;
}

int run_build_modules(struct run *r)
{
	const char *mod = wlmodule_for_job(r->job);

	if (!mod)
		return 0;
	r->modules = xcalloc(r->job->nvariants, sizeof(*r->modules));
	for (size_t i = 0; i < r->job->nvariants; i++) {
		const struct kernel_info *ki = &r->kernels[i];
		char *dir;

		if (!bootable(ki))
			continue;
		dir = xasprintf("%s/modules-%zu", r->stage, i);
		r->modules[i] = wlmodule_build(mod, wlmodule_src_for_job(r->job), ki->path,
					       ki->release, dir);
		free(dir);
		if (!r->modules[i])
			return -1;
	}
	return 0;
}

int run_stage_kernels(struct run *r)
{
	for (size_t i = 0; i < r->job->nvariants; i++) {
		char *dst = xasprintf("%s/kernel-%zu", r->stage, i);
		int ret = !r->kernels[i].path ? 0 : copy_file(r->kernels[i].path, dst, 0644);

		free(dst);
		if (ret)
			return -1;
	}
	return 0;
}
