// SPDX-License-Identifier: GPL-2.0
/*
 * test_payload.c - a boot's payload end to end: the host's file list and
 * cpio (lab/image/payload.c) read back by the agent's unpacker
 * (collectors/payload.c, compiled in here: it is a guest program), the
 * same cpio appended to an initramfs, and the unpacker against damaged
 * and hostile archives.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "image/initramfs.h"
#include "image/payload.h"
#include "lib/util.h"

#include "../../../collectors/payload.c"

/* the unpacker finds its disk with this; the tests hand it an fd instead */
char *read_capped(const char *path, size_t cap, size_t *len, int *truncated)
{
	(void)path;
	(void)cap;
	(void)len;
	*truncated = 0;
	return NULL;
}

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-payload-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void put(const char *path, const char *text, unsigned int mode)
{
	char *d = xstrdup(path);

	*strrchr(d, '/') = '\0';
	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text), mode), 0);
	free(d);
}

static void assert_file(const char *root, const char *rel, const char *text, unsigned int mode)
{
	char *p = xasprintf("%s/%s", root, rel);
	struct stat st;
	size_t len;
	char *got = read_file(p, &len, 1 << 20);

	assert_non_null(got);
	assert_string_equal(got, text);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, mode);
	free(got);
	free(p);
}

static int unpack_file(const char *cpio, const char *root, struct payload_stats *st, char *err,
		       size_t errlen)
{
	int fd = open(cpio, O_RDONLY);
	int ret;

	assert_true(fd >= 0);
	ret = payload_unpack_fd(fd, root, st, err, errlen);
	close(fd);
	return ret;
}

static void test_roundtrip(void **state)
{
	char *host = tmpdir(), *guest = tmpdir(), *cpio = xasprintf("%s/payload.cpio", host);
	char *mods = xasprintf("%s/mods/6.12.0", host), *p, *text, err[256];
	struct payload pl = { 0 };
	struct kvlist plan = { 0 };
	struct payload_stats st;
	struct stat sb;
	int fd;

	(void)state;
	p = xasprintf("%s/kernel/drivers/virtio/virtio_balloon.ko", mods);
	put(p, "ko", 0644);
	free(p);
	p = xasprintf("%s/modules.order", mods);
	put(p, "kernel/drivers/virtio/virtio_balloon.ko\n", 0644);
	free(p);
	/* modules_install's build link points at the host's tree: not for the guest */
	p = xasprintf("%s/build", mods);
	assert_int_equal(symlink("/usr/src/linux", p), 0);
	free(p);
	p = xasprintf("%s/run.sh", host);
	put(p, "#!/bin/sh\n", 0755);
	kvlist_set(&plan, "workload", "noop");
	assert_int_equal(payload_add_plan(&pl, &plan), 0);
	payload_add_file(&pl, "mmlab/work/run.sh", p, PAYLOAD_MODE_HOST);
	payload_add_file(&pl, "/mmlab/modules/pagebench.ko", p, 0600);
	payload_add_data(&pl, "/etc/motd", "hi\n", 3, 0640);
	assert_int_equal(payload_add_tree(&pl, "/lib/modules/6.12.0", mods, NULL), 0);
	free(p);
	fd = open(cpio, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(payload_write_cpio(&pl, fd, cpio) > 0);
	close(fd);

	assert_int_equal(unpack_file(cpio, guest, &st, err, sizeof(err)), 0);
	assert_int_equal(st.files, 6);
	p = xasprintf("%s/mmlab/plan", guest);
	text = read_file(p, NULL, 4096);
	assert_non_null(text);
	assert_non_null(strstr(text, "workload=noop\n"));
	free(text);
	free(p);
	assert_file(guest, "mmlab/work/run.sh", "#!/bin/sh\n", 0755);
	assert_file(guest, "mmlab/modules/pagebench.ko", "#!/bin/sh\n", 0600);
	assert_file(guest, "etc/motd", "hi\n", 0640);
	assert_file(guest, "lib/modules/6.12.0/kernel/drivers/virtio/virtio_balloon.ko", "ko",
		    0644);
	assert_file(guest, "lib/modules/6.12.0/modules.order",
		    "kernel/drivers/virtio/virtio_balloon.ko\n", 0644);
	p = xasprintf("%s/lib/modules/6.12.0/build", guest);
	assert_int_equal(lstat(p, &sb), -1);
	free(p);
	/* a second payload over the same root replaces files */
	assert_int_equal(unpack_file(cpio, guest, &st, err, sizeof(err)), 0);
	assert_int_equal(st.files, 6);

	payload_release(&pl);
	kvlist_free(&plan);
	rm_rf(host);
	rm_rf(guest);
	free(host);
	free(guest);
	free(cpio);
	free(mods);
}

/* the initramfs route: base + the same cpio, which libarchive reads back */
static void test_initrd(void **state)
{
	char *dir = tmpdir(), *base = xasprintf("%s/base.cpio", dir);
	char *out = xasprintf("%s/initrd", dir), *data, *names = xstrdup("");
	struct payload pl = { 0 };
	struct archive *a;
	struct archive_entry *e;
	size_t len;

	(void)state;
	put(base, "not really a cpio, 27 bytes", 0644);
	payload_add_data(&pl, "mmlab/plan", "workload=noop\n", 14, 0644);
	payload_add_data(&pl, "mmlab/modules/x.ko", "ko", 2, 0644);
	assert_int_equal(image_boot_initrd_files(base, &pl, out), 0);
	data = read_file(out, &len, 1 << 20);
	assert_non_null(data);
	assert_memory_equal(data, "not really a cpio, 27 bytes", 27);
	assert_memory_equal(data + 27, "\0", 1); /* padded to 4 */
	a = archive_read_new();
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_memory(a, data + 28, len - 28), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		char *t = xasprintf("%s%s ", names, archive_entry_pathname(e));

		free(names);
		names = t;
	}
	archive_read_free(a);
	assert_string_equal(names, "mmlab mmlab/plan mmlab/modules mmlab/modules/x.ko ");
	free(names);
	free(data);
	payload_release(&pl);
	rm_rf(dir);
	free(dir);
	free(base);
	free(out);
}

