// SPDX-License-Identifier: GPL-2.0
/*
 * test_kbuild.c - the parts of kernel variants that need no kernel tree:
 * fragment options checked against a .config, the cache key, spawn_run()
 * (exit codes, captured tail, deadline, log file, line callback) and the
 * lab worktree on a small real repository (checked out clean at the tree
 * worked out, also over local changes; test_srctree.c has the rest), and the distro
 * config base read from MMLAB_BOOT_DIR like the distro kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/build.h"
#include "kernel/bzimage.h"
#include "kernel/gitops.h"
#include "kernel/kcache.h"
#include "kernel/srctree.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include "capture.h"

static void test_kconfig_check(void **state)
{
	static const char config[] = "# Linux/x86 6.12 Kernel Configuration\n"
				     "CONFIG_64BIT=y\n"
				     "CONFIG_NUMA=y\n"
				     "# CONFIG_EXT4_FS is not set\n"
				     "CONFIG_MODULES=m\n"
				     "CONFIG_NR_CPUS=64\n"
				     "CONFIG_LOCALVERSION=\"-lab\"\n";
	static const char frag[] = "# a comment\n"
				   "CONFIG_64BIT=y\n"
				   "CONFIG_NUMA=y\r\n"
				   "CONFIG_EXT4_FS=y\n"
				   "CONFIG_MODULES=y\n"
				   "CONFIG_NR_CPUS=64\n"
				   "CONFIG_LOCALVERSION=\"-lab\"\n"
				   "# CONFIG_SWAP is not set\n"
				   "# CONFIG_NUMA is not set\n"
				   "CONFIG_COMPACTION=y";
	struct strlist d = { 0 };

	(void)state;
	assert_int_equal(kconfig_check(config, frag, &d), 4);
	assert_int_equal(d.n, 4);
	assert_string_equal(d.v[0], "CONFIG_EXT4_FS=y (got: is not set)");
	assert_string_equal(d.v[1], "CONFIG_MODULES=y (got: m)");
	assert_string_equal(d.v[2], "CONFIG_NUMA=n (got: y)");
	assert_string_equal(d.v[3], "CONFIG_COMPACTION=y (got: is not set)");
	strlist_free(&d);
	/* a prefix of another option's name is not that option */
	assert_int_equal(kconfig_check("CONFIG_NUMA_BALANCING=y\n", "CONFIG_NUMA=y\n", &d), 1);
	strlist_free(&d);
	assert_int_equal(kconfig_check(config, "", &d), 0);
}

static void test_kcache_key(void **state)
{
	char a[KCACHE_KEY_LEN + 1], b[KCACHE_KEY_LEN + 1], c[KCACHE_KEY_LEN + 1];
	char d[KCACHE_KEY_LEN + 1];

	(void)state;
	kcache_key("t1", "c1", "gcc 12", a);
	kcache_key("t1", "c1", "gcc 12", b);
	assert_int_equal(strlen(a), KCACHE_KEY_LEN);
	assert_string_equal(a, b);
	kcache_key("t2", "c1", "gcc 12", c);
	assert_string_not_equal(a, c);
	kcache_key("t1", "c2", "gcc 12", c);
	assert_string_not_equal(a, c);
	kcache_key("t1", "c1", "gcc 13", d);
	assert_string_not_equal(a, d);
	/* the parts are delimited: moving text between them changes the key */
	kcache_key("t1c", "1", "gcc 12", c);
	assert_string_not_equal(a, c);
	for (size_t i = 0; i < KCACHE_KEY_LEN; i++)
		assert_non_null(strchr("0123456789abcdef", a[i]));
}

static void count_line(const char *line, size_t len, void *arg)
{
	(void)line;
	(void)len;
	(*(int *)arg)++;
}

