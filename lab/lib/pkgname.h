/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkgname.h - what a distribution package's name and version may look
 * like before they reach apt's command line (Debian Policy 5.6.1, 5.6.12),
 * shared by the job parser and `mmlab kernel fetch`.
 */
#ifndef MMLAB_PKGNAME_H
#define MMLAB_PKGNAME_H

#include <stdbool.h>

#define PKG_NAME_MAX 128
#define PKG_VERSION_MAX 128

/* [a-z0-9][a-z0-9+.-]+, at most PKG_NAME_MAX */
bool pkg_name_ok(const char *s);
/* [0-9A-Za-z][0-9A-Za-z.+~:-]*, at most PKG_VERSION_MAX */
bool pkg_version_ok(const char *s);

#endif
