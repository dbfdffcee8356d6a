// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - locate prebuilt kernels and read their release from the x86
 * boot protocol header (Documentation/arch/x86/boot.rst): "HdrS" at 0x202,
 * the kernel_version pointer at 0x20e (offset from 0x200).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kcache.h"
#include "kernel/kernel.h"
#include "lib/util.h"
#include "kernel/wlmodule.h"

static const char *boot_dir(void)
{
	const char *e = getenv("MMLAB_BOOT_DIR");

	return e && *e ? e : "/boot";
}

int kernel_read_info(const char *path, struct kernel_info *ki)
{
	unsigned char hdr[0x210];
	char ver[256];
	unsigned int off;
	ssize_t n;
	int fd;

	memset(ki, 0, sizeof(*ki));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		lab_err("cannot open the kernel %s: %s", path, strerror(errno));
		return -1;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		lab_err("%s is not an x86 bzImage (no 'HdrS' boot header); give a "
			"bzImage such as arch/x86/boot/bzImage or /boot/vmlinuz-*", path);
		close(fd);
		return -1;
	}
	off = (unsigned int)hdr[0x20e] | (unsigned int)hdr[0x20f] << 8;
	n = off ? pread(fd, ver, sizeof(ver) - 1, 0x200 + off) : -1;
	close(fd);
	if (n <= 0) {
		lab_err("%s: the boot header has no kernel version string", path);
		return -1;
	}
	ver[n] = '\0';
	ver[strcspn(ver, "\n")] = '\0';
	for (char *p = ver; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	ki->version = xstrdup(ver);
	ki->release = xstrndup(ver, strcspn(ver, " "));
	ki->path = realpath(path, NULL);
	if (!ki->path)
		ki->path = xstrdup(path);
	if (sha256_file(path, ki->sha256)) {
		kernel_info_release(ki);
		return -1;
	}
	return 0;
}

static int cmp_ver_desc(const void *a, const void *b)
{
	return strverscmp(*(char *const *)b, *(char *const *)a);
}

static void distro_names(struct strlist *out)
{
	DIR *d = opendir(boot_dir());
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vmlinuz-", 8) && !strstr(e->d_name, ".old"))
			strlist_push(out, e->d_name);
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_ver_desc);
}

char *kernel_find_distro(void)
{
	struct strlist names = { 0 };
	char *path = NULL;

	distro_names(&names);
	for (size_t i = 0; i < names.n && !path; i++) {
		char *p = xasprintf("%s/%s", boot_dir(), names.v[i]);

		if (access(p, R_OK) == 0)
			path = p;
		else
			free(p);
	}
	if (!path)
		lab_err("no kernel found in %s (no readable vmlinuz-*); install one with "
			"'apt-get install linux-image-amd64' or give 'kernel: PATH' in the job",
			boot_dir());
	strlist_free(&names);
	return path;
}

json_t *kernel_list_distro(void)
{
	struct strlist names = { 0 };
	json_t *out = json_array();

	distro_names(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s", boot_dir(), names.v[i]);

		json_array_append_new(out, json_pack("{s:s, s:s, s:b}", "path", p,
			"release", names.v[i] + 8, "readable", access(p, R_OK) == 0));
		free(p);
	}
	strlist_free(&names);
	return out;
}

int kernel_resolve(const struct job_variant *v, struct kernel_info *ki)
{
	char *path;
	int ret;

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
	static const enum src_op_kind kinds[] = { SRC_OP_REVERT, SRC_OP_CHERRY_PICK,
						  SRC_OP_APPLY };
	size_t n = 0;

	*q = (struct kcache_req){
		.variant = v->name, .tree = job->kernels.tree, .ref = v->ref,
		.config_base = job->kernels.config_base ? job->kernels.config_base : "tinyconfig",
		.fragments = (const char *const *)job->kernels.fragments.v,
		.nfragments = job->kernels.fragments.n, .rebuild = rebuild,
		.want_kit = wlmodule_for_workload(job->workload.name) != NULL,
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
		json_array_append_new(ki->operations, json_pack("{s:s, s:s, s:s?}", "op",
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

int kernel_resolve_job_opt(const struct job *job, size_t i, const char *cache_dir,
			   bool rebuild, struct kernel_info *ki)
{
	const struct job_variant *v = &job->variants[i];
	struct kcache_req q;
	struct kcache_result res;
	int ret;

	if (v->kernel_kind != KERNEL_SOURCE)
		return kernel_resolve(v, ki);
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
		ki->base_commit = xstrdup(json_string_value(json_object_get(res.meta,
			"base_commit")) ?: "");
		ki->config_hash = xstrdup(json_string_value(json_object_get(res.meta,
			"config_hash")) ?: "");
	}
	take_ops(&q, ki);
	kcache_result_release(&res);
	return ret;
}

int kernel_info_from_json(json_t *rec, struct kernel_info *ki)
{
	const char *path = json_string_value(json_object_get(rec, "path"));
	const char *sha = json_string_value(json_object_get(rec, "sha256"));
	const char *s;

	memset(ki, 0, sizeof(*ki));
	if (!path || !sha || access(path, R_OK) || kernel_read_info(path, ki))
		return -1;
	if (strcmp(ki->sha256, sha)) {
		kernel_info_release(ki);
		return -1;
	}
	if ((s = json_string_value(json_object_get(rec, "cache_key"))))
		ki->cache_key = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "base_commit"))))
		ki->base_commit = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "config_hash"))))
		ki->config_hash = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "build_log"))))
		ki->build_log = xstrdup(s);
	ki->cache_hit = json_is_true(json_object_get(rec, "cache_hit"));
	if (json_is_array(json_object_get(rec, "operations")))
		ki->operations = json_deep_copy(json_object_get(rec, "operations"));
	return 0;
}

void kernel_info_release(struct kernel_info *ki)
{
	free(ki->path);
	free(ki->release);
	free(ki->version);
	free(ki->cache_key);
	free(ki->base_commit);
	free(ki->config_hash);
	free(ki->build_log);
	free(ki->request);
	json_decref(ki->operations);
	memset(ki, 0, sizeof(*ki));
}

json_t *kernel_info_json(const struct kernel_info *ki)
{
	json_t *o;

	if (ki->build_failed)
		return json_pack("{s:s, s:b, s:s?, s:O?}", "source", "build", "build_failed", 1,
				 "build_log", ki->build_log, "operations", ki->operations);
	if (ki->build_pending)
		return json_pack("{s:s, s:b, s:s, s:s, s:O?}", "source", "build",
				 "build_pending", 1, "request", ki->request,
				 "base_commit", ki->base_commit, "operations", ki->operations);
	o = json_pack("{s:s, s:s, s:s, s:s}", "path", ki->path, "release", ki->release,
		      "version", ki->version, "sha256", ki->sha256);
	if (ki->cache_key) {
		json_object_set_new(o, "source", json_string("build"));
		json_object_set_new(o, "cache_key", json_string(ki->cache_key));
		json_object_set_new(o, "cache_hit", json_boolean(ki->cache_hit));
		json_object_set_new(o, "base_commit", json_string(ki->base_commit));
		json_object_set_new(o, "config_hash", json_string(ki->config_hash));
		json_object_set_new(o, "operations", ki->operations ?
				    json_incref(ki->operations) : json_array());
		if (ki->build_log)
			json_object_set_new(o, "build_log", json_string(ki->build_log));
	}
	return o;
}
