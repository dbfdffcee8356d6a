/* SPDX-License-Identifier: GPL-2.0 */
/*
 * payload.h - the files one boot gives the guest beside its image: the
 * guest plan, a workload's kernel module, a source-built kernel's
 * modules, a command workload's files and program. One list, filled the
 * same way whatever the image: host file (or bytes) -> guest path, mode.
 * It becomes one uncompressed cpio (common/proto.h, THE PAYLOAD): the
 * initramfs appends it to the base image (image_boot_initrd_files()),
 * a disk image boot hands it to the agent on a second, read-only virtio
 * disk (disk_payload_write()). No filesystem and no libguestfs appliance
 * on the way (docs/image.md, BOOTING IT).
 */
#ifndef MMLAB_IMAGE_PAYLOAD_H
#define MMLAB_IMAGE_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#define PAYLOAD_MAX_FILES 100000
#define PAYLOAD_FILE_MAX (1ULL << 30) /* one host file */
/* mode 0: 0755 when the host file has an x bit, else 0644 */
#define PAYLOAD_MODE_HOST 0

struct payload_file {
	char *guest; /* "mmlab/plan": relative to the guest's /, checked when written */
	char *host; /* the host file, or NULL: data */
	char *data; /* the contents when host is NULL */
	size_t len;
	unsigned int mode; /* permission bits, or PAYLOAD_MODE_HOST */
};

struct payload {
	struct payload_file *v;
	size_t n, alloc;
};

/*
 * Add a file. guest is the path in the guest, with or without its
 * leading '/'. A later entry for the same guest path replaces the
 * earlier one. The host file is read when the payload is written.
 */
void payload_add_file(struct payload *p, const char *guest, const char *host, unsigned int mode);
void payload_add_data(struct payload *p, const char *guest, const void *data, size_t len,
		      unsigned int mode);
/* a plan as the text the guest reads ("key=value" lines; malloc'd, NULL: out of memory) */
char *payload_plan_text(const struct kvlist *plan);
/* the plan as MMPLAN_PATH; -1 after a message when it is larger than the agent reads */
int payload_add_plan(struct payload *p, const struct kvlist *plan);
/* how payload_add_tree() walks a tree; NULL: the defaults (all zero) */
struct payload_tree_opts {
	const char *const *skip_top; /* names left out at the top level, NULL-terminated */
	/* a symbolic link to a regular file inside host_dir: that file's contents */
	bool links_inside;
};
/*
 * Every regular file under host_dir as guest_dir/<the same relative
 * path>, with its mode; symbolic links (a module tree's build and source)
 * and other special files are left out, but for links_inside. 0, or -1
 * after a message.
 */
int payload_add_tree(struct payload *p, const char *guest_dir, const char *host_dir,
		     const struct payload_tree_opts *o);
void payload_release(struct payload *p);

/*
 * Write p as a cpio (newc, no compression, directories above each file
 * first) at fd's current offset, in one pass (host files streamed).
 * what names the output in messages. Returns the bytes written, or -1
 * after one message (a bad guest path, an unreadable host file).
 */
int64_t payload_write_cpio(const struct payload *p, int fd, const char *what);

/* a usable guest path (without the leading '/'): printable ASCII, no ".", ".." or empty parts */
bool payload_guest_path_ok(const char *rel);

#endif
