// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - the kernel a job variant boots: the distro kernel, a bzImage
 * path (bzimage.c reads both), or a KERNEL_SOURCE variant built through the
 * kernel cache (kcache.c). The kernel_info's JSON record in a run is
 * kernel_json.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kcache.h"
#include "kernel/kernel.h"
#include "kernel/package.h"
#include "lib/util.h"
#include "kernel/wlmodule.h"

int kernel_resolve(const struct job_variant *v, struct kernel_info *ki)
{
	char *path;
	int ret;

	if (v->kernel_kind == KERNEL_PACKAGE) {
		lab_err("variant '%s': a package kernel needs the kernel cache "
			"(kernel_resolve_job)",
			v->name);
		return -1;
	}
	if (v->kernel_kind == KERNEL_DISTRO) {
		path = kernel_find_distro();
		if (!path)
			return -1;
	} else {
		path = xstrdup(v->kernel_path);
		if (access(path, R_OK)) {
			lab_err("variant '%s': cannot read the kernel %s: %s", v->name, path,
				strerror(errno));
			free(path);
			return -1;
		}
	}
	ret = kernel_read_info(path, ki);
	free(path);
	return ret;
}

int kernel_resolve_job(const struct job *job, size_t i, const char *cache_dir,
		       struct kernel_info *ki)
{
	return kernel_resolve_job_opt(job, i, cache_dir, false, ki);
}

/* the kcache request of a KERNEL_SOURCE variant; q->ops to free with free_ops() */
static void source_req(const struct job *job, size_t i, bool rebuild, struct kcache_req *q)
{
	const struct job_variant *v = &job->variants[i];
	const struct strlist *lists[] = { &v->revert, &v->cherry_pick, &v->apply };
	static const enum src_op_kind kinds[] = { SRC_OP_REVERT, SRC_OP_CHERRY_PICK, SRC_OP_APPLY };
	size_t n = 0;

	*q = (struct kcache_req){
		.variant = v->name,
		.tree = job->kernels.tree,
		.ref = v->ref,
		.config_base = job->kernels.config_base ? job->kernels.config_base : "tinyconfig",
		.fragments = (const char *const *)job->kernels.fragments.v,
		.nfragments = job->kernels.fragments.n,
		.rebuild = rebuild,
		.want_kit = wlmodule_for_job(job) != NULL,
	};
	q->ops = xcalloc(v->revert.n + v->cherry_pick.n + v->apply.n + 1, sizeof(*q->ops));
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t k = 0; k < lists[l]->n; k++) {
			q->ops[n].kind = kinds[l];
			q->ops[n++].arg = lists[l]->v[k];
		}
	q->nops = n;
}

/* the operations as resolved, into ki->operations; frees q->ops */
static void take_ops(struct kcache_req *q, struct kernel_info *ki)
{
	ki->operations = json_array();
	for (size_t k = 0; k < q->nops; k++) {
		json_array_append_new(ki->operations,
				      json_pack("{s:s, s:s, s:s?}", "op",
						src_op_name(q->ops[k].kind), "arg", q->ops[k].arg,
						"resolved", q->ops[k].resolved));
		free(q->ops[k].resolved);
	}
	free(q->ops);
	q->ops = NULL;
}

int kernel_request_job(const struct job *job, size_t i, struct kernel_info *ki)
{
	struct kcache_req q;
	int ret;

	memset(ki, 0, sizeof(*ki));
	if (job->variants[i].kernel_kind != KERNEL_SOURCE)
		return 1;
	source_req(job, i, false, &q);
	ret = kcache_request(&q, &ki->request, &ki->base_commit);
	take_ops(&q, ki);
	ki->build_pending = !ret;
	return ret;
}

/* a kernel: path from the job file, which an error locates in it */
static int resolve_path(const struct job *job, size_t i, struct kernel_info *ki)
{
	const struct job_variant *v = &job->variants[i];

	if (v->kernel_kind == KERNEL_PATH && v->kernel_line && job->path &&
	    access(v->kernel_path, R_OK)) {
		lab_err("%s:%u:%u: variants[%zu].kernel: cannot read the kernel %s: %s; give the path "
			"of a readable kernel image (bzImage) or 'distro'",
			job->path, v->kernel_line, v->kernel_col, i, v->kernel_path,
			strerror(errno));
		return -1;
	}
	return kernel_resolve(v, ki);
}

/* kernel: { package | deb | rpm }: from the kernel cache's packages/ */
static int resolve_package(const struct job *job, size_t i, const char *cache_dir,
			   struct kernel_info *ki)
{
	const struct job_variant *v = &job->variants[i];
	struct pkg_entry e;
	char *where = job->path && v->kernel_line ?
			      xasprintf("%s:%u:%u: variants[%zu].kernel", job->path, v->kernel_line,
					v->kernel_col, i) :
			      xasprintf("variant '%s'", v->name);
	int ret;

	memset(ki, 0, sizeof(*ki));
	if (v->pkg_name)
		ret = pkg_get_apt(cache_dir, v->pkg_name, v->pkg_version, where, &e);
	else
		ret = pkg_get_file(cache_dir, v->pkg_deb ? v->pkg_deb : v->pkg_rpm, v->pkg_modules,
				   v->pkg_deb ? "deb" : "rpm", where, &e);
	if (!ret && kernel_read_info(e.image, ki))
		ret = -1;
	if (!ret) {
		ki->package = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s, s:b}", "name", e.m.package,
					"version", e.m.version, "architecture", e.m.architecture,
					"format", e.m.format, "sha256", e.sha256, "cache_hit",
					e.hit);
		if (e.m.has_modules)
			json_object_set_new(ki->package, "modules_package",
					    json_pack("{s:s?, s:s?}", "package",
						      e.m.modules_package, "version",
						      e.m.modules_version));
		if (!v->pkg_name)
			json_object_set_new(ki->package, "file",
					    json_string(v->pkg_deb ? v->pkg_deb : v->pkg_rpm));
	}
	pkg_entry_release(&e);
	free(where);
	return ret;
}

int kernel_resolve_job_opt(const struct job *job, size_t i, const char *cache_dir, bool rebuild,
			   struct kernel_info *ki)
{
	const struct job_variant *v = &job->variants[i];
	struct kcache_req q;
	struct kcache_result res;
	int ret;

	if (v->kernel_kind == KERNEL_PACKAGE)
		return resolve_package(job, i, cache_dir, ki);
	if (v->kernel_kind != KERNEL_SOURCE)
		return resolve_path(job, i, ki);
	memset(ki, 0, sizeof(*ki));
	source_req(job, i, rebuild, &q);
	ret = kcache_get(cache_dir, &q, &res);
	if (ret == 0)
		ret = kernel_read_info(res.bzimage, ki);
	if (ret) {
		ki->build_failed = true;
		ki->build_log = res.log ? xstrdup(res.log) : NULL;
	} else {
		ki->cache_key = xstrdup(res.key);
		ki->cache_hit = res.hit;
		ki->build_log = xstrdup(res.log);
		ki->base_commit = xstrdup(res.base_commit);
		ki->config_hash = xstrdup(res.meta.config_hash ?: "");
	}
	take_ops(&q, ki);
	kcache_result_release(&res);
	return ret;
}
