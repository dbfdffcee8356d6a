/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - the cached guest images under CACHE/images/ (docs/image.md):
 * initramfs-HASH.cpio.gz and debootstrap-HASH.qcow2, each with
 * KIND-HASH.json next to it (key=value lines: what the hash covers,
 * recipe=NAME, guest=HASH of the guest programs it holds). An image is
 * built as *.tmp.<pid> and renamed into place when complete.
 */
#ifndef MMLAB_IMAGE_CACHE_H
#define MMLAB_IMAGE_CACHE_H

#include <stdbool.h>

#include <jansson.h>

/* [{"kind":"initramfs","path","hash","size","created","recipe"?}]; a new reference */
json_t *image_list(const char *cache_dir);
/* [{"kind":"debootstrap","path","hash","size","created","suite","packages","recipe"?}] */
/* a new reference */
json_t *disk_image_list(const char *cache_dir);
/* both, initramfs images first; a new reference */
json_t *image_cache_list(const char *cache_dir);

/*
 * Remove leftovers of interrupted builds and every cached image (initramfs
 * and debootstrap) whose guest programs are not the current ones; with all,
 * every image. Returns the removed paths as a JSON array, NULL on error.
 * Returns a new reference.
 */
json_t *image_cache_gc(const char *cache_dir, bool all);

#endif
