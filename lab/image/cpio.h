/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpio.h - a cpio newc archive being written, with libarchive: the base
 * initramfs (gzip, to a file) and a boot's payload (raw, to a descriptor)
 * write their entries through it.
 *
 * Every entry is owned by root, with mtime 0 and its own inode number, so
 * the same entries give the same cpio bytes (gzip's header adds the time). The kernel does not make the
 * directories above an entry: cpio_parents() writes the missing ones,
 * each once.
 */
#ifndef MMLAB_IMAGE_CPIO_H
#define MMLAB_IMAGE_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct archive;

struct cpio {
	struct archive *a;
	const char *what; /* for errors: "<what>: writing <entry>: <libarchive's>" */
	json_t *dirs; /* the directories written: a set */
	unsigned long ino; /* the next entry's inode number */
};

/* to the file path, gzip-compressed */
int cpio_open_file(struct cpio *c, const char *path, unsigned long ino0);
/* to fd, uncompressed and unpadded */
int cpio_open_fd(struct cpio *c, int fd, const char *what, unsigned long ino0);
/* an entry's header: size is a regular file's, rdev a device's */
int cpio_header(struct cpio *c, const char *name, unsigned int type, unsigned int perm,
		uint64_t size, dev_t rdev);
/* the next len bytes of the regular file whose header came last */
int cpio_data(struct cpio *c, const char *name, const void *data, size_t len);
/* a regular file's header and its whole contents */
int cpio_file(struct cpio *c, const char *name, unsigned int perm, const void *data, size_t len);
/* the directory d, unless it is written already */
int cpio_dir(struct cpio *c, const char *d);
/* the directories above name that are not written yet, outermost first */
int cpio_parents(struct cpio *c, const char *name);
/* the archive's end: the bytes written, or -1 */
int64_t cpio_close(struct cpio *c);
/* after cpio_open_*(), whatever they returned */
void cpio_free(struct cpio *c);

#endif
