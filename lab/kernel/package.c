// SPDX-License-Identifier: GPL-2.0
/*
 * package.c - a .deb or an .rpm unpacked with libarchive (package.h):
 * the format told by its magic, then package_fmt.c's container reader,
 * which hands the payload to package_walk.c.
 *
 * A .deb is an ar archive: debian-binary, control.tar.* (read for
 * Package, Version, Architecture before anything is written) and
 * data.tar.*, read as a stream from the outer archive. An .rpm's header is
 * read here for its name and architecture (libarchive does not expose it);
 * its cpio payload is libarchive's (the rpm filter, then any compression).
 * Every path, size and count is bounded; only regular files are written,
 * with O_EXCL|O_NOFOLLOW, under directories this file made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/package.h"
#include "kernel/package_int.h"
#include "lib/util.h"

const char *pkg_format_name(enum pkg_format f)
{
	return f == PKG_RPM ? "rpm" : "deb";
}

void pkg_info_release(struct pkg_info *pi)
{
	free(pi->name);
	free(pi->version);
	free(pi->arch);
	free(pi->release);
	memset(pi, 0, sizeof(*pi));
}

static int unpack(struct unpack *u, const char *want, bool need_image)
{
	unsigned char head[8];
	ssize_t n = pkg_src_read(u, 0, head, sizeof(head));
	int ret;

	if (n < 0)
		return -1;
	if (n == 8 && !memcmp(head, "!<arch>\n", 8))
		u->pi->format = PKG_DEB;
	else if (n >= 4 && !memcmp(head, "\xed\xab\xee\xdb", 4))
		u->pi->format = PKG_RPM;
	else {
		lab_err("%s: %s is neither a .deb (ar archive) nor an .rpm (no magic number): "
			"refused; give a kernel package file",
			u->where, u->what);
		return -1;
	}
	if (want && strcmp(want, pkg_format_name(u->pi->format))) {
		lab_err("%s: %s is an %s file, not a %s: write '%s: FILE' in the job", u->where,
			u->what, pkg_format_name(u->pi->format), want,
			pkg_format_name(u->pi->format));
		return -1;
	}
	ret = u->pi->format == PKG_DEB ? pkg_unpack_deb(u) : pkg_unpack_rpm(u);
	if (!ret && need_image && !u->has_image) {
		lab_err("%s: %s (%s %s) holds no kernel image (boot/vmlinuz-* or "
			"lib/modules/*/vmlinuz): refused; give the package of the kernel itself "
			"(Debian: linux-image-*, Fedora: kernel-core, openSUSE: kernel-default)",
			u->where, u->what, u->pi->name ?: "?", u->pi->version ?: "?");
		ret = -1;
	}
	return ret;
}

int pkg_unpack_mem(const void *buf, size_t len, const char *dest, const char *want, bool need_image,
		   const char *where, struct pkg_info *pi)
{
	struct unpack u = { .mem = buf,
			    .len = len,
			    .fd = -1,
			    .dest = dest,
			    .where = where,
			    .what = "the package",
			    .pi = pi };

	memset(pi, 0, sizeof(*pi));
	return unpack(&u, want, need_image);
}

int pkg_unpack_file(const char *path, const char *dest, const char *want, bool need_image,
		    const char *where, struct pkg_info *pi)
{
	struct unpack u = { .dest = dest, .where = where, .pi = pi };
	char *what = xasprintf("the package %s", path);
	int ret = -1;

	memset(pi, 0, sizeof(*pi));
	u.what = what;
	u.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (u.fd < 0)
		lab_err("%s: cannot read the package %s: %s", where, path, strerror(errno));
	else
		ret = unpack(&u, want, need_image);
	if (u.fd >= 0)
		close(u.fd);
	free(what);
	return ret;
}
