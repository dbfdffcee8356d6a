// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lab/image/initramfs.c, cache.c, cache_json.c and lab/kernel/kernel.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "image/cache.h"
#include "image/initramfs.h"
#include "kernel/kernel.h"
#include "lib/util.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-image-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text), 0755), 0);
	free(p);
}

/* entries of the first archive in buf: "name type" lines */
static char *list_archive(const void *buf, size_t len, const char *want, char **content)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *out = xstrdup("");

	archive_read_support_filter_all(a);
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_memory(a, buf, len), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		char *t = xasprintf("%s%s %o\n", out, archive_entry_pathname(e),
				    (unsigned int)archive_entry_filetype(e));

		free(out);
		out = t;
		if (want && !strcmp(archive_entry_pathname(e), want)) {
			size_t n = (size_t)archive_entry_size(e);

			*content = xcalloc(1, n + 1);
			assert_int_equal(archive_read_data(a, *content, n), (la_ssize_t)n);
		}
	}
	archive_read_free(a);
	return out;
}

static void test_initramfs(void **state)
{
	char *guest = tmpdir(), *cache = tmpdir(), *wl, *data, *list, *content = NULL;
	char first[65];
	struct image img;
	size_t len;

	(void)state;
	wl = xasprintf("%s/workloads", guest);
	assert_int_equal(mkdir(wl, 0755), 0);
	put(guest, "agent", "#agent-v1");
	put(wl, "usemem", "#usemem");
	put(wl, "noop", "#noop");
	put(wl, "noop.o", "object files are not workloads");
	setenv("MMLAB_GUEST_DIR", guest, 1);
	assert_string_equal(image_guest_dir(), guest);

	assert_int_equal(image_initramfs(cache, &img), 0);
	assert_true(img.built);
	strcpy(first, img.hash);
	data = read_file(img.path, &len, 1 << 20);
	assert_non_null(data);
	list = list_archive(data, len, "init", &content);
	assert_string_equal(content, "#agent-v1");
	assert_non_null(strstr(list, "mmlab/workloads/usemem 100000\n"));
	assert_non_null(strstr(list, "mmlab/workloads/noop 100000\n"));
	assert_null(strstr(list, "noop.o"));
	assert_non_null(strstr(list, "dev/console 20000\n"));
	free(list);
	free(content);
	free(data);
	image_release(&img);

	/* same inputs: from the cache */
	assert_int_equal(image_initramfs(cache, &img), 0);
	assert_false(img.built);
	assert_string_equal(img.hash, first);
	image_release(&img);
	/* a changed workload is a new image */
	put(wl, "noop", "#noop-v2");
	assert_int_equal(image_initramfs(cache, &img), 0);
	assert_true(img.built);
	assert_string_not_equal(img.hash, first);
	image_release(&img);
	json_t *l = image_list(cache);

	assert_int_equal(json_array_size(l), 2);
	json_decref(l);
	rm_rf(guest);
	rm_rf(cache);
	free(wl);
	free(guest);
	free(cache);
}

static void test_boot_initrd(void **state)
{
	char *dir = tmpdir(), *base, *out, *data, *content = NULL, *list;
	struct kvlist plan = { 0 };
	size_t len, off;

	(void)state;
	base = xasprintf("%s/base", dir);
	out = xasprintf("%s/initrd", dir);
	/* an odd-sized base: the plan archive must start 4-byte aligned */
	assert_int_equal(write_file_atomic(base, "12345", 5, 0644), 0);
	kvlist_set(&plan, "workload", "usemem");
	kvlist_set(&plan, "param.size", "1048576");
	assert_int_equal(image_boot_initrd(base, &plan, out), 0);
	data = read_file(out, &len, 1 << 20);
	assert_non_null(data);
	assert_memory_equal(data, "12345\0\0\0", 8);
	off = 8;
	assert_memory_equal(data + off, "070701", 6); /* cpio newc magic */
	list = list_archive(data + off, len - off, "mmlab/plan", &content);
	assert_non_null(strstr(content, "\nworkload=usemem\nparam.size=1048576\n"));
	free(list);
	free(content);
	free(data);
	kvlist_free(&plan);
	rm_rf(dir);
	free(dir);
	free(base);
	free(out);
}

