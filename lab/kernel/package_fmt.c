// SPDX-License-Identifier: GPL-2.0
/*
 * package_fmt.c - the two package formats around the payload package.c
 * walks: a .deb's ar members (deb(5)) and an .rpm's lead and headers
 * (the rpm file format: a 96-byte lead, then the signature header padded
 * to 8 bytes, then the header; each header is the magic 8e ad e8 01, 4
 * reserved bytes, the index count and the data size, big-endian, the
 * 16-byte index entries and the data).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/package_int.h"
#include "lib/pkgname.h"
#include "lib/util.h"

#define IOBUF (64u << 10)
#define RPM_LEAD 96
#define RPM_INDEX_MAX 65536u
#define RPM_TAG_NAME 1000
#define RPM_TAG_VERSION 1001
#define RPM_TAG_RELEASE 1002
#define RPM_TAG_ARCH 1022
#define RPM_STRING 6

/* ---- .deb ---------------------------------------------------------------- */

/* the value of "Field: value" in a control file, or NULL */
static char *control_field(const char *text, const char *field)
{
	size_t n = strlen(field);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t vl;

		if (strncmp(l, field, n) || l[n] != ':')
			continue;
		l += n + 1;
		l += strspn(l, " \t");
		vl = strcspn(l, "\n");
		while (vl && (l[vl - 1] == ' ' || l[vl - 1] == '\t' || l[vl - 1] == '\r'))
			vl--;
		return xstrndup(l, vl);
	}
	return NULL;
}

static int control_fields(struct unpack *u, const char *text)
{
	struct pkg_info *pi = u->pi;

	pi->name = control_field(text, "Package");
	pi->version = control_field(text, "Version");
	pi->arch = control_field(text, "Architecture");
	if (pi->name && pkg_name_ok(pi->name) && pi->version && pkg_version_ok(pi->version) &&
	    pi->arch && pkg_name_ok(pi->arch))
		return 0;
	lab_err("%s: %s: its control file lacks a valid Package, Version or Architecture: "
		"refused as corrupt",
		u->where, u->what);
	return -1;
}

/* control.tar.* (in memory): its ./control read */
static int deb_control(struct unpack *u, struct archive *outer)
{
	size_t len, clen;
	char *tarball = pkg_slurp(u, outer, "control.tar", PKG_META_MAX, &len), *text = NULL;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int ret = -1;

	pkg_filters(a);
	archive_read_support_format_tar(a);
	if (tarball && archive_read_open_memory(a, tarball, len) == ARCHIVE_OK) {
		while (!text && archive_read_next_header(a, &e) == ARCHIVE_OK) {
			const char *p = archive_entry_pathname(e);

			if (p && (!strcmp(p, "./control") || !strcmp(p, "control")))
				text = pkg_slurp(u, a, "control", PKG_CONTROL_MAX, &clen);
		}
		if (text)
			ret = control_fields(u, text) || pkg_check_arch(u) ? -1 : 0;
		else
			lab_err("%s: %s has no control file in control.tar (%s): refused as corrupt",
				u->where, u->what, archive_error_string(a) ?: "not there");
	} else if (tarball) {
		lab_err("%s: %s: its control.tar is corrupt (%s): refused", u->where, u->what,
			archive_error_string(a) ?: "unreadable");
	}
	archive_read_free(a);
	free(tarball);
	free(text);
	return ret;
}

struct inner {
	struct archive *outer;
	char *buf;
};

static la_ssize_t inner_read(struct archive *a, void *arg, const void **out)
{
	struct inner *in = arg;
	la_ssize_t n = archive_read_data(in->outer, in->buf, IOBUF);

	if (n < 0) {
		archive_set_error(a, EIO, "%s", archive_error_string(in->outer) ?: "read error");
		return -1;
	}
	*out = in->buf;
	return n;
}

/* data.tar.*, streamed from the outer ar archive */
static int deb_data(struct unpack *u, struct archive *outer)
{
	struct inner in = { .outer = outer, .buf = xmalloc(IOBUF) };
	struct archive *a = archive_read_new();
	int ret = -1;

	pkg_filters(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, &in, NULL, inner_read, NULL) == ARCHIVE_OK)
		ret = pkg_walk(u, a);
	else
		lab_err("%s: %s: its data.tar is corrupt (%s): refused", u->where, u->what,
			archive_error_string(a) ?: "unreadable");
	archive_read_free(a);
	free(in.buf);
	return ret;
}

static int deb_member(struct unpack *u, struct archive *a, const char *p, int *seen)
{
	if (!strcmp(p, "debian-binary")) {
		*seen |= 1;
		return 0;
	}
	if (!strncmp(p, "control.tar", 11) && !(*seen & 2)) {
		*seen |= 2;
		return deb_control(u, a);
	}
	if (strncmp(p, "data.tar", 8) || (*seen & 4))
		return 0;
	*seen |= 4;
	if (*seen & 2)
		return deb_data(u, a);
	lab_err("%s: %s has data.tar before control.tar: refused as malformed (deb(5))", u->where,
		u->what);
	return -1;
}

