// SPDX-License-Identifier: GPL-2.0
/*
 * pkgname.c - Debian package names and versions (pkgname.h). Both go on
 * apt's command line as separate arguments: neither may start with '-'.
 */
#include <string.h>

#include "lib/pkgname.h"

static bool charset_ok(const char *s, size_t max, const char *first, const char *rest)
{
	size_t n = strlen(s);

	if (n < 1 || n > max || !strchr(first, s[0]))
		return false;
	return strspn(s, rest) == n;
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM LOWER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

bool pkg_name_ok(const char *s)
{
	return strlen(s) >= 2 && charset_ok(s, PKG_NAME_MAX, LOWER_DIGITS, LOWER_DIGITS "+.-");
}

bool pkg_version_ok(const char *s)
{
	return charset_ok(s, PKG_VERSION_MAX, ALNUM, ALNUM ".+~:-");
}