static void fake_bzimage(const char *path, const char *version)
{
	unsigned char img[0x800] = { 0 };

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* kernel_version = 0x200 + 0x400 */
	img[0x20f] = 0x04;
	memcpy(img + 0x600, version, strlen(version) + 1);
	assert_int_equal(write_file_atomic(path, img, sizeof(img), 0644), 0);
}

static void test_kernel_info(void **state)
{
	char *dir = tmpdir(), *p, *q, *newest;
	struct kernel_info ki;
	json_t *l;

	(void)state;
	p = xasprintf("%s/vmlinuz-6.1.0-9-amd64", dir);
	q = xasprintf("%s/vmlinuz-6.1.0-10-amd64", dir);
	fake_bzimage(p, "6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	fake_bzimage(q, "6.1.0-10-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	assert_int_equal(kernel_read_info(p, &ki), 0);
	assert_string_equal(ki.release, "6.1.0-9-amd64");
	assert_int_equal(strlen(ki.sha256), 64);
	kernel_info_release(&ki);

	setenv("MMLAB_BOOT_DIR", dir, 1);
	newest = kernel_find_distro();
	assert_string_equal(newest, q); /* version order, not string order */
	free(newest);
	l = kernel_list_distro();
	assert_int_equal(json_array_size(l), 2);
	json_decref(l);

	/* not a bzImage */
	assert_int_equal(write_file_atomic(p, "ELF", 3, 0644), 0);
	assert_int_equal(kernel_read_info(p, &ki), -1);
	unsetenv("MMLAB_BOOT_DIR");
	rm_rf(dir);
	free(dir);
	free(p);
	free(q);
}

/* the cache's images, typed (image_cache_scan()) and as JSON (cache_json.c) */
static void test_cache_list(void **state)
{
	char *cache = tmpdir(), *dir = xasprintf("%s/images", cache), *text;
	struct cached_image_list l;
	json_t *j, *want;

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	put(dir, "initramfs-0123456789abcdef.cpio.gz", "abc");
	put(dir, "initramfs-0123456789abcdef.json", "guest=1\nrecipe=bb\n");
	put(dir, "debootstrap-fedcba9876543210.qcow2", "x");
	put(dir, "debootstrap-fedcba9876543210.json", "suite=bookworm\n");
	put(dir, "initramfs-1111111111111111.cpio.gz.tmp.1", "partial");
	put(dir, "other-0123456789abcdef.cpio.gz", "not an image");
	image_cache_scan(cache, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].kind, "initramfs");
	assert_string_equal(l.v[0].hash, "0123456789abcdef");
	assert_int_equal(l.v[0].size, 3);
	assert_string_equal(l.v[0].recipe, "bb");
	assert_null(l.v[0].suite);
	assert_string_equal(l.v[1].kind, "debootstrap");
	assert_string_equal(l.v[1].suite, "bookworm");
	assert_null(l.v[1].packages);
	assert_null(l.v[1].recipe);
	j = cached_image_list_json(&l);
	want = json_pack("[{s:s, s:s, s:s, s:I, s:s, s:s}, {s:s, s:s, s:s, s:I, s:s, s:s, s:n}]",
			 "kind", "initramfs", "path", l.v[0].path, "hash", "0123456789abcdef",
			 "size", (json_int_t)3, "created", l.v[0].created, "recipe", "bb", "kind",
			 "debootstrap", "path", l.v[1].path, "hash", "fedcba9876543210", "size",
			 (json_int_t)l.v[1].size, "created", l.v[1].created, "suite", "bookworm",
			 "packages");
	assert_non_null(want);
	assert_true(json_equal(j, want));
	/* the JSON the command prints is the same list */
	json_decref(want);
	want = image_cache_list(cache);
	assert_true(json_equal(j, want));
	text = json_dumps(want, 0);
	assert_non_null(strstr(text, "\"kind\": \"initramfs\", \"path\""));
	free(text);
	json_decref(want);
	json_decref(j);
	cached_image_list_free(&l);
	rm_rf(cache);
	free(dir);
	free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initramfs),
		cmocka_unit_test(test_cache_list),
		cmocka_unit_test(test_boot_initrd),
		cmocka_unit_test(test_kernel_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
