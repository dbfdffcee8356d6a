// SPDX-License-Identifier: GPL-2.0
/*
 * test_package_apt.c - apt's outputs as lab/kernel/package_apt.c reads
 * them (apt-cache policy, apt-cache madison, the nearest names of
 * apt-cache pkgnames), from outputs captured on Debian 12, and the
 * package cache (lab/kernel/package_cache.c): a package file unpacked
 * once then found by its sha256, the apt memo that answers a fetch seen
 * before without apt, kernel list with the runs that used each package,
 * and gc; a source apt cannot reach, named in the refusal.
 */
#include <arpa/inet.h>
#include <archive.h>
#include <archive_entry.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "kernel/kcache.h"
#include "kernel/package.h"
#include "store/store.h"
#include "kernel/package_int.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static const char policy[] =
	"linux-image-6.1.0-47-amd64:\n"
	"  Installed: (none)\n"
	"  Candidate: 6.1.170-3\n"
	"  Version table:\n"
	"     6.1.170-3 500\n"
	"        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n";

static void test_policy(void **state)
{
	char *src, *c;

	(void)state;
	c = pkg_policy_candidate(policy, &src);
	assert_string_equal(c, "6.1.170-3");
	assert_string_equal(src, "http://deb.debian.org/debian bookworm/main amd64 Packages");
	free(c);
	free(src);
	/* an installed one marks its line with *** */
	c = pkg_policy_candidate("x:\n  Installed: 2-1\n  Candidate: 2-1\n  Version table:\n"
				 " *** 2-1 100\n        100 /var/lib/dpkg/status\n",
				 &src);
	assert_string_equal(c, "2-1");
	assert_string_equal(src, "/var/lib/dpkg/status");
	free(c);
	free(src);
	/* unknown: no output, or (none) */
	assert_null(pkg_policy_candidate("", &src));
	assert_null(src);
	assert_null(pkg_policy_candidate("x:\n  Installed: (none)\n  Candidate: (none)\n", &src));
	assert_null(pkg_policy_candidate("x:\n  Candidate: $(reboot)\n", &src));
}

static void test_madison(void **state)
{
	char out[] = "linux-image-6.1.0-47-amd64 |  6.1.170-3 | http://deb.debian.org/debian "
		     "bookworm/main amd64 Packages\n"
		     "linux-image-6.1.0-47-amd64 |  6.1.170-3 | http://mirror bookworm/main "
		     "amd64 Packages\n"
		     "linux-image-6.1.0-47-amd64 | 6.1.17-1 | http://old bookworm/main amd64 "
		     "Packages\n"
		     "garbage without a bar\n"
		     "x | bad;version | y\n";
	char again[sizeof(out)];
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	(void)state;
	memcpy(again, out, sizeof(out));
	assert_int_equal(pkg_madison(out, "6.1.170-3", &sb, &n), 1);
	assert_string_equal(sb.buf, "6.1.17-1");
	assert_int_equal(n, 1);
	strbuf_release(&sb);
	/* 6.1.17-1 is listed once though it is a prefix of 6.1.170-3 */
	assert_int_equal(pkg_madison(again, "6.1.999-1", &sb, &n), 0);
	assert_string_equal(sb.buf, "6.1.170-3, 6.1.17-1");
	assert_int_equal(n, 2);
	strbuf_release(&sb);
	out[0] = '\0';
	assert_int_equal(pkg_madison(out, "1", &sb, &n), 0);
	assert_int_equal(n, 0);
	strbuf_release(&sb);
}

static void test_madison_many(void **state)
{
	struct strbuf in = STRBUF_INIT, sb = STRBUF_INIT;
	size_t n;

	(void)state;
	for (int i = 0; i < 20; i++)
		strbuf_addf(&in, "k | 1.%d-1 | http://a b/main amd64 Packages\n", i);
	assert_int_equal(pkg_madison(in.buf, "2-1", &sb, &n), 0);
	assert_int_equal(n, 20);
	assert_non_null(strstr(sb.buf, "1.11-1"));
	assert_null(strstr(sb.buf, "1.12-1")); /* PKG_VERSIONS_SHOWN */
	strbuf_release(&in);
	strbuf_release(&sb);
}

