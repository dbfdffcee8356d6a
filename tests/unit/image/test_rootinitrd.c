// SPDX-License-Identifier: GPL-2.0
/*
 * test_rootinitrd.c - the modules of the disk image's initramfs
 * (lab/image/rootinitrd.c): resolved from a modules.dep written here,
 * in load order, built-in drivers left out, a missing one named; and
 * the cached initramfs itself (its entries read back with libarchive).
 */
#include <archive.h>
#include <archive_entry.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "image/rootinitrd.h"
#include "lib/util.h"

/* MMLAB_GUEST_DIR, set before image_guest_dir() reads it once */
static char guest_dir[] = "/tmp/test_rootinitrd_guest.XXXXXX";

/* Debian 6.1's lines for the root modules, and a decoy */
static const char debian_dep[] =
	"kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko\n"
	"kernel/fs/mbcache.ko:\n"
	"kernel/fs/jbd2/jbd2.ko:\n"
	"kernel/lib/crc16.ko:\n"
	"kernel/crypto/crc32c_generic.ko:\n"
	"kernel/drivers/virtio/virtio.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko:\n"
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
	"kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/block/virtio_blk_decoy.ko.xz:\n";

static char *moddir(const char *dep, const char *builtin)
{
	char *d = strdup("/tmp/test_rootinitrd.XXXXXX"), *p;

	assert_non_null(mkdtemp(d));
	p = xasprintf("%s/modules.dep", d);
	assert_int_equal(write_file_atomic(p, dep, strlen(dep), 0644), 0);
	free(p);
	if (builtin) {
		p = xasprintf("%s/modules.builtin", d);
		assert_int_equal(write_file_atomic(p, builtin, strlen(builtin), 0644), 0);
		free(p);
	}
	return d;
}

static void test_debian(void **state)
{
	static const char *const want[] = {
		"kernel/drivers/virtio/virtio_pci_legacy_dev.ko",
		"kernel/drivers/virtio/virtio_pci_modern_dev.ko",
		"kernel/drivers/virtio/virtio.ko",
		"kernel/drivers/virtio/virtio_ring.ko",
		"kernel/drivers/virtio/virtio_pci.ko",
		"kernel/drivers/block/virtio_blk.ko",
		"kernel/crypto/crc32c_generic.ko",
		"kernel/lib/crc16.ko",
		"kernel/fs/mbcache.ko",
		"kernel/fs/jbd2/jbd2.ko",
		"kernel/fs/ext4/ext4.ko",
	};
	struct strlist order = { 0 };
	char *d = moddir(debian_dep, NULL);

	(void)state;
	assert_int_equal(rootinitrd_modules(d, "6.1.0-t", &order), 0);
	assert_int_equal(order.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < order.n; i++)
		assert_string_equal(order.v[i], want[i]);
	strlist_free(&order);
	rm_rf(d);
	free(d);
}

/* a lab kernel: everything built in, so no initramfs at all */
static void test_builtin(void **state)
{
	struct strlist order = { 0 };
	char *d = moddir("kernel/drivers/net/foo.ko:\n",
			 "kernel/drivers/virtio/virtio_pci.ko\nkernel/drivers/block/virtio_blk.ko\n"
			 "kernel/fs/ext4/ext4.ko\n"),
	     *out = (char *)"unset";

	(void)state;
	assert_int_equal(rootinitrd_modules(d, "6.1.0-t", &order), 0);
	assert_int_equal(order.n, 0);
	assert_int_equal(rootinitrd_get(d, d, "6.1.0-t", &out), 0);
	assert_null(out);
	rm_rf(d);
	free(d);
}

static void test_missing(void **state)
{
	struct strlist order = { 0 };
	struct capture c;
	char *d = moddir("kernel/drivers/block/virtio_blk.ko:\n", "kernel/fs/ext4/ext4.ko\n"), *e;

	(void)state;
	capture_start(&c);
	assert_int_equal(rootinitrd_modules(d, "6.1.0-t", &order), -1);
	e = capture_end(&c);
	assert_non_null(strstr(e, "virtio_pci is neither built in nor a module"));
	free(e);
	strlist_free(&order);
	rm_rf(d);
	free(d);
	d = strdup("/nonexistent-moddir");
	capture_start(&c);
	assert_int_equal(rootinitrd_modules(d, "6.1.0-t", &order), -1);
	e = capture_end(&c);
	assert_non_null(strstr(e, "no readable modules.dep"));
	free(e);
	free(d);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(mkdir_p(p, 0755), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

/* the initramfs: /init, the modules by name, the list; cached by content */
static void test_build(void **state)
{
	static const char dep[] = "kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko\n"
				  "kernel/fs/jbd2/jbd2.ko:\n";
	static const char *const names[] = {
		"init",	  "lib", "lib/modules", "lib/modules/jbd2.ko", "lib/modules/ext4.ko",
		"modules"
	};
	char *d = moddir(dep, "kernel/drivers/virtio/virtio_pci.ko\n"
			      "kernel/drivers/block/virtio_blk.ko\n"),
	     *out, *again, *cache = xasprintf("%s/cache", d);
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char buf[64];
	size_t i = 0;

	(void)state;
	put(d, "kernel/fs/ext4/ext4.ko", "EXT4");
	put(d, "kernel/fs/jbd2/jbd2.ko", "JBD2");
	put(guest_dir, "rootinit", "ROOTINIT");
	assert_int_equal(rootinitrd_get(cache, d, "6.1.0-t", &out), 0);
	assert_non_null(strstr(out, "/initrd/"));
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_filename(a, out, 4096), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		la_ssize_t n = archive_read_data(a, buf, sizeof(buf) - 1);

		assert_true(i < ARRAY_SIZE(names));
		assert_string_equal(archive_entry_pathname(e), names[i]);
		buf[n > 0 ? n : 0] = '\0';
		if (!strcmp(names[i], "modules"))
			assert_string_equal(buf, "jbd2.ko\next4.ko\n");
		if (!strcmp(names[i], "init"))
			assert_string_equal(buf, "ROOTINIT");
		i++;
	}
	assert_int_equal(i, ARRAY_SIZE(names));
	archive_read_free(a);
	assert_int_equal(rootinitrd_get(cache, d, "6.1.0-t", &again), 0);
	assert_string_equal(out, again); /* the same content: the same file */
	free(again);
	put(d, "kernel/fs/ext4/ext4.ko", "EXT4 rebuilt");
	assert_int_equal(rootinitrd_get(cache, d, "6.1.0-t", &again), 0);
	assert_string_not_equal(out, again);
	free(again);
	free(out);
	rm_rf(d);
	free(d);
	free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_build),
	};

	int ret;

	if (!mkdtemp(guest_dir))
		return 1;
	setenv("MMLAB_GUEST_DIR", guest_dir, 1);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rm_rf(guest_dir);
	return ret;
}