static void test_spawn(void **state)
{
	const char *ok[] = { "sh", "-c", "echo one; echo two >&2; echo three", NULL };
	const char *fail[] = { "sh", "-c", "exit 3", NULL };
	const char *slow[] = { "sleep", "30", NULL };
	const char *missing[] = { "/nonexistent/program", NULL };
	char logt[] = "/tmp/mmlab-spawn-XXXXXX", why[96];
	struct spawn_result r;
	int lines = 0, fd = mkstemp(logt);
	struct spawn_opts o = { .log_path = logt, .on_line = count_line, .arg = &lines };
	char *log;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(spawn_run(ok, &o, &r), 0);
	assert_string_equal(r.out, "one\ntwo\nthree\n");
	assert_string_equal(spawn_tail(&r, 1), "three\n");
	assert_string_equal(spawn_tail(&r, 2), "two\nthree\n");
	assert_string_equal(spawn_tail(&r, 9), "one\ntwo\nthree\n");
	assert_int_equal(lines, 3);
	spawn_result_free(&r);
	log = read_file(logt, NULL, 4096);
	assert_string_equal(log, "one\ntwo\nthree\n");
	free(log);
	unlink(logt);

	/* only the tail is kept */
	o = (struct spawn_opts){ .capture_max = 6 };
	assert_int_equal(spawn_run(ok, &o, &r), 0);
	assert_string_equal(r.out, "three\n");
	spawn_result_free(&r);

	assert_int_equal(spawn_run(fail, NULL, &r), 3);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(spawn_describe(&r, 0, why, sizeof(why)), "exited with status 3");
	spawn_result_free(&r);

	o = (struct spawn_opts){ .timeout_s = 1 };
	assert_int_equal(spawn_run(slow, &o, &r), -1);
	assert_true(r.timed_out);
	assert_true(r.elapsed_s < 10);
	spawn_result_free(&r);

	/* stdin: /dev/null, or a file */
	{
		const char *cat[] = { "cat", NULL };

		assert_int_equal(spawn_run(cat, NULL, &r), 0);
		assert_string_equal(r.out, "");
		spawn_result_free(&r);
		assert_int_equal(write_file_atomic(logt, "in\n", 3, 0644), 0);
		o = (struct spawn_opts){ .stdin_path = logt };
		assert_int_equal(spawn_run(cat, &o, &r), 0);
		assert_string_equal(r.out, "in\n");
		spawn_result_free(&r);
		unlink(logt);
		o = (struct spawn_opts){ .stdin_path = "/nonexistent/input" };
		assert_int_equal(spawn_run(cat, &o, &r), 127);
		assert_non_null(strstr(r.out, "cannot open /nonexistent/input"));
		spawn_result_free(&r);
	}

	assert_int_equal(spawn_run(missing, NULL, &r), 127);
	assert_non_null(strstr(r.out, "cannot run /nonexistent/program"));
	spawn_result_free(&r);
}

/* a tiny git repository: base has a.c; c1 changes a.c; c2 changes it again */
static char *make_repo(const char *top)
{
	char *repo = xasprintf("%s/repo", top);
	const char *script =
		"set -e; mkdir -p \"$1\"; cd \"$1\"; git init -q -b m .;"
		"export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t "
		"GIT_COMMITTER_EMAIL=t@t;"
		"printf 'int a = 1;\\n' > a.c; printf 'x\\n' > b.c; git add .; git commit -qm base;"
		"git tag base; printf 'int a = 2;\\n' > a.c; git commit -qam c1; git tag c1;"
		"printf 'int a = 3;\\n' > a.c; git commit -qam c2; git tag c2;"
		"git diff base c1 > ../c1.diff; git format-patch -q --stdout base..c1 > ../c1.mbox";
	const char *argv[] = { "sh", "-c", script, "sh", repo, NULL };

	assert_int_equal(spawn_run(argv, NULL, NULL), 0);
	return repo;
}