static void test_nearest(void **state)
{
	char names[] = "linux-image-6.1.0-47-amd64\n"
		       "linux-image-6.1.0-49-amd64\n"
		       "linux-image-6.1.0-57-amd64\n"
		       "linux-image-6.1.0-57-cloud-amd64\n"
		       "linux-image-6.12.38+deb12-amd64\n"
		       "linux-image-amd64\n"
		       "linux-headers-6.1.0-47-amd64\n";
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	pkg_nearest("linux-image-6.1.0-99-amd64", names, &sb);
	/* by edit distance (49: one edit), the newest first among equals (57, 47: two) */
	assert_string_equal(sb.buf, "linux-image-6.1.0-49-amd64, linux-image-6.1.0-57-amd64, "
				    "linux-image-6.1.0-47-amd64, linux-headers-6.1.0-47-amd64, "
				    "linux-image-6.1.0-57-cloud-amd64");
	strbuf_release(&sb);
	pkg_nearest("x", NULL, &sb);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

/* ---- the cache ------------------------------------------------------------ */

#define BUFSZ (1u << 20)

static void fake_bzimage(unsigned char *img, size_t len, const char *version)
{
	memset(img, 0, len);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20f] = 0x04; /* kernel_version = 0x200 + 0x400 */
	memcpy(img + 0x600, version, strlen(version) + 1);
}

static void add(struct archive *a, const char *path, const void *p, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, p, len), (la_ssize_t)len);
	archive_entry_free(e);
}

/* a .deb of version ver holding a bzImage of release 6.1.0-t and one module */
static void write_deb(const char *path, const char *ver)
{
	unsigned char *tar = malloc(BUFSZ), *ctl = malloc(BUFSZ), *deb = malloc(BUFSZ), img[0x800];
	char *control =
		xasprintf("Package: linux-image-t\nVersion: %s\nArchitecture: amd64\n", ver);
	size_t tl = 0, cl = 0, dl = 0;
	struct archive *a = archive_write_new();

	fake_bzimage(img, sizeof(img), "6.1.0-t (test) #1 SMP");
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_memory(a, tar, BUFSZ, &tl), ARCHIVE_OK);
	add(a, "./boot/vmlinuz-6.1.0-t", img, sizeof(img));
	add(a, "./lib/modules/6.1.0-t/kernel/a.ko", "A", 1);
	archive_write_close(a);
	archive_write_free(a);
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_memory(a, ctl, BUFSZ, &cl), ARCHIVE_OK);
	add(a, "./control", control, strlen(control));
	archive_write_close(a);
	archive_write_free(a);
	a = archive_write_new();
	archive_write_set_format_ar_svr4(a);
	assert_int_equal(archive_write_open_memory(a, deb, BUFSZ, &dl), ARCHIVE_OK);
	add(a, "debian-binary", "2.0\n", 4);
	add(a, "control.tar", ctl, cl);
	add(a, "data.tar", tar, tl);
	archive_write_close(a);
	archive_write_free(a);
	assert_int_equal(write_file_atomic(path, deb, dl, 0644), 0);
	free(control);
	free(tar);
	free(ctl);
	free(deb);
}

static size_t count_entries(const char *cache)
{
	json_t *l = pkg_list(cache, NULL);
	size_t n = json_array_size(l);

	json_decref(l);
	return n;
}

/* the packages' list and gc, with the runs of the store results uses */
static json_t *pkg_list_of(const char *cache, const char *results)
{
	struct kernel_uses uses;
	json_t *l;

	assert_int_equal(store_kernels_used(results, &uses), 0);
	l = pkg_list(cache, &uses);
	kernel_uses_free(&uses);
	return l;
}

