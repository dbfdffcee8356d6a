// SPDX-License-Identifier: GPL-2.0
/*
 * cpio.c - a cpio newc archive being written (cpio.h).
 */
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "image/cpio.h"
#include "lib/util.h"

static int cpio_fail(struct cpio *c, const char *name)
{
	const char *e = archive_error_string(c->a);

	lab_err("%s: writing %s: %s", c->what, name, e ? e : "libarchive failed");
	return -1;
}

static void cpio_init(struct cpio *c, const char *what, unsigned long ino0)
{
	c->a = archive_write_new();
	c->what = what;
	c->dirs = json_object();
	c->ino = ino0;
}

int cpio_open_file(struct cpio *c, const char *path, unsigned long ino0)
{
	cpio_init(c, path, ino0);
	if (archive_write_set_format_cpio_newc(c->a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(c->a) != ARCHIVE_OK ||
	    archive_write_open_filename(c->a, path) != ARCHIVE_OK)
		return cpio_fail(c, "the archive");
	return 0;
}

int cpio_open_fd(struct cpio *c, int fd, const char *what, unsigned long ino0)
{
	cpio_init(c, what, ino0);
	if (archive_write_set_format_cpio_newc(c->a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(c->a) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(c->a, 0) != ARCHIVE_OK ||
	    archive_write_open_fd(c->a, fd) != ARCHIVE_OK)
		return cpio_fail(c, "the archive");
	return 0;
}

int cpio_header(struct cpio *c, const char *name, unsigned int type, unsigned int perm,
		uint64_t size, dev_t rdev)
{
	struct archive_entry *e = archive_entry_new();
	int ret = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_nlink(e, type == AE_IFDIR ? 2 : 1);
	archive_entry_set_ino(e, (la_int64_t)c->ino++);
	if (type == AE_IFCHR || type == AE_IFBLK)
		archive_entry_set_rdev(e, rdev);
	archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)size : 0);
	if (archive_write_header(c->a, e) != ARCHIVE_OK)
		ret = cpio_fail(c, name);
	archive_entry_free(e);
	return ret;
}

int cpio_data(struct cpio *c, const char *name, const void *data, size_t len)
{
	if (len && archive_write_data(c->a, data, len) != (la_ssize_t)len)
		return cpio_fail(c, name);
	return 0;
}

int cpio_file(struct cpio *c, const char *name, unsigned int perm, const void *data, size_t len)
{
	if (cpio_header(c, name, AE_IFREG, perm, len, 0))
		return -1;
	return cpio_data(c, name, data, len);
}

int cpio_dir(struct cpio *c, const char *d)
{
	if (json_object_get(c->dirs, d))
		return 0;
	json_object_set_new(c->dirs, d, json_true());
	return cpio_header(c, d, AE_IFDIR, 0755, 0, 0);
}

int cpio_parents(struct cpio *c, const char *name)
{
	char *p = xstrdup(name);
	int ret = 0;

	for (char *s = strchr(p, '/'); s && !ret; s = strchr(s + 1, '/')) {
		*s = '\0';
		ret = cpio_dir(c, p);
		*s = '/';
	}
	free(p);
	return ret;
}

int64_t cpio_close(struct cpio *c)
{
	if (archive_write_close(c->a) != ARCHIVE_OK)
		return cpio_fail(c, "the archive's end");
	return archive_filter_bytes(c->a, -1);
}

void cpio_free(struct cpio *c)
{
	archive_write_free(c->a);
	json_decref(c->dirs);
	c->a = NULL;
	c->dirs = NULL;
}
