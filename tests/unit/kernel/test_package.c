// SPDX-License-Identifier: GPL-2.0
/*
 * test_package.c - the package unpacker (lab/kernel/package.c): .deb and
 * .rpm files made here with libarchive's writers (and a hand-made rpm lead
 * and header), unpacked into a scratch directory, and every refusal.
 * MMLAB_PKG_SEEDS=DIR also writes the packages made here into DIR (the
 * fuzz target's seeds, tests/fuzz/corpus/package/).
 */
#include <archive.h>
#include <archive_entry.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "kernel/package.h"
#include "lib/util.h"

#define BUFSZ (1u << 20)

struct ent {
	const char *path;
	const char *data; /* NULL: a directory; "->X": a symlink to X */
	size_t len; /* 0: strlen(data) */
};

struct buf {
	unsigned char *p;
	size_t len;
};

/* a tar (or cpio when cpio), compressed with xz when xz, of ents */
static struct buf archive_of(const struct ent *ents, bool cpio, bool xz)
{
	struct archive *a = archive_write_new();
	struct buf b = { .p = malloc(BUFSZ) };
	size_t used = 0;

	if (cpio)
		archive_write_set_format_cpio_newc(a);
	else
		archive_write_set_format_pax_restricted(a);
	if (xz)
		archive_write_add_filter_xz(a);
	archive_write_set_bytes_in_last_block(a, 1);
	assert_int_equal(archive_write_open_memory(a, b.p, BUFSZ, &used), ARCHIVE_OK);
	for (const struct ent *e = ents; e->path; e++) {
		struct archive_entry *ae = archive_entry_new();
		bool link = e->data && !strncmp(e->data, "->", 2);
		size_t len = e->data && !link ? (e->len ? e->len : strlen(e->data)) : 0;

		archive_entry_set_pathname(ae, e->path);
		archive_entry_set_filetype(ae, !e->data ? AE_IFDIR : link ? AE_IFLNK : AE_IFREG);
		archive_entry_set_perm(ae, 0644);
		archive_entry_set_size(ae, (la_int64_t)len);
		if (link)
			archive_entry_set_symlink(ae, e->data + 2);
		assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
		if (len)
			assert_int_equal(archive_write_data(a, e->data, len), (la_ssize_t)len);
		archive_entry_free(ae);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	b.len = used;
	return b;
}

static void ar_member(struct archive *a, const char *name, const void *p, size_t len)
{
	struct archive_entry *ae = archive_entry_new();

	archive_entry_set_pathname(ae, name);
	archive_entry_set_filetype(ae, AE_IFREG);
	archive_entry_set_perm(ae, 0644);
	archive_entry_set_size(ae, (la_int64_t)len);
	assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, p, len), (la_ssize_t)len);
	archive_entry_free(ae);
}

static struct buf deb_of(const char *arch, const struct ent *data)
{
	char *control = NULL;
	struct ent c[] = { { "./control", control, 0 }, { NULL, NULL, 0 } };
	struct buf cb, db, out = { .p = malloc(BUFSZ) };
	struct archive *a = archive_write_new();
	size_t used = 0;

	assert_true(asprintf(&control, "Package: linux-image-t\nVersion: 1.0-1\nArchitecture: %s\n",
			     arch) > 0);
	c[0].data = control;
	cb = archive_of(c, false, false);
	db = archive_of(data, false, true);
	archive_write_set_format_ar_svr4(a);
	assert_int_equal(archive_write_open_memory(a, out.p, BUFSZ, &used), ARCHIVE_OK);
	ar_member(a, "debian-binary", "2.0\n", 4);
	ar_member(a, "control.tar", cb.p, cb.len);
	ar_member(a, "data.tar.xz", db.p, db.len);
	archive_write_close(a);
	archive_write_free(a);
	out.len = used;
	free(cb.p);
	free(db.p);
	free(control);
	return out;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* an rpm: lead, empty signature header, a header of name/version/release/arch, cpio */
static struct buf rpm_of(const char *arch, const struct ent *data)
{
	static const uint32_t tags[] = { 1000, 1001, 1002, 1022 };
	const char *vals[] = { "kernel-core", "6.1.0", "1", arch };
	struct buf cp = archive_of(data, true, false), out = { .p = calloc(1, BUFSZ) };
	unsigned char *p = out.p, *idx, *store;
	uint32_t dl = 0;

