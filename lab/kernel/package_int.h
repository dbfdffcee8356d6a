/* SPDX-License-Identifier: GPL-2.0 */
/*
 * package_int.h - what package.c and package_fmt.c share: one unpacking
 * in progress, from memory or a file descriptor.
 */
#ifndef MMLAB_PACKAGE_INT_H
#define MMLAB_PACKAGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "kernel/package.h"
#include "lib/pkgname.h"

struct archive;

struct unpack {
	const unsigned char *mem; /* the package in memory, or */
	size_t len;
	int fd; /* the package's file (-1: mem) */
	const char *dest; /* the entry directory being filled */
	const char *where; /* the messages' prefix */
	const char *what; /* "the package FILE" */
	struct pkg_info *pi;
	unsigned int entries; /* read so far */
	bool has_image;
};

/* n bytes at off of the package: how many (short at the end), or -1 + message */
ssize_t pkg_src_read(struct unpack *u, size_t off, void *buf, size_t n);
/* open a: the whole package as libarchive's input; -1 + message */
int pkg_src_open(struct unpack *u, struct archive *a);
/* every entry of a payload (tar or cpio) taken or skipped; -1 + message */
int pkg_walk(struct unpack *u, struct archive *a);
/* the entry's data in memory, NUL-terminated, at most max bytes; NULL + message */
char *pkg_slurp(struct unpack *u, struct archive *a, const char *what, size_t max, size_t *len);
/* the package is for x86-64 (amd64, x86_64): 0, or -1 + message */
int pkg_check_arch(struct unpack *u);
/* the compressions a package's payload may use (package_walk.c) */
void pkg_filters(struct archive *a);
/* a .deb's ar members: plain names only, before libarchive reads them; -1 + message */
int pkg_ar_check(struct unpack *u);
/* an .rpm's payload, its cpio headers bounded before libarchive reads them */
int pkg_rpm_payload(struct unpack *u);
/* a .deb: control (name, version, architecture), then data.tar.* walked */
int pkg_unpack_deb(struct unpack *u);
/* an .rpm: its header (name, version, architecture), then the cpio payload walked */
int pkg_unpack_rpm(struct unpack *u);

/*
 * apt's outputs read (package_apt.c; pure, for the unit tests). Versions
 * and names that are not Debian's syntax (lib/pkgname.h) are ignored.
 */
#define PKG_NEAREST 5 /* names offered for an unknown one */
#define PKG_VERSIONS_SHOWN 12 /* versions listed for an unknown one */
struct strbuf;
/* apt-cache policy: the candidate (malloc'd, NULL for "(none)") and its source line */
char *pkg_policy_candidate(const char *out, char **source);
/*
 * apt-cache madison (out is cut up): 1 when it lists version; the other
 * versions, each once, the first PKG_VERSIONS_SHOWN into others ("a, b"),
 * and *n their count.
 */
int pkg_madison(char *out, const char *version, struct strbuf *others, size_t *n);
/* the PKG_NEAREST of names (lines; cut up) nearest name, best first, into sb */
void pkg_nearest(const char *name, char *names, struct strbuf *sb);

#endif
