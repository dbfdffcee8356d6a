/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recipe.h - guest image recipes: the YAML files under images/
 * (docs/image.md) that say what an image holds. images/initramfs.yaml is
 * the default image, images/debootstrap.yaml the default Debian disk; a
 * user adds images/NAME.yaml (or any FILE.yaml) and names it with
 * "mmlab image build --recipe NAME" or a job's "image: { recipe: NAME }".
 *
 * What the boot depends on is not in a recipe but always in the image: the
 * guest agent (/init, or /sbin/mmlab-agent on a disk) and the workload
 * programs under /mmlab/workloads/ (common/proto.h).
 */
#ifndef MMLAB_IMAGE_RECIPE_H
#define MMLAB_IMAGE_RECIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/util.h"

#define RECIPE_FILE_MAX (64u << 10) /* a recipe file */
#define RECIPE_MAX_DIRS 64
#define RECIPE_MAX_DEVICES 16
#define RECIPE_MAX_FILES 64
#define RECIPE_MAX_PACKAGES 64
#define RECIPE_TEXT_MAX (16u << 10) /* the text of one file */
#define RECIPE_SRC_MAX (256u << 20) /* a host file copied in */
#define RECIPE_PATH_MAX 255 /* a path in the guest */
#define RECIPE_NAME_MAX 64 /* a recipe name */

enum recipe_kind {
	RECIPE_INITRAMFS, /* cpio newc + gzip, the agent as /init */
	RECIPE_DEBOOTSTRAP, /* a Debian root on a qcow2 disk */
};

struct recipe_device {
	char *path; /* in the guest, without the leading '/' */
	bool block; /* else a character device */
	unsigned int major, minor, mode;
};

struct recipe_file {
	char *path; /* in the guest, without the leading '/' */
	char *src; /* a host file (absolute), or NULL: */
	char *text; /* the contents */
	unsigned int mode;
};

struct image_recipe {
	char *path; /* the recipe file, absolute */
	char *name; /* its name: the file name without .yaml */
	enum recipe_kind kind;
	char *description; /* may be NULL */
	struct strlist dirs; /* made empty, in order; no leading '/' */
	struct recipe_device *devices; /* initramfs only */
	size_t ndevices;
	struct recipe_file *files;
	size_t nfiles;
	/* debootstrap only */
	char *suite;
	char *variant; /* minbase, buildd or standard */
	struct strlist packages; /* as listed */
	uint64_t size_bytes;
	char *mirror; /* NULL: MMLAB_DEBIAN_MIRROR, the host's apt sources, ... */
};

/* where recipes are found: $MMLAB_IMAGES_DIR, images/ next to ./mmlab, PREFIX/share/mmlab/images */
const char *image_recipe_dir(void);
const char *image_recipe_kind_name(enum recipe_kind k);

/*
 * The recipe file that name_or_path names: a path when it holds a '/' or
 * ends in ".yaml" (relative to base_dir, or to the current directory when
 * base_dir is NULL), else image_recipe_dir()/NAME.yaml. malloc'd, or NULL
 * after a message (no such recipe; the message lists the recipes there).
 */
char *image_recipe_path(const char *name_or_path, const char *base_dir);

/* load and check a recipe file; 0, or -1 after the errors and one summary */
int image_recipe_load(const char *path, struct image_recipe *r);
/* the same from a buffer; name in messages, src: paths relative to dir */
int image_recipe_parse(const char *name, const char *buf, size_t len, const char *dir,
		       struct image_recipe *r);
/* image_recipe_dir()/initramfs.yaml or debootstrap.yaml */
int image_recipe_load_default(enum recipe_kind k, struct image_recipe *r);
void image_recipe_release(struct image_recipe *r);

/*
 * What a recipe puts into the image beside the guest programs (dirs,
 * devices, files with the sha256 of their contents), as the text an image
 * hash covers. NULL after a message when a src file cannot be read.
 */
char *image_recipe_layout(const struct image_recipe *r);

/* Debian package and suite names: [a-z0-9][a-z0-9.-]* (plus '+' for packages) */
bool image_debian_name_ok(const char *s, bool plus);

#endif
