/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rootinitrd.h - the small initramfs mmlab builds, per kernel, for disk
 * image boots (docs/image.md, "BOOTING IT"): the modules that mount a
 * virtio_blk ext4 root (virtio_pci, virtio_blk, crc32c_generic, ext4 and
 * their modules.dep dependencies; none built in) and the guest's rootinit
 * as /init, which loads them, mounts root= and runs init= on it. The same
 * for distro, lab-built and package kernels.
 */
#ifndef MMLAB_ROOTINITRD_H
#define MMLAB_ROOTINITRD_H

#include "lib/util.h"

/*
 * The modules (paths relative to moddir, from its modules.dep) a root
 * mount needs, in load order, appended to order; none for those built in
 * (modules.builtin). 0, or -1 after a message naming a missing driver.
 */
int rootinitrd_modules(const char *moddir, const char *release, struct strlist *order);
/*
 * The initramfs for the kernel release whose modules are in moddir: from
 * cache_dir/initrd/, or built there. *out is its path (malloc'd), or NULL
 * when the kernel needs none (every driver built in). 0, or -1 after one
 * message.
 */
int rootinitrd_get(const char *cache_dir, const char *moddir, const char *release, char **out);

#endif