static void test_bad_guest_path(void **state)
{
	char *dir = tmpdir(), *cpio = xasprintf("%s/p.cpio", dir);
	static const char *const bad[] = {
		"", "/", "a/../b", "../x", "a//b", "a/./b", "a/", "a\nb"
	};
	int fd;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct payload pl = { 0 };

		payload_add_data(&pl, bad[i], "x", 1, 0644);
		fd = open(cpio, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(payload_write_cpio(&pl, fd, cpio), -1);
		close(fd);
		payload_release(&pl);
	}
	assert_false(payload_guest_path_ok("a/../b"));
	assert_true(payload_guest_path_ok("lib/modules/6.12.0+/modules.dep"));
	rm_rf(dir);
	free(dir);
	free(cpio);
}

/* one newc entry, as a forger would write it */
static size_t newc(char *buf, const char *name, unsigned int mode, const char *data)
{
	size_t nlen = strlen(name) + 1, dlen = data ? strlen(data) : 0, n;

	n = (size_t)sprintf(buf, "070701%08x%08x%08x%08x%08x%08x%08zx%08x%08x%08x%08x%08zx%08x", 1,
			    mode, 0, 0, 1, 0, dlen, 0, 0, 0, 0, nlen, 0);
	memcpy(buf + n, name, nlen);
	n += nlen;
	while (n % 4)
		buf[n++] = '\0';
	memcpy(buf + n, data ? data : "", dlen);
	n += dlen;
	while (n % 4)
		buf[n++] = '\0';
	return n;
}

static int unpack_buf(const char *buf, size_t len, const char *root, char *err, size_t errlen)
{
	char *p = xasprintf("%s.cpio", root);
	struct payload_stats st;
	int ret;

	assert_int_equal(write_file_atomic(p, buf, len, 0644), 0);
	ret = unpack_file(p, root, &st, err, errlen);
	unlink(p);
	free(p);
	return ret;
}

static void test_hostile_cpio(void **state)
{
	static const char *const bad[] = { "../evil", "/abs-evil", "a/../../evil", "a//b", "." };
	char *root = tmpdir(), buf[4096], err[256], *p;
	size_t n;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		n = newc(buf, bad[i], 0100644, "evil");
		n += newc(buf + n, "TRAILER!!!", 0, NULL);
		assert_int_equal(unpack_buf(buf, n, root, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "refusing the name"));
	}
	p = xasprintf("%s/../evil", root);
	assert_false(path_exists(p));
	free(p);
	/* a size beyond the end, no trailer, not a header, a name without its NUL */
	n = newc(buf, "big", 0100644, "data");
	memcpy(buf + 54, "00010000", 8);
	assert_int_equal(unpack_buf(buf, n, root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ends inside"));
	n = newc(buf, "ok", 0100644, "data");
	assert_int_equal(unpack_buf(buf, n, root, err, sizeof(err)), -1);
	assert_int_equal(unpack_buf("070701zz", 8, root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no cpio header"));
	n = newc(buf, "name", 0100644, "data");
	buf[110 + 4] = 'x';
	assert_int_equal(unpack_buf(buf, n, root, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad name"));
	/* a symlink and a device node are skipped, not made */
	n = newc(buf, "link", 0120777, "/etc/passwd");
	n += newc(buf + n, "dev", 0020644, NULL);
	n += newc(buf + n, "TRAILER!!!", 0, NULL);
	assert_int_equal(unpack_buf(buf, n, root, err, sizeof(err)), 0);
	p = xasprintf("%s/link", root);
	assert_false(path_exists(p));
	free(p);
	rm_rf(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_initrd),
		cmocka_unit_test(test_bad_guest_path),
		cmocka_unit_test(test_hostile_cpio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