static json_t *pkg_gc_of(const char *cache, const char *results, bool dry_run)
{
	struct kernel_uses uses;
	json_t *l;

	assert_int_equal(store_kernels_used(results, &uses), 0);
	l = pkg_gc(cache, &uses, dry_run);
	kernel_uses_free(&uses);
	return l;
}
static void test_cache(void **state)
{
	char t[] = "/tmp/test_package_apt.XXXXXX", *d = mkdtemp(t);
	char *cache = xasprintf("%s/cache", d), *deb = xasprintf("%s/k.deb", d);
	char *results = xasprintf("%s/results", d), *memo, *rj, *apt;
	char *rundir = xasprintf("%s/run-a", results), *runjson = xasprintf("%s/run.json", rundir);
	struct pkg_entry e, again;
	json_t *l, *gone;

	(void)state;
	if (access("/sbin/depmod", X_OK) && access("/usr/sbin/depmod", X_OK))
		skip();
	write_deb(deb, "6.1.1-1");
	assert_int_equal(pkg_get_file(cache, deb, NULL, "deb", "t", &e), 0);
	assert_false(e.hit);
	assert_int_equal(strlen(e.sha256), 64);
	assert_string_equal(json_string_value(json_object_get(e.meta, "version")), "6.1.1-1");
	assert_string_equal(json_string_value(json_object_get(e.meta, "release")), "6.1.0-t");
	assert_true(path_exists(e.image));
	/* the same file again: the entry, nothing unpacked */
	assert_int_equal(pkg_get_file(cache, deb, NULL, "deb", "t", &again), 0);
	assert_true(again.hit);
	assert_string_equal(again.dir, e.dir);
	pkg_entry_release(&again);
	/* a fetch seen before (its memo) is answered without apt */
	apt = xasprintf("%s/kernels/packages/apt", cache);
	memo = xasprintf("%s/linux-image-t_6.1.1-1", apt);
	assert_int_equal(mkdir_p(apt, 0755), 0);
	assert_int_equal(write_file_atomic(memo, e.sha256, 64, 0644), 0);
	assert_int_equal(pkg_get_apt(cache, "linux-image-t", "6.1.1-1", "t", &again), 0);
	assert_true(again.hit);
	assert_string_equal(again.sha256, e.sha256);
	pkg_entry_release(&again);
	/* a second package, used by no run */
	write_deb(deb, "6.1.2-1");
	assert_int_equal(pkg_get_file(cache, deb, NULL, "deb", "t", &again), 0);
	assert_int_equal(count_entries(cache), 2);
	/* a run that used the first */
	assert_int_equal(mkdir_p(rundir, 0755), 0);
	rj = xasprintf("{\"run\": \"run-a\", \"variants\": [{\"name\": \"v\", \"kernel\":"
		       " {\"package\": {\"sha256\": \"%s\"}}}]}",
		       e.sha256);
	assert_int_equal(write_file_atomic(runjson, rj, strlen(rj), 0644), 0);
	l = pkg_list_of(cache, results);
	assert_int_equal(json_array_size(l), 2);
	assert_string_equal(
		json_string_value(json_array_get(json_object_get(json_array_get(l, 0), "runs"), 0)),
		"run-a");
	assert_int_equal(json_array_size(json_object_get(json_array_get(l, 1), "runs")), 0);
	assert_true(json_integer_value(json_object_get(json_array_get(l, 0), "size_bytes")) > 0);
	json_decref(l);
	/* gc: the dry run removes nothing, then the unused one goes */
	gone = pkg_gc_of(cache, results, true);
	assert_int_equal(json_array_size(gone), 1);
	json_decref(gone);
	assert_int_equal(count_entries(cache), 2);
	gone = pkg_gc_of(cache, results, false);
	assert_string_equal(json_string_value(json_array_get(gone, 0)), again.sha256);
	json_decref(gone);
	assert_int_equal(count_entries(cache), 1);
	assert_true(path_exists(memo)); /* its entry is still there */
	/* without the run, the first goes too, and its memo with it */
	unlink(runjson);
	gone = pkg_gc_of(cache, results, false);
	json_decref(gone);
	assert_int_equal(count_entries(cache), 0);
	assert_false(path_exists(memo));
	pkg_entry_release(&again);
	pkg_entry_release(&e);
	rm_rf(d);
	free(memo);
	free(apt);
	free(rj);
	free(rundir);
	free(runjson);
	free(cache);
	free(deb);
	free(results);
}

