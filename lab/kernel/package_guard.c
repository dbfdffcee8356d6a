// SPDX-License-Identifier: GPL-2.0
/*
 * package_guard.c - the bounds mmlab checks itself before libarchive reads
 * a package's containers (package_int.h).
 *
 * libarchive trusts some size fields: its cpio reader reads an entry's
 * name (and a symbolic link's target) ahead in one piece of the size the
 * header gives, up to 4 GiB, and its ar reader reads a GNU name table
 * ("//") whole, up to 9.9 GB; the read-ahead buffer is allocated before
 * the bytes are known to exist. So:
 *
 *  - an .rpm's payload is decompressed by one reader (the rpm filter and
 *    the compression, format raw) and handed to the cpio reader through
 *    pkg_cpio_guard_read(), which parses every newc header as the bytes
 *    pass, before the cpio reader sees them, and refuses a name over
 *    PKG_PATH_MAX, a link target over PKG_LINK_MAX and any cpio format
 *    but newc (rpm writes only that);
 *  - a .deb's ar members are listed here first (pkg_ar_check()): a .deb
 *    has three to a few plain names (deb(5)), never a name table.
 *
 * Only the compressions packages use are enabled (pkg_filters(), in
 * package_walk.c): libarchive's "all" also has lrzip and grzip, which run
 * external programs.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/package_int.h"
#include "lib/util.h"

#define NEWC_HDR 110
#define NEWC_MODE 14 /* offsets of the 8-hex-digit fields */
#define NEWC_FILESIZE 54
#define NEWC_NAMESIZE 94
#define AR_HDR 60
#define AR_MEMBERS_MAX 16u
#define IOBUF (64u << 10)

/* ---- a .deb's ar members -------------------------------------------------- */

static int ar_bad(struct unpack *u, const char *why, unsigned int i)
{
	lab_err("%s: %s: its ar member %u %s: refused as malformed (a .deb holds "
		"debian-binary, control.tar.* and data.tar.* under plain names, deb(5))",
		u->where, u->what, i + 1, why);
	return -1;
}

int pkg_ar_check(struct unpack *u)
{
	unsigned char h[AR_HDR];
	size_t off = 8;

	for (unsigned int i = 0;; i++) {
		ssize_t n = pkg_src_read(u, off, h, sizeof(h));
		uint64_t size = 0;
		size_t d;

		if (n < 0)
			return -1;
		if (n < (ssize_t)sizeof(h))
			return 0; /* the end, or a truncation libarchive reports */
		if (i >= AR_MEMBERS_MAX)
			return ar_bad(u, "is one too many", i);
		if (h[0] == '/' || !memcmp(h, "#1/", 3))
			return ar_bad(u, "has an extended name (a name table or a BSD long name)",
				      i);
		for (d = 0; d < 10 && h[48 + d] >= '0' && h[48 + d] <= '9'; d++)
			size = size * 10 + (h[48 + d] - '0');
		if (!d || memcmp(h + 58, "`\n", 2))
			return ar_bad(u, "has a corrupt header", i);
		off += AR_HDR + size + (size & 1);
	}
}

/* ---- an .rpm's cpio payload --------------------------------------------- */

struct cpio_guard {
	struct unpack *u;
	struct archive *raw; /* the decompressed payload */
	unsigned char *buf;
	unsigned char hdr[NEWC_HDR + PKG_PATH_MAX + 1];
	size_t have; /* bytes of hdr gathered */
	size_t want; /* bytes of hdr needed: the header, then with the name */
	uint64_t skip; /* bytes before the next header */
	bool trailer; /* past TRAILER!!!: the rest is padding */
};

static bool hex8(const unsigned char *p, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 8; i++) {
		int c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 :
					       -1;

		if (d < 0)
			return false;
		*v = *v << 4 | (uint32_t)d;
	}
	return true;
}

static int guard_fail(struct archive *a, const char *why, uint32_t n, uint32_t max)
{
	archive_set_error(a, EINVAL, "its cpio payload %s (%u bytes, mmlab reads at most %u)", why,
			  n, max);
	return -1;
}

/*
 * Every field of a newc header is 8 hex digits. libarchive's cpio reader
 * takes a header only when all of them are: on any other byte it scans
 * ahead for the next bytes that read as a header (inside a name or a
 * file's data, past what this guard parsed) and trusts its sizes. So a
 * header is refused unless the reader would take it where it is.
 */
