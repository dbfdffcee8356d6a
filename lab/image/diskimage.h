/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diskimage.h - the Debian disk image (docs/image.md): debootstrap into a
 * staging directory as its recipe says (images/debootstrap.yaml: suite,
 * variant, packages, size, dirs, files; recipe.h), the guest agent
 * installed as /sbin/mmlab-agent (booted with init=/sbin/mmlab-agent) and
 * the workloads under /mmlab/workloads, packed into a qcow2 with the
 * libguestfs C API and cached under CACHE/images/ by the hash of the recipe. Each boot gets a
 * qcow2 overlay on top of it (the base never changes) holding the guest
 * plan; files are collected from the overlay after the guest stops.
 */
#ifndef MMLAB_DISKIMAGE_H
#define MMLAB_DISKIMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "image/cache.h"
#include "image/recipe.h"
#include "lib/util.h"

#define DISK_AGENT_PATH "sbin/mmlab-agent"
#define DISK_COLLECT_MAX (64u << 20) /* per collected file */

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

/*
 * libguestfs runs its appliance with QEMU: tell it whether KVM works here
 * (the lab's accel verdict). Unless the user set them, LIBGUESTFS_BACKEND
 * becomes "direct" and, under TCG, LIBGUESTFS_BACKEND_SETTINGS "force_tcg".
 */
void disk_set_tcg(bool tcg);

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
 */
int disk_image_make(const char *cache_dir, const struct image_recipe *r, bool dry_run,
		    struct disk_image *out);
/* disk_recipe_resolve() + disk_image_make() */
int disk_image_get(const char *cache_dir, const struct disk_recipe *r, struct disk_image *out);
void disk_image_release(struct disk_image *d);

/*
 * Per boot: create overlay (qcow2, backing file base, which must be
 * readable by QEMU), write plan to /mmlab/plan in it, when modules_dir
 * is not NULL copy it to /lib/modules/<its basename>, and upload each host
 * file of extra (may be NULL; guest path -> host path, directories made and
 * modes set as for image_boot_initrd_extra()). 0 or -1 + message.
 */
int disk_overlay_prepare(const char *base, const char *overlay, const struct kvlist *plan,
			 const char *modules_dir, const struct kvlist *extra);

/*
 * After the guest stopped: copy each guest path of paths out of overlay
 * into dest_dir/files/<path>. Returns [{"path","size","stored"} or
 * {"path","error"}] (a missing file is recorded, not an error), or NULL
 * after a message when the overlay cannot be read at all.
 */
json_t *disk_collect(const char *overlay, const struct strlist *paths, const char *dest_dir);

/* the distro initrd next to a kernel: <dir>/initrd.img-<release>, or NULL */
char *disk_kernel_initrd(const char *kernel_path, const char *release);
/* <dir of kernel>/lib/modules/<release> when it exists, or NULL */
char *disk_kernel_modules(const char *kernel_path, const char *release);

#endif