/* a port on 127.0.0.1 that nothing listens on: bound, read, closed */
static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

/*
 * An apt of its own (APT_CONFIG): one source, http://127.0.0.1:PORT on a
 * closed port, whose package index (written here, as 'apt-get update'
 * would) names one kernel package. apt-cache finds the package, apt-get
 * download cannot reach the archive: the refusal names the apt source,
 * with the version apt's candidate or the one asked for, and nothing is
 * stored. The real apt runs; no network is used.
 */
static void test_unreachable(void **state)
{
	char t[] = "/tmp/test_package_apt.XXXXXX", *d = mkdtemp(t), *cache, *conf, *list, *src;
	char *want, *err;
	const char *name = "linux-image-0.0.0-1-mmlabtest", *saved = getenv("APT_CONFIG");
	int port = closed_port();
	struct capture c;
	struct pkg_entry e;

	(void)state;
	if (access("/usr/bin/apt-get", X_OK) || access("/usr/bin/apt-cache", X_OK))
		skip();
	for (const char *sub = "etc/sources.list.d:lists/partial:cache/archives/partial:"
			       "etc/preferences.d";
	     *sub; sub += strcspn(sub, ":") + (sub[strcspn(sub, ":")] == ':')) {
		char *p = xasprintf("%s/%.*s", d, (int)strcspn(sub, ":"), sub);

		assert_int_equal(mkdir_p(p, 0755), 0);
		free(p);
	}
	src = xasprintf("deb [trusted=yes] http://127.0.0.1:%d/mmlab-test bookworm main\n", port);
	put(d, "etc/sources.list", src);
	put(d, "status", "");
	list = xasprintf("lists/127.0.0.1:%d_mmlab-test_dists_bookworm_main_binary-amd64_Packages",
			 port);
	put(d, list,
	    "Package: linux-image-0.0.0-1-mmlabtest\nVersion: 0.0.0-1\nArchitecture: amd64\n"
	    "Filename: pool/main/l/linux/linux-image-0.0.0-1-mmlabtest_0.0.0-1_amd64.deb\n"
	    "Size: 1000\nSHA256: "
	    "0000000000000000000000000000000000000000000000000000000000000000\n"
	    "Description: a kernel package in no reachable archive\n\n");
	conf = xasprintf("Dir::Etc \"%s/etc\";\nDir::State::lists \"%s/lists\";\n"
			 "Dir::State::status \"%s/status\";\nDir::Cache \"%s/cache\";\n"
			 "APT::Architecture \"amd64\";\nAcquire::Retries \"0\";\n",
			 d, d, d, d);
	put(d, "apt.conf", conf);
	free(conf);
	conf = xasprintf("%s/apt.conf", d);
	setenv("APT_CONFIG", conf, 1);
	cache = xasprintf("%s/cache-mmlab", d);
	want = xasprintf("the archive is not reachable (apt source: http://127.0.0.1:%d/mmlab-test "
			 "bookworm/main amd64 Packages)",
			 port);
	/* apt's candidate, then the version asked for (apt-cache madison's source) */
	for (int i = 0; i < 2; i++) {
		capture_start(&c);
		assert_int_equal(pkg_get_apt(cache, name, i ? "0.0.0-1" : NULL,
					     "job.yaml:4:14: variants[0].kernel", &e),
				 -1);
		err = capture_end(&c);
		if (!strstr(err, want))
			fail_msg("the refusal does not name the apt source: %s", err);
		assert_non_null(strstr(err, "job.yaml:4:14: variants[0].kernel: cannot fetch "
					    "linux-image-0.0.0-1-mmlabtest=0.0.0-1"));
		free(err);
		assert_int_equal(count_entries(cache), 0);
	}
	if (saved)
		setenv("APT_CONFIG", saved, 1);
	else
		unsetenv("APT_CONFIG");
	rm_rf(d);
	free(want);
	free(cache);
	free(conf);
	free(list);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),	     cmocka_unit_test(test_madison),
		cmocka_unit_test(test_madison_many), cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_cache),	     cmocka_unit_test(test_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
