// SPDX-License-Identifier: GPL-2.0
/*
 * package_walk.c - the payload of a package (tar or cpio) walked entry by
 * entry (package_int.h): where each entry goes, what is written and how
 * (bounded, O_EXCL|O_NOFOLLOW, modules decompressed), and the package's
 * bytes as libarchive's input. The containers around the payload are
 * package_fmt.c's, the bounds checked before libarchive package_guard.c's,
 * the whole unpacking package.c's.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/package.h"
#include "kernel/package_int.h"
#include "lib/util.h"

#define DEB_ARCH "amd64"
#define RPM_ARCH "x86_64"
#define KO_PACKED_MAX (64u << 20) /* one compressed module */
#define IOBUF (64u << 10)

ssize_t pkg_src_read(struct unpack *u, size_t off, void *buf, size_t n)
{
	ssize_t got;

	if (u->fd < 0) {
		if (off >= u->len)
			return 0;
		got = (ssize_t)(n < u->len - off ? n : u->len - off);
		memcpy(buf, u->mem + off, (size_t)got);
		return got;
	}
	got = pread(u->fd, buf, n, (off_t)off);
	if (got < 0)
		lab_err("%s: cannot read %s: %s", u->where, u->what, strerror(errno));
	return got;
}

int pkg_src_open(struct unpack *u, struct archive *a)
{
	int r;

	if (u->fd >= 0) {
		lseek(u->fd, 0, SEEK_SET);
		r = archive_read_open_fd(a, u->fd, IOBUF);
	} else {
		r = archive_read_open_memory(a, u->mem, u->len);
	}
	if (r == ARCHIVE_OK)
		return 0;
	lab_err("%s: %s is truncated or corrupt (%s); fetch it again or give another file",
		u->where, u->what, archive_error_string(a) ?: "cannot open it");
	return -1;
}

/* libarchive's "all" would also run lrzip or grzip (package_guard.c) */
void pkg_filters(struct archive *a)
{
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_bzip2(a);
}

/* ---- where an entry goes ------------------------------------------------ */

enum slot { SLOT_SKIP, SLOT_IMAGE, SLOT_CONFIG, SLOT_SYSMAP, SLOT_MODULE };

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > 255 || (n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2)))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e || s[i] == '/' ||
		    s[i] == '\\')
			return false;
	return true;
}

/* every component of rel is a plain name (no "", ".", ".."; printable) */
static bool rel_ok(const char *rel)
{
	for (const char *p = rel;;) {
		const char *sl = strchr(p, '/');
		size_t n = sl ? (size_t)(sl - p) : strlen(p);

		if (!name_ok(p, n))
			return false;
		if (!sl)
			return true;
		p = sl + 1;
	}
}

static bool prefix(const char *s, const char *pre, const char **rest)
{
	size_t n = strlen(pre);

	if (strncmp(s, pre, n))
		return false;
	*rest = s + n;
	return true;
}

/*
 * The slot of path p (leading "./" and "/" gone): *rel gets the release
 * (malloc'd) and *sub the path under lib/modules/REL/ for a module file.
 */
static enum slot classify(const char *p, char **rel, const char **sub)
{
	static const char *const boot[] = { "boot/vmlinuz-", "boot/config-", "boot/System.map-" };
	static const char *const inmod[] = { "vmlinuz", "config", "System.map" };
	const char *r;

	for (int i = 0; i < 3; i++)
		if (prefix(p, boot[i], &r) && name_ok(r, strlen(r))) {
			*rel = xstrdup(r);
			return SLOT_IMAGE + i;
		}
	if (!prefix(p, "usr/lib/modules/", &r) && !prefix(p, "lib/modules/", &r))
		return SLOT_SKIP;
	*sub = strchr(r, '/');
	if (!*sub || !name_ok(r, (size_t)(*sub - r)) || !*++*sub)
		return SLOT_SKIP;
	*rel = xstrndup(r, (size_t)(*sub - 1 - r));
	for (int i = 0; i < 3; i++)
		if (!strcmp(*sub, inmod[i]))
			return SLOT_IMAGE + i;
	return SLOT_MODULE;
}

/* ---- writing ------------------------------------------------------------ */