static bool newc_fields_hex(const unsigned char *h)
{
	uint32_t v;

	for (size_t off = 6; off < NEWC_HDR; off += 8)
		if (!hex8(h + off, &v))
			return false;
	return true;
}

/* the header is whole: check it, and what follows it */
static int guard_header(struct cpio_guard *g, struct archive *a)
{
	uint32_t mode, fsize, nsize;

	if (memcmp(g->hdr, "07070", 5) || (g->hdr[5] != '1' && g->hdr[5] != '2') ||
	    !newc_fields_hex(g->hdr)) {
		archive_set_error(a, EINVAL,
				  "its payload is not a newc cpio archive (rpm's format)");
		return -1;
	}
	hex8(g->hdr + NEWC_MODE, &mode);
	hex8(g->hdr + NEWC_FILESIZE, &fsize);
	hex8(g->hdr + NEWC_NAMESIZE, &nsize);
	if (!nsize || nsize > PKG_PATH_MAX + 1)
		return guard_fail(a, "has an entry name of a wrong size", nsize, PKG_PATH_MAX + 1);
	if ((mode & 0170000) != 0100000 && fsize > PKG_LINK_MAX)
		return guard_fail(a, "has a link or special file of a wrong size", fsize,
				  PKG_LINK_MAX);
	g->want = NEWC_HDR + nsize;
	g->skip = ((4 - (g->want & 3)) & 3) + (((uint64_t)fsize + 3) & ~(uint64_t)3);
	return 0;
}

/* the bytes of p through the parser; -1 + archive error */
static int guard_scan(struct cpio_guard *g, struct archive *a, const unsigned char *p, size_t n)
{
	while (n && !g->trailer) {
		size_t take;

		if (g->skip) {
			take = g->skip < n ? (size_t)g->skip : n;
			g->skip -= take;
		} else {
			take = g->want - g->have < n ? g->want - g->have : n;
			memcpy(g->hdr + g->have, p, take);
			g->have += take;
			if (g->have == NEWC_HDR && g->want == NEWC_HDR && guard_header(g, a))
				return -1;
			if (g->have == g->want && g->want > NEWC_HDR) {
				g->trailer = g->want == NEWC_HDR + 11 &&
					     !memcmp(g->hdr + NEWC_HDR, "TRAILER!!!", 11);
				g->have = 0;
				g->want = NEWC_HDR;
			}
		}
		p += take;
		n -= take;
	}
	return 0;
}

static la_ssize_t guard_read(struct archive *a, void *arg, const void **out)
{
	struct cpio_guard *g = arg;
	la_ssize_t n = archive_read_data(g->raw, g->buf, IOBUF);

	if (n < 0) {
		archive_set_error(a, EIO, "%s", archive_error_string(g->raw) ?: "read error");
		return -1;
	}
	if (guard_scan(g, a, g->buf, (size_t)n))
		return -1;
	*out = g->buf;
	return n;
}

/* the payload (after rpm_head()) walked through the guard */
int pkg_rpm_payload(struct unpack *u)
{
	struct cpio_guard *g = xcalloc(1, sizeof(*g));
	struct archive *cpio = archive_read_new();
	struct archive_entry *e;
	int ret;

	g->u = u;
	g->want = NEWC_HDR;
	g->buf = xmalloc(IOBUF);
	g->raw = archive_read_new();
	archive_read_support_filter_rpm(g->raw);
	pkg_filters(g->raw);
	archive_read_support_format_raw(g->raw);
	archive_read_support_format_cpio(cpio);
	ret = pkg_src_open(u, g->raw);
	if (!ret && archive_read_next_header(g->raw, &e) != ARCHIVE_OK) {
		lab_err("%s: %s is truncated or corrupt (%s); fetch it again or give another file",
			u->where, u->what, archive_error_string(g->raw) ?: "no payload");
		ret = -1;
	}
	if (!ret && archive_read_open(cpio, g, NULL, guard_read, NULL) != ARCHIVE_OK) {
		lab_err("%s: %s is truncated or corrupt (%s); fetch it again or give another file",
			u->where, u->what, archive_error_string(cpio) ?: "no cpio payload");
		ret = -1;
	}
	if (!ret)
		ret = pkg_walk(u, cpio);
	archive_read_free(cpio);
	archive_read_free(g->raw);
	free(g->buf);
	free(g);
	return ret;
}