int pkg_unpack_deb(struct unpack *u)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int r = ARCHIVE_FATAL, seen = 0, ret;

	archive_read_support_format_ar(a);
	ret = pkg_ar_check(u) || pkg_src_open(u, a) ? -1 : 0;
	while (!ret && ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN))
		ret = deb_member(u, a, archive_entry_pathname(e) ?: "", &seen);
	if (!ret && r != ARCHIVE_EOF) {
		lab_err("%s: %s is truncated or corrupt (%s); fetch it again or give another file",
			u->where, u->what, archive_error_string(a) ?: "read error");
		ret = -1;
	}
	if (!ret && seen != 7) {
		lab_err("%s: %s lacks %s: refused as truncated or not a Debian package", u->where,
			u->what,
			!(seen & 1) ? "debian-binary" :
			!(seen & 2) ? "control.tar" :
				      "data.tar");
		ret = -1;
	}
	archive_read_free(a);
	return ret;
}

/* ---- .rpm ---------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int rpm_bad(struct unpack *u, const char *why)
{
	lab_err("%s: %s is not a valid rpm (%s): refused as truncated or corrupt", u->where,
		u->what, why);
	return -1;
}

/* a header at off: its index count, data size and end; -1 + message */
static int rpm_header_at(struct unpack *u, size_t off, uint32_t *il, uint32_t *dl, size_t *end)
{
	unsigned char h[16];

	if (pkg_src_read(u, off, h, sizeof(h)) != (ssize_t)sizeof(h))
		return rpm_bad(u, "it ends inside a header");
	if (memcmp(h, "\x8e\xad\xe8\x01", 4))
		return rpm_bad(u, "a header lacks its magic number");
	*il = be32(h + 8);
	*dl = be32(h + 12);
	if (*il > RPM_INDEX_MAX || *dl > PKG_META_MAX)
		return rpm_bad(u, "a header is larger than mmlab reads");
	*end = off + 16 + (size_t)*il * 16 + *dl;
	return 0;
}

/* the string of tag in the header's index and data, or NULL */
static char *rpm_string(const unsigned char *idx, uint32_t il, const unsigned char *data,
			uint32_t dl, uint32_t tag)
{
	for (uint32_t i = 0; i < il; i++) {
		const unsigned char *ent = idx + (size_t)i * 16;
		uint32_t off = be32(ent + 8);
		const void *nul;

		if (be32(ent) != tag || be32(ent + 4) != RPM_STRING || off >= dl)
			continue;
		nul = memchr(data + off, '\0', dl - off);
		if (!nul || (size_t)((const unsigned char *)nul - (data + off)) > PKG_VERSION_MAX)
			return NULL;
		return xstrdup((const char *)data + off);
	}
	return NULL;
}

/* an rpm name, version-release or arch: [A-Za-z0-9._+~^-] (rpm's own set) */
static bool rpm_word_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= PKG_VERSION_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~^-") ==
		       n;
}

static int rpm_fields(struct unpack *u, const unsigned char *hdr, uint32_t il, uint32_t dl)
{
	struct pkg_info *pi = u->pi;
	char *ver = rpm_string(hdr, il, hdr + (size_t)il * 16, dl, RPM_TAG_VERSION);
	char *rel = rpm_string(hdr, il, hdr + (size_t)il * 16, dl, RPM_TAG_RELEASE);

	pi->name = rpm_string(hdr, il, hdr + (size_t)il * 16, dl, RPM_TAG_NAME);
	pi->arch = rpm_string(hdr, il, hdr + (size_t)il * 16, dl, RPM_TAG_ARCH);
	if (ver && rel)
		pi->version = xasprintf("%s-%s", ver, rel);
	free(ver);
	free(rel);
	if (rpm_word_ok(pi->name) && rpm_word_ok(pi->version) && rpm_word_ok(pi->arch))
		return 0;
	return rpm_bad(u, "its header lacks a valid name, version, release or arch");
}

/* the lead, the signature header and the header: name, version, arch */
static int rpm_head(struct unpack *u)
{
	uint32_t il, dl;
	size_t end;
	unsigned char *hdr;
	int ret;

	if (rpm_header_at(u, RPM_LEAD, &il, &dl, &end))
		return -1;
	end = (end + 7) & ~(size_t)7;
	if (rpm_header_at(u, end, &il, &dl, &end))
		return -1;
	hdr = xmalloc((size_t)il * 16 + dl + 1);
	if (pkg_src_read(u, end - ((size_t)il * 16 + dl), hdr, (size_t)il * 16 + dl) !=
	    (ssize_t)((size_t)il * 16 + dl))
		ret = rpm_bad(u, "it ends inside its header");
	else
		ret = rpm_fields(u, hdr, il, dl);
	free(hdr);
	return ret;
}

int pkg_unpack_rpm(struct unpack *u)
{
	if (rpm_head(u) || pkg_check_arch(u))
		return -1;
	return pkg_rpm_payload(u);
}
