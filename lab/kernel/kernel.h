/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - the kernel a variant boots: the host's newest distro kernel
 * (/boot/vmlinuz-*), a path to a bzImage, or one built from source through
 * the kernel cache (kcache.h). struct kernel_info and the bzImage reader
 * are in bzimage.h.
 */
#ifndef MMLAB_KERNEL_H
#define MMLAB_KERNEL_H

#include <stdbool.h>
#include <jansson.h>

#include "job/job.h"
#include "kernel/bzimage.h"

/* resolve a job variant's kernel */
int kernel_resolve(const struct job_variant *v, struct kernel_info *ki);
/*
 * The same for variant i of job, building KERNEL_SOURCE variants through
 * the kernel cache (kcache.h) when missing. On a failed build returns -1
 * with ki->build_failed set (and ki->build_log when make ran).
 */
int kernel_resolve_job(const struct job *job, size_t i, const char *cache_dir,
		       struct kernel_info *ki);
/* the same, building even when cached when rebuild is set */
int kernel_resolve_job_opt(const struct job *job, size_t i, const char *cache_dir, bool rebuild,
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
/* the record of ki (kernel_json.c): a new reference, NULL when there is nothing to record */
json_t *kernel_info_json(const struct kernel_info *ki);

#endif
