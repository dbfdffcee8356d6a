/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - the kernel a variant boots. For now a prebuilt image: the
 * host's newest distro kernel (/boot/vmlinuz-*) or a path to a bzImage.
 */
#ifndef MMLAB_KERNEL_H
#define MMLAB_KERNEL_H

#include <stdbool.h>
#include <jansson.h>

#include "job/job.h"

struct kernel_info {
	char *path;		/* absolute path of the bzImage */
	char *release;		/* from the image's header, e.g. "6.1.0-57-amd64" */
	char *version;		/* the whole version string of the header */
	char sha256[65];
	/* KERNEL_SOURCE variants (kcache.h); NULL/false otherwise */
	char *cache_key;
	char *base_commit;
	char *config_hash;
	char *build_log;	/* also set when the build failed */
	json_t *operations;	/* [{"op","arg","resolved"}] */
	bool cache_hit;
	bool build_failed;	/* the source could not be prepared, configured or built */
	/* kernel_request_job(): known, not built yet (the queue builds it) */
	bool build_pending;
	char *request;		/* kcache_request()'s hash */
};

/* the release string a bzImage carries in its setup header; NULL + message */
int kernel_read_info(const char *path, struct kernel_info *ki);
/* newest /boot/vmlinuz-* by version order (MMLAB_BOOT_DIR overrides /boot) */
char *kernel_find_distro(void);
/* every bootable kernel in /boot: [{"path","release"}] */
json_t *kernel_list_distro(void);
/* resolve a job variant's kernel */
int kernel_resolve(const struct job_variant *v, struct kernel_info *ki);
/*
 * The same for variant i of job, building KERNEL_SOURCE variants through
 * the kernel cache (kcache.h) when missing. On a failed build returns -1
 * with ki->build_failed set (and ki->build_log when make ran).
 */
int kernel_resolve_job(const struct job *job, size_t i, const char *cache_dir,
		       struct kernel_info *ki);
/*
 * Variant i's kernel as a build request, without building: for a
 * KERNEL_SOURCE variant, ki->build_pending, ->request, ->base_commit and
 * ->operations (0), or -1 after a message (bad ref, patch, tree); 1 and
 * nothing set for other variants.
 */
int kernel_request_job(const struct job *job, size_t i, struct kernel_info *ki);
/*
 * A kernel recorded in a run (kernel_info_json()) that is still at its
 * path with its sha256: ki filled from the file and the record, 0; else
 * -1, no message.
 */
int kernel_info_from_json(json_t *rec, struct kernel_info *ki);
/* the same, building even when cached when rebuild is set */
int kernel_resolve_job_opt(const struct job *job, size_t i, const char *cache_dir,
			   bool rebuild, struct kernel_info *ki);
void kernel_info_release(struct kernel_info *ki);
json_t *kernel_info_json(const struct kernel_info *ki);

#endif