static void test_gitops(void **state)
{
	char top[] = "/tmp/mmlab-git-XXXXXX";
	char *repo, *wt, *patch, *mbox, *tree, *c1tree, *c2, *gd;
	struct src_op ops[2] = { 0 };
	const char *c1args[] = { "rev-parse", "c1^{tree}", NULL };
	const char *status[] = { "status", "--porcelain", NULL };
	struct spawn_result r;

	(void)state;
	assert_non_null(mkdtemp(top));
	repo = make_repo(top);
	wt = xasprintf("%s/wt", top);
	gd = xasprintf("%s/.git", repo);
	patch = xasprintf("%s/c1.diff", top);
	mbox = xasprintf("%s/c1.mbox", top);
	assert_false(patch_is_mbox(patch));
	assert_true(patch_is_mbox(mbox));

	/* revert c2 on top of c2: the tree of c1, checked out clean */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	assert_int_equal(src_ops_resolve(repo, ops, 1, "v"), 0);
	c2 = git_resolve_commit(repo, "c2", "test");
	assert_int_equal(src_tree(gd, c2, ops, 1, "v", &tree), 0);
	c1tree = git_out(repo, c1args);
	assert_string_equal(tree, c1tree);
	{
		char *commit = src_tree_commit(gd, c2, tree, ops, 1, "v"), *got;

		assert_int_equal(src_checkout(repo, wt, commit, tree, "v"), 0);
		got = src_tree_id(wt);
		assert_string_equal(got, c1tree);
		free(got);
		assert_int_equal(git_run(wt, status, &r), 0);
		assert_string_equal(r.out, "");
		spawn_result_free(&r);
		/* again, from a worktree that has changes: reset, then the same */
		got = xasprintf("%s/a.c", wt);
		assert_int_equal(write_file_atomic(got, "junk\n", 5, 0644), 0);
		free(got);
		assert_int_equal(src_checkout(repo, wt, commit, tree, "v"), 0);
		assert_int_equal(git_run(wt, status, &r), 0);
		assert_string_equal(r.out, "");
		spawn_result_free(&r);
		free(commit);
	}
	free(ops[0].resolved);

	/* an unknown commit */
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "nosuchcommit" };
	assert_int_equal(src_ops_resolve(repo, ops, 1, "v"), -1);

	rm_rf(top);
	free(repo);
	free(wt);
	free(gd);
	free(patch);
	free(mbox);
	free(tree);
	free(c1tree);
	free(c2);
}

static void fake_bzimage(const char *path, const char *version)
{
	unsigned char img[0x800] = { 0 };

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20f] = 0x04; /* kernel_version = 0x200 + 0x400 */
	memcpy(img + 0x600, version, strlen(version) + 1);
	assert_int_equal(write_file_atomic(path, img, sizeof(img), 0644), 0);
}

/* base: distro is the config next to the distro kernel, MMLAB_BOOT_DIR too */
static void test_distro_config(void **state)
{
	char t[] = "/tmp/mmlab-test-kbuild-XXXXXX", *dir = mkdtemp(t);
	char *vmlinuz, *want, *cfg, *out, *log, *got, *msg;
	struct capture c;

	(void)state;
	assert_non_null(dir);
	setenv("MMLAB_BOOT_DIR", dir, 1);
	capture_start(&c);
	assert_null(kernel_distro_config()); /* no kernel in the boot dir */
	msg = capture_end(&c);
	assert_non_null(strstr(msg, dir));
	free(msg);

	vmlinuz = xasprintf("%s/vmlinuz-6.1.0-9-amd64", dir);
	fake_bzimage(vmlinuz, "6.1.0-9-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	want = xasprintf("%s/config-6.1.0-9-amd64", dir);
	assert_int_equal(write_file_atomic(want, "CONFIG_NUMA=y\n", 14, 0644), 0);
	cfg = kernel_distro_config();
	assert_string_equal(cfg, want);

	/* kconfig_make copies it, then olddefconfig fails: dir has no Makefile */
	out = xasprintf("%s/out", dir);
	log = xasprintf("%s/log", dir);
	capture_start(&c);
	assert_int_equal(kconfig_make(dir, out, "distro", NULL, 0, "v", log), -1);
	msg = capture_end(&c);
	assert_non_null(strstr(msg, "olddefconfig"));
	free(msg);
	free(out);
	out = xasprintf("%s/out/.config", dir);
	got = read_file(out, NULL, 1 << 16);
	assert_string_equal(got, "CONFIG_NUMA=y\n");

	unsetenv("MMLAB_BOOT_DIR");
	rm_rf(dir);
	free(vmlinuz);
	free(want);
	free(cfg);
	free(out);
	free(log);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kconfig_check), cmocka_unit_test(test_kcache_key),
		cmocka_unit_test(test_spawn),	      cmocka_unit_test(test_gitops),
		cmocka_unit_test(test_distro_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
