/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diskimage.h - the Debian disk image (docs/image.md): debootstrap into a
 * staging directory as its recipe says (images/debootstrap.yaml: suite,
 * variant, packages, size, dirs, files; recipe.h), the guest agent
 * installed as /sbin/mmlab-agent (booted with init=/sbin/mmlab-agent) and
 * the workloads under /mmlab/workloads, packed into a qcow2 with the
 * libguestfs C API and cached under CACHE/images/ by the hash of the
 * recipe. libguestfs only builds images: each boot gets a qcow2 overlay on
 * top of it (the base never changes) and its plan and files on a second,
 * read-only disk that the agent unpacks; collected files come back on the
 * data channel (lab/guest/files.h).
 */
#ifndef MMLAB_DISKIMAGE_H
#define MMLAB_DISKIMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "image/cache.h"
#include "image/payload.h"
#include "image/recipe.h"
#include "lib/util.h"

#define DISK_AGENT_PATH "sbin/mmlab-agent"

/* a recipe file and what a job or the command line changes in it */
struct disk_recipe {
	const char *recipe; /* the recipe file; NULL: images/debootstrap.yaml */
	const char *suite; /* NULL: the recipe's */
	const struct strlist *packages; /* added to the recipe's, may be NULL */
	uint64_t size_bytes; /* 0: the recipe's */
};

struct disk_image {
	char *path; /* the cached base qcow2 */
	char hash[65]; /* recipe hash */
	bool built; /* built now */
};

/* r's recipe file (kind debootstrap) with r's changes; 0 or -1 after a message */
int disk_recipe_resolve(const struct disk_recipe *r, struct image_recipe *out);
/* r's changes (suite, packages, size; not its recipe) applied to rec */
void disk_recipe_apply(const struct disk_recipe *r, struct image_recipe *rec);

/*
 * Find the image of a resolved recipe in cache_dir/images, or build it
 * (minutes: prints progress with lab_info). A failed build leaves nothing
 * in the cache. The hash covers the suite, the sorted packages, the size,
 * the agent and workloads, and the variant and layout when they are not
 * format 1's. With dry_run only the hash and path are filled (the image is
 * cached when the path exists). 0, or -1 after one message.
 *
 * A build runs libguestfs's appliance with QEMU: tcg says that KVM does
 * not work here (the lab's accel verdict). Unless the user set them,
 * LIBGUESTFS_BACKEND becomes "direct" and, under TCG,
 * LIBGUESTFS_BACKEND_SETTINGS "force_tcg".
 */
int disk_image_make(const char *cache_dir, const struct image_recipe *r, bool dry_run, bool tcg,
		    struct disk_image *out);
/* disk_recipe_resolve() + disk_image_make() */
int disk_image_get(const char *cache_dir, const struct disk_recipe *r, bool tcg,
		   struct disk_image *out);
void disk_image_release(struct disk_image *d);

/*
 * Per boot, without libguestfs: a qcow2 overlay whose backing file is
 * base (qemu-img; base must be readable by QEMU and is never written),
 * and the payload disk (the boot's files as a raw cpio, common/proto.h,
 * THE PAYLOAD) that the domain gets read-only beside it. 0 or -1 after a
 * message; nothing is left behind on failure.
 */
int disk_overlay_create(const char *base, const char *overlay);
int disk_payload_write(const struct payload *files, const char *path);

/*
 * The module tree of a kernel, which its disk-image initramfs is made from
 * (rootinitrd.h): disk_kernel_modules(), else /lib/modules/<release> for a
 * host kernel /boot/vmlinuz-<release>; NULL when it has none.
 */
char *disk_kernel_moddir(const char *kernel_path, const char *release);
/* <dir of kernel>/lib/modules/<release> when it exists, or NULL */
char *disk_kernel_modules(const char *kernel_path, const char *release);

#endif