	memcpy(p, "\xed\xab\xee\xdb\x03", 5);
	p[79] = 5; /* signature type: a header */
	memcpy(p + 96, "\x8e\xad\xe8\x01", 4); /* the signature header: empty */
	memcpy(p + 112, "\x8e\xad\xe8\x01", 4);
	put32(p + 120, 4);
	idx = p + 128;
	store = idx + 4 * 16;
	for (int i = 0; i < 4; i++) {
		put32(idx + i * 16, tags[i]);
		put32(idx + i * 16 + 4, 6);
		put32(idx + i * 16 + 8, dl);
		put32(idx + i * 16 + 12, 1);
		memcpy(store + dl, vals[i], strlen(vals[i]) + 1);
		dl += (uint32_t)strlen(vals[i]) + 1;
	}
	put32(p + 124, dl);
	out.len = (size_t)(store + dl - p);
	memcpy(p + out.len, cp.p, cp.len);
	out.len += cp.len;
	free(cp.p);
	return out;
}

static const char kernel[] = "fake bzImage";

static const struct ent good[] = {
	{ "./", NULL, 0 },
	{ "./boot/vmlinuz-1.0-t", kernel, 0 },
	{ "./boot/config-1.0-t", "CONFIG_X=y\n", 0 },
	{ "./boot/System.map-1.0-t", "ffff T x\n", 0 },
	{ "./lib/modules/1.0-t/", NULL, 0 },
	{ "./lib/modules/1.0-t/kernel/a.ko", "MODULE-A", 0 },
	{ "./lib/modules/1.0-t/modules.builtin", "kernel/dax.ko\n", 0 },
	{ "./lib/modules/1.0-t/build", "->/usr/src/linux-1.0-t", 0 },
	{ "./usr/share/doc/linux-image-t/copyright", "GPL", 0 },
	{ "./etc/kernel/postinst.d/x", "#!/bin/sh", 0 },
	{ NULL, NULL, 0 },
};

static char *scratch(void)
{
	char *d = strdup("/tmp/test_package.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void seed(const char *name, const struct buf *b)
{
	const char *dir = getenv("MMLAB_PKG_SEEDS");
	char *p;

	if (!dir)
		return;
	p = xasprintf("%s/%s", dir, name);
	assert_int_equal(write_file_atomic(p, b->p, b->len, 0644), 0);
	free(p);
}

static char *in(const char *d, const char *rel)
{
	return xasprintf("%s/%s", d, rel);
}

static void assert_file(const char *d, const char *rel, const char *want)
{
	char *p = in(d, rel), *got = read_file(p, NULL, 1 << 20);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(p);
}

static void assert_absent(const char *d, const char *rel)
{
	char *p = in(d, rel);

	assert_false(path_exists(p));
	free(p);
}

static void test_deb(void **state)
{
	struct buf b = deb_of("amd64", good);
	struct pkg_info pi;
	char *d = scratch();

	(void)state;
	seed("good.deb", &b);
	assert_int_equal(pkg_unpack_mem(b.p, b.len, d, "deb", true, "t", &pi), 0);
	assert_int_equal(pi.format, PKG_DEB);
	assert_string_equal(pi.name, "linux-image-t");
	assert_string_equal(pi.version, "1.0-1");
	assert_string_equal(pi.arch, "amd64");
	assert_string_equal(pi.release, "1.0-t");
	assert_int_equal(pi.files, 5);
	assert_int_equal(pi.links_skipped, 1);
	assert_file(d, "vmlinuz", kernel);
	assert_file(d, "config", "CONFIG_X=y\n");
	assert_file(d, "System.map", "ffff T x\n");
	assert_file(d, "lib/modules/1.0-t/kernel/a.ko", "MODULE-A");
	assert_absent(d, "lib/modules/1.0-t/build");
	assert_absent(d, "usr");
	assert_absent(d, "etc");
	pkg_info_release(&pi);
	rm_rf(d);
	free(d);
	free(b.p);
}

/* a module compressed with xz is stored as the plain .ko */
static void test_deb_packed_module(void **state)
{
	static const struct ent inner[] = { { "a.ko", "PLAIN-MODULE", 0 }, { NULL, NULL, 0 } };
	struct buf x = archive_of(inner, false, true);
	struct ent ents[] = { { "boot/vmlinuz-2", kernel, 0 },
			      { "lib/modules/2/kernel/a.ko.xz", NULL, 0 },
			      { NULL, NULL, 0 } };
	struct archive *a = archive_write_new();
	unsigned char xz[4096];
	size_t used = 0;
	struct buf b;
	struct pkg_info pi;
	char *d = scratch();

	(void)state;
	free(x.p);
	/* a raw xz stream of the module, as Debian's .ko.xz */
	archive_write_set_format_raw(a);
	archive_write_add_filter_xz(a);
	assert_int_equal(archive_write_open_memory(a, xz, sizeof(xz), &used), ARCHIVE_OK);
	{
		struct archive_entry *ae = archive_entry_new();

		archive_entry_set_filetype(ae, AE_IFREG);
		archive_entry_set_size(ae, 12);
		archive_write_header(a, ae);
		archive_write_data(a, "PLAIN-MODULE", 12);
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	ents[1].data = (const char *)xz;
	ents[1].len = used;
	b = deb_of("amd64", ents);
	assert_int_equal(pkg_unpack_mem(b.p, b.len, d, NULL, true, "t", &pi), 0);
	assert_file(d, "lib/modules/2/kernel/a.ko", "PLAIN-MODULE");
	assert_absent(d, "lib/modules/2/kernel/a.ko.xz");
	pkg_info_release(&pi);
	rm_rf(d);
	free(d);
	free(b.p);
}

static void test_rpm(void **state)
{
	static const struct ent ents[] = {
		{ "./usr/lib/modules/6.1.0-1.x86_64/vmlinuz", kernel, 0 },
		{ "./usr/lib/modules/6.1.0-1.x86_64/config", "CONFIG_Y=y\n", 0 },
		{ "./usr/lib/modules/6.1.0-1.x86_64/kernel/b.ko", "MODULE-B", 0 },
		{ NULL, NULL, 0 },
	};
	struct buf b = rpm_of("x86_64", ents);
	struct pkg_info pi;
	char *d = scratch();

	(void)state;
	seed("good.rpm", &b);
	assert_int_equal(pkg_unpack_mem(b.p, b.len, d, "rpm", true, "t", &pi), 0);
	assert_int_equal(pi.format, PKG_RPM);
	assert_string_equal(pi.name, "kernel-core");
	assert_string_equal(pi.version, "6.1.0-1");
	assert_string_equal(pi.arch, "x86_64");
	assert_string_equal(pi.release, "6.1.0-1.x86_64");
	assert_file(d, "vmlinuz", kernel);
	assert_file(d, "config", "CONFIG_Y=y\n");
	assert_file(d, "lib/modules/6.1.0-1.x86_64/kernel/b.ko", "MODULE-B");
	pkg_info_release(&pi);
	rm_rf(d);
	free(d);
	free(b.p);
}

/* b refused with a message containing msg, and no kernel image written */
static void refused(const struct buf *b, const char *want, bool need_image, const char *msg)
{
	struct pkg_info pi;
	struct capture c;
	char *d = scratch(), *errs;
	int ret;

	capture_start(&c);
	ret = pkg_unpack_mem(b->p, b->len, d, want, need_image, "job.yaml:4:13: variants[0].kernel",
			     &pi);
	errs = capture_end(&c);
	if (ret != -1 || !strstr(errs, msg) || !strstr(errs, "job.yaml:4:13: "))
		fail_msg("want -1 and \"%s\", got %d and:\n%s", msg, ret, errs);
	free(errs);
	pkg_info_release(&pi);
	rm_rf(d);
	free(d);
}

static void test_refusals(void **state)
{
	static const struct ent dotdot[] = { { "boot/vmlinuz-1", kernel, 0 },
					     { "lib/modules/1/../../../../tmp/x.ko", "X", 0 },
					     { NULL, NULL, 0 } };
	static const struct ent noimg[] = { { "lib/modules/1/a.ko", "A", 0 }, { NULL, NULL, 0 } };
	static const struct ent linkimg[] = { { "boot/vmlinuz-1", "->/etc/passwd", 0 },
					      { NULL, NULL, 0 } };
	static const struct ent twice[] = { { "boot/vmlinuz-1", kernel, 0 },
					    { "boot/vmlinuz-1", kernel, 0 },
					    { NULL, NULL, 0 } };
	static const struct ent two[] = { { "boot/vmlinuz-1", kernel, 0 },
					  { "boot/vmlinuz-2", kernel, 0 },
					  { NULL, NULL, 0 } };
	struct buf b;

	(void)state;
	b = deb_of("arm64", good);
	seed("arm64.deb", &b);
	refused(&b, "deb", true, "for the architecture 'arm64', not amd64");
	b.len /= 2;
	seed("truncated.deb", &b);
	refused(&b, "deb", true, "truncated or corrupt");
	refused(&b, "rpm", true, "is an deb file, not a rpm");
	free(b.p);
	b = deb_of("amd64", dotdot);
	refused(&b, NULL, true, "leaves lib/modules/1");
	free(b.p);
	b = deb_of("amd64", noimg);
	refused(&b, NULL, true, "holds no kernel image");
	free(b.p);
	b = deb_of("amd64", linkimg);
	refused(&b, NULL, true, "is a link, not a file");
	free(b.p);
	b = deb_of("amd64", twice);
	refused(&b, NULL, true, "names it twice");
	free(b.p);
	b = deb_of("amd64", two);
	refused(&b, NULL, true, "holds more than one kernel (1 and 2)");
	free(b.p);
	b = rpm_of("aarch64", noimg);
	refused(&b, "rpm", false, "architecture 'aarch64', not x86_64");
	b.len = 140;
	refused(&b, "rpm", false, "not a valid rpm");
	free(b.p);
	b = rpm_of("x86_64", noimg);
	seed("noimage.rpm", &b);
	refused(&b, "rpm", true, "holds no kernel image");
	free(b.p);
	b.p = (unsigned char *)strdup("plain text, not a package");
	b.len = strlen((char *)b.p);
	refused(&b, NULL, true, "neither a .deb (ar archive) nor an .rpm");
	free(b.p);
}

/* where libarchive trusts a size field, mmlab checks it first (package_guard.c) */
static void test_bounds(void **state)
{
	static const struct ent lnk[] = { { "boot/vmlinuz-1", kernel, 0 },
					  { "lib/modules/1/l", "->x", 0 },
					  { NULL, NULL, 0 } };
	static const char table[] = "!<arch>\n//                                              "
				    "9999999999`\n";
	struct buf b = rpm_of("x86_64", good);
	unsigned char *c = memmem(b.p, b.len, "070701", 6);

	(void)state;
	/* the fuzz finding: a name size of 4 GiB was read ahead in one piece */
	assert_non_null(c);
	memcpy(c + 94, "FFFFFFFF", 8);
	seed("namesize.rpm", &b);
	refused(&b, "rpm", true, "has an entry name of a wrong size (4294967295 bytes");
	memcpy(c, "070707", 6);
	refused(&b, "rpm", true, "not a newc cpio archive");
	/*
	 * the second fuzz finding: a field the guard did not read (nlink) not
	 * hex, so libarchive scanned ahead to a header inside a name, whose
	 * name size it trusted (2.5 GB); the guard refuses what it would skip
	 */
	free(b.p);
	b = rpm_of("x86_64", good);
	c = memmem(b.p, b.len, "070701", 6);
	assert_non_null(c);
	memcpy(c + 38, "'\x9f\x0c pa  ", 8);
	refused(&b, "rpm", true, "not a newc cpio archive");
	free(b.p);
	b = rpm_of("x86_64", lnk);
	c = memmem(b.p, b.len, "lib/modules/1/l", 15);
	assert_non_null(c);
	memcpy(c - 110 + 54, "7FFFFFFF", 8);
	refused(&b, "rpm", true, "a link or special file of a wrong size (2147483647 bytes");
	free(b.p);
	b.p = (unsigned char *)strdup(table);
	b.len = strlen(table);
	refused(&b, "deb", true, "member 1 has an extended name");
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deb),    cmocka_unit_test(test_deb_packed_module),
		cmocka_unit_test(test_rpm),    cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