static int open_new(struct unpack *u, const char *rel)
{
	char *path = xasprintf("%s/%s", u->dest, rel), *slash = strrchr(path, '/');
	int fd = -1;

	*slash = '\0';
	if (mkdir_p(path, 0755) == 0) {
		*slash = '/';
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		lab_err("%s: %s: cannot write %s from it: %s%s", u->where, u->what, rel,
			strerror(errno),
			errno == EEXIST ? " (the package names it twice: refused as malformed)" :
					  "");
	free(path);
	return fd;
}

static int account(struct unpack *u, const char *rel, uint64_t *file, size_t n)
{
	*file += n;
	u->pi->bytes += n;
	if (*file > PKG_FILE_MAX || u->pi->bytes > PKG_TOTAL_MAX) {
		lab_err("%s: %s: %s is larger than %u MiB (or the package than %llu GiB): refused; "
			"a kernel package is much smaller, so this one is not one",
			u->where, u->what, rel, PKG_FILE_MAX >> 20, PKG_TOTAL_MAX >> 30);
		return -1;
	}
	return 0;
}

static int read_fail(struct unpack *u, struct archive *a)
{
	lab_err("%s: %s is truncated or corrupt (%s); fetch it again or give another file",
		u->where, u->what, archive_error_string(a) ?: "read error");
	return -1;
}

/* the entry's data into dest/rel */
static int write_entry(struct unpack *u, struct archive *a, const char *rel)
{
	char *buf = xmalloc(IOBUF);
	uint64_t got = 0;
	int fd = open_new(u, rel), ret = fd < 0 ? -1 : 0;
	la_ssize_t n;

	while (!ret && (n = archive_read_data(a, buf, IOBUF)) != 0) {
		if (n < 0)
			ret = read_fail(u, a);
		else if (account(u, rel, &got, (size_t)n))
			ret = -1;
		else if (fd_write_all(fd, buf, (size_t)n)) {
			lab_err("%s: cannot write %s/%s: %s; check the free space", u->where,
				u->dest, rel, strerror(errno));
			ret = -1;
		}
	}
	if (fd >= 0 && close(fd) && !ret) {
		lab_err("%s: cannot write %s/%s: %s", u->where, u->dest, rel, strerror(errno));
		ret = -1;
	}
	u->pi->files += !ret;
	free(buf);
	return ret;
}

/* the whole entry in memory (package_int.h) */
char *pkg_slurp(struct unpack *u, struct archive *a, const char *what, size_t max, size_t *len)
{
	size_t cap = 1 << 16;
	char *buf = xmalloc(cap + 1);
	la_ssize_t n;

	*len = 0;
	while ((n = archive_read_data(a, buf + *len, cap - *len)) > 0) {
		*len += (size_t)n;
		if (*len == cap && cap >= max) {
			lab_err("%s: %s: %s is larger than %zu KiB: refused", u->where, u->what,
				what, max >> 10);
			free(buf);
			return NULL;
		}
		if (*len == cap) {
			cap = cap * 2 > max ? max : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	if (n < 0) {
		read_fail(u, a);
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* a compressed module (.ko.xz, .ko.zst, .ko.gz) written as the plain .ko */
static int write_unpacked_ko(struct unpack *u, struct archive *a, const char *rel)
{
	size_t len, keep = strlen(rel) - (strrchr(rel, '.') ? strlen(strrchr(rel, '.')) : 0);
	char *packed = pkg_slurp(u, a, rel, KO_PACKED_MAX, &len), *ko = xstrndup(rel, keep);
	struct archive *raw = archive_read_new();
	struct archive_entry *e;
	int ret = -1;

	pkg_filters(raw);
	archive_read_support_format_raw(raw);
	if (packed && archive_read_open_memory(raw, packed, len) == ARCHIVE_OK &&
	    archive_read_next_header(raw, &e) == ARCHIVE_OK)
		ret = write_entry(u, raw, ko);
	else if (packed)
		ret = read_fail(u, raw);
	archive_read_free(raw);
	free(packed);
	free(ko);
	return ret;
}

static bool packed_ko(const char *rel)
{
	static const char *const ext[] = { ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(rel);

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++)
		if (n > strlen(ext[i]) && !strcmp(rel + n - strlen(ext[i]), ext[i]))
			return true;
	return false;
}

/* ---- one entry of the payload ------------------------------------------- */

static const char *const slot_file
	[] = { [SLOT_IMAGE] = "vmlinuz", [SLOT_CONFIG] = "config", [SLOT_SYSMAP] = "System.map" };

static int check_release(struct unpack *u, const char *rel)
{
	if (!u->pi->release) {
		u->pi->release = xstrdup(rel);
		return 0;
	}
	if (!strcmp(u->pi->release, rel))
		return 0;
	lab_err("%s: %s holds more than one kernel (%s and %s); give a package with one", u->where,
		u->what, u->pi->release, rel);
	return -1;
}

/* a link or other non-file: skipped, but not where the image must be */
static int odd_entry(struct unpack *u, struct archive_entry *e, enum slot s, const char *p)
{
	mode_t t = archive_entry_filetype(e);

	if (t == AE_IFDIR)
		return 0;
	if ((t == AE_IFLNK || archive_entry_hardlink(e)) && s == SLOT_MODULE) {
		u->pi->links_skipped++;
		return 0;
	}
	lab_err("%s: %s: %s is %s, not a file: refused (a kernel package holds the %s itself; "
		"links and device nodes are never created)",
		u->where, u->what, p,
		t == AE_IFLNK || archive_entry_hardlink(e) ? "a link" : "a special file",
		s == SLOT_MODULE ? "module" : "image");
	return -1;
}

static int take_entry(struct unpack *u, struct archive *a, struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e), *sub = NULL;
	char *rel = NULL, *out;
	enum slot s;
	int ret;

	if (++u->entries > PKG_ENTRIES_MAX || !p || strlen(p) > PKG_PATH_MAX) {
		lab_err("%s: %s: %s: refused (at most %u entries of paths up to %u bytes)",
			u->where, u->what,
			!p			     ? "an entry without a path" :
			u->entries > PKG_ENTRIES_MAX ? "too many entries" :
						       "a path too long",
			PKG_ENTRIES_MAX, PKG_PATH_MAX);
		return -1;
	}
	while (*p == '.' && p[1] == '/')
		p += 2;
	while (*p == '/')
		p++;
	if (archive_entry_filetype(e) == AE_IFDIR)
		return 0; /* made as the files in it need them */
	s = classify(p, &rel, &sub);
	if (s == SLOT_SKIP) {
		free(rel);
		return 0;
	}
	if (s == SLOT_MODULE && !rel_ok(sub)) {
		lab_err("%s: %s: the path %s leaves lib/modules/%s or is not printable: refused",
			u->where, u->what, p, rel);
		free(rel);
		return -1;
	}
	if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e)) {
		ret = odd_entry(u, e, s, p);
		free(rel);
		return ret;
	}
	if (check_release(u, rel)) {
		free(rel);
		return -1;
	}
	out = s == SLOT_MODULE ? xasprintf("lib/modules/%s/%s", rel, sub) : xstrdup(slot_file[s]);
	ret = s == SLOT_MODULE && packed_ko(out) ? write_unpacked_ko(u, a, out) :
						   write_entry(u, a, out);
	u->has_image |= !ret && s == SLOT_IMAGE;
	free(out);
	free(rel);
	return ret;
}

int pkg_walk(struct unpack *u, struct archive *a)
{
	struct archive_entry *e;
	int r;

	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)
		if (take_entry(u, a, e))
			return -1;
	return r == ARCHIVE_EOF ? 0 : read_fail(u, a);
}

/* ---- the whole package ---------------------------------------------------- */

int pkg_check_arch(struct unpack *u)
{
	const char *want = u->pi->format == PKG_RPM ? RPM_ARCH : DEB_ARCH;

	if (u->pi->arch && !strcmp(u->pi->arch, want))
		return 0;
	lab_err("%s: %s is a package for the architecture '%s', not %s: refused; mmlab boots "
		"x86-64 guests, give the %s package",
		u->where, u->what, u->pi->arch ? u->pi->arch : "?", want, want);
	return -1;
}
