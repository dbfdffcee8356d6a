// SPDX-License-Identifier: GPL-2.0
/*
 * test_topo_layout.c - where a tiered topology's memory lands on QEMU's pc
 * machine (lab/topo/topo_layout.c), and the modules a kmem topology needs
 * (lab/kernel/tiermods.c) against a made-up modules directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "topo/topo_layout.h"
#include "kernel/tiermods.h"
#include "lib/util.h"

#define M (1ULL << 20)

static void node(struct job_topology *t, unsigned int cpus, uint64_t mib, bool kmem)
{
	t->nodes[t->nnodes++] = (struct job_node){ cpus, mib << 10, kmem };
}

static uint64_t soft_bytes(const struct topo_layout *l, unsigned int n)
{
	uint64_t b = 0;

	for (unsigned int i = 0; i < l->nr; i++)
		if (l->r[i].node == n && l->r[i].type == TOPO_E820_SOFT_RESERVED)
			b += l->r[i].len;
	return b;
}

/* ordinary nodes only: no range, no argument */
static void test_plain(void **state)
{
	struct job_topology t = { 0 };
	struct topo_layout l;
	unsigned int bad;
	char why[256];

	(void)state;
	node(&t, 1, 256, false);
	node(&t, 1, 256, false);
	assert_int_equal(topo_layout(&t, &l, &bad, why, sizeof(why)), 0);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.total, 512 * M);
	assert_null(topo_kernel_args(&l));
}

/* a kmem node in the middle needs no pad; one at the top of RAM does */
static void test_kmem_pad(void **state)
{
	struct job_topology t = { 0 };
	struct topo_layout l;
	unsigned int bad;
	char why[256];

	(void)state;
	node(&t, 1, 512, false);
	node(&t, 0, 256, true);
	node(&t, 0, 256, true);
	assert_int_equal(topo_layout(&t, &l, &bad, why, sizeof(why)), 0);
	assert_int_equal(l.cell_bytes[1], 256 * M);
	assert_int_equal(l.cell_bytes[2], 384 * M);
	assert_int_equal(soft_bytes(&l, 1), 256 * M);
	assert_int_equal(soft_bytes(&l, 2), 256 * M);
	assert_int_equal(l.r[0].start, 512 * M);
	assert_int_equal(l.r[l.nr - 1].type, TOPO_E820_RESERVED);
	assert_int_equal(l.r[l.nr - 1].start + l.r[l.nr - 1].len, l.below_4g);
}

/* 3.5G and more: 3G below 4 GiB, the rest from 4 GiB; a kmem node across the hole */
static void test_split_at_4g(void **state)
{
	struct job_topology t = { 0 };
	struct topo_layout l;
	unsigned int bad;
	char why[256];
	char *args;

	(void)state;
	node(&t, 1, 2560, false);
	node(&t, 0, 1024, true);
	assert_int_equal(topo_layout(&t, &l, &bad, why, sizeof(why)), 0);
	assert_int_equal(l.below_4g, 3072 * M);
	assert_int_equal(soft_bytes(&l, 1), 1024 * M);
	/* 384M below 4 GiB (the block with the BIOS's 128K is reserved), the rest above */
	args = topo_kernel_args(&l);
	assert_non_null(strstr(args, "memmap=384M%0xa0000000-1+0xefffffff"));
	assert_non_null(strstr(args, "memmap=128M%0xb8000000-1+0x2"));
	assert_non_null(strstr(args, "%0x100000000-1+0xefffffff"));
	assert_int_equal(strncmp(args, "nokaslr ", 8), 0);
	free(args);
}

static void test_kmem_unaligned(void **state)
{
	struct job_topology t = { 0 };
	struct topo_layout l;
	unsigned int bad = 99;
	char why[256];

	(void)state;
	node(&t, 1, 512, false);
	node(&t, 0, 200, true);
	assert_int_equal(topo_layout(&t, &l, &bad, why, sizeof(why)), -1);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(why, "128M"));
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
}

static const char *const kos[] = { "kernel/drivers/dax/kmem.ko",
				   "kernel/drivers/dax/hmem/dax_hmem.ko",
				   "kernel/drivers/dax/dax-helper.ko" };
static const char *const rmdirs[] = {
	"modules.dep",	      "modules.builtin", "kernel/drivers/dax/hmem",
	"kernel/drivers/dax", "kernel/drivers",	 "kernel"
};

/* the directory part of a path, in place */
static char *dirname_of(char *p)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s", p);
	*strrchr(buf, '/') = '\0';
	return buf;
}

/* modules.dep order, dependencies first, built-in drivers skipped */
static void test_tiermods(void **state)
{
	char dir[] = "/tmp/mmlab-tiermods-XXXXXX", *p;
	struct kvlist files = { 0 };
	struct strbuf names = STRBUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/modules.dep", dir);
	write_text(p, "kernel/drivers/dax/kmem.ko:\n"
		      "kernel/drivers/dax/hmem/dax_hmem.ko: kernel/drivers/dax/dax-helper.ko\n"
		      "kernel/drivers/dax/dax-helper.ko:\n");
	free(p);
	p = xasprintf("%s/modules.builtin", dir);
	write_text(p, "kernel/drivers/dax/device_dax.ko\n");
	free(p);
	for (size_t i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", dir, kos[i]);
		assert_int_equal(mkdir_p(dirname_of(p), 0755), 0);
		write_text(p, "ELF");
		free(p);
	}
	assert_int_equal(tiermods_find("v", dir, &files, &names), 0);
	assert_string_equal(names.buf, "dax_helper,dax_hmem,kmem");
	assert_int_equal(files.n, 3);
	p = xasprintf("%s/kernel/drivers/dax/hmem/dax_hmem.ko", dir);
	assert_string_equal(kvlist_get(&files, "mmlab/modules/dax_hmem.ko"), p);
	free(p);
	kvlist_free(&files);
	strbuf_release(&names);
	/* a driver neither built in nor a module: refused */
	p = xasprintf("%s/modules.builtin", dir);
	write_text(p, "");
	assert_int_equal(tiermods_find("v", dir, &files, &names), -1);
	free(p);
	kvlist_free(&files);
	strbuf_release(&names);
	/* no modules.dep: nothing to say */
	assert_int_equal(tiermods_find("v", "/nonexistent", &files, &names), 0);
	assert_int_equal(files.n, 0);
	for (size_t i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", dir, kos[i]);
		unlink(p);
		free(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(rmdirs); i++) {
		p = xasprintf("%s/%s", dir, rmdirs[i]);
		if (strstr(rmdirs[i], "modules."))
			unlink(p);
		else
			rmdir(p);
		free(p);
	}
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),	    cmocka_unit_test(test_kmem_pad),
		cmocka_unit_test(test_split_at_4g), cmocka_unit_test(test_kmem_unaligned),
		cmocka_unit_test(test_tiermods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
