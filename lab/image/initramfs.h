/* SPDX-License-Identifier: GPL-2.0 */
/*
 * initramfs.h - guest images. The default image is an initramfs (cpio newc +
 * gzip, written with libarchive) holding the static guest agent as /init
 * and the workload programs under /mmlab/workloads/. It is cached under
 * CACHE/images/ by a hash of its contents. Each boot appends a small
 * uncompressed cpio holding the guest plan (/mmlab/plan) and the boot's
 * files (payload.h).
 */
#ifndef MMLAB_IMAGE_INITRAMFS_H
#define MMLAB_IMAGE_INITRAMFS_H

#include <jansson.h>

#include "image/cache.h"
#include "image/payload.h"
#include "image/recipe.h"
#include "lib/util.h"

/* directory holding agent and workloads/ (MMLAB_GUEST_DIR overrides) */
const char *image_guest_dir(void);

struct image {
	char *path; /* the cached initramfs */
	char hash[65]; /* content hash (sha256 of the inputs) */
	bool built; /* built now rather than found in the cache */
};

/* find or build the default initramfs (images/initramfs.yaml); 0 or -1 after a message */
int image_initramfs(const char *cache_dir, struct image *img);
/* the same from the recipe file recipe (NULL: the default) */
int image_initramfs_get(const char *cache_dir, const char *recipe, struct image *img);
/*
 * The same from a loaded recipe of kind initramfs. With dry_run, only the
 * hash and the path the image has in the cache are filled (nothing built;
 * the image is cached when the path exists).
 */
int image_initramfs_make(const char *cache_dir, const struct image_recipe *r, bool dry_run,
			 struct image *img);
void image_release(struct image *img);

/*
 * write base + a cpio holding the plan (key=value lines) to out_path
 * (renamed into place, not fsynced: a boot's file, made again if lost)
 */
int image_boot_initrd(const char *base, const struct kvlist *plan, const char *out_path);

/*
 * The same with a boot's payload (the plan and its files, payload.h)
 * appended as an uncompressed cpio, which the kernel unpacks over the
 * base. Written to a temporary file renamed to out_path (no fsync: a
 * boot's files are thrown away with its stage). 0 or -1 after a message.
 */
int image_boot_initrd_files(const char *base, const struct payload *files, const char *out_path);

/* sha256 over the agent and workload programs (what an image is made of) */
int image_guest_hash(char out[65]);
/* copy the agent to root/agent_path and the workloads to root/mmlab/workloads/ */
int image_guest_install(const char *root, const char *agent_path);

#endif
