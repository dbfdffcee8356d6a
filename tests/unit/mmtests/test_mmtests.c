// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmtests.c - mmtests workloads: the job keys (lab/job/parse_mmtests.c),
 * what a config needs read from mmtests' own files (lab/mmtests/needs.c,
 * against the small tree in tests/unit/jobs/mmtests/tree, with the host's
 * apt-cache), and the import's refusal of a hostile log archive
 * (lab/mmtests/import.c). The real mmtests runs in
 * tests/integration/t-mmtests.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "capture.h"

#include "job/job.h"
#include "job/job_mmtests.h"
#include "job/job_own.h"
#include "job_errors.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"

static char *fixture(const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/tests/unit/jobs/mmtests/%s", srcdir(), rel) > 0);
	return p;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void test_config_benchmarks(void **state)
{
	static const struct {
		const char *text, *want, *why;
	} cases[] = {
		{ "export MMTESTS=\"thpchallenge\"\n", "thpchallenge", NULL },
		{ "# x\n  export MMTESTS='a b'  \nMMTESTS=\"c d\" # last wins\n", "c,d", NULL },
		{ "MMTESTS=usemem\n", "usemem", NULL },
		{ "MMTESTS=usemem; echo\n", "usemem", NULL },
		{ "export MMTESTSX=a\n", NULL, "sets no benchmarks" },
		{ "export MMTESTS=\"$LIST\"\n", NULL, "'$LIST', which is not a benchmark name" },
		{ "export MMTESTS=\"a b\n", NULL, "no closing quote" },
		{ "export MMTESTS=\"\"\n", NULL, "sets no benchmarks" },
		{ "MMTESTS=\"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\"", NULL,
		  "more than 16 benchmarks" },
		{ "", NULL, "sets no benchmarks" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strlist l = { 0 };
		char *why = NULL;
		int rc = mmtests_config_benchmarks(cases[i].text, strlen(cases[i].text), &l, &why);

		if (cases[i].want) {
			char *j = strlist_join(&l, ",");

			assert_int_equal(rc, 0);
			assert_string_equal(j, cases[i].want);
			free(j);
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(why);
			if (!strstr(why, cases[i].why))
				fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].why);
		}
		free(why);
		strlist_free(&l);
	}
}

/* fuzz_mmtests_config's findings: a NUL in a name, a value at the end of an unterminated buffer */
static void test_config_benchmarks_bounds(void **state)
{
	static const char nul[] = "export MMTESTS=\"a \0\0 b\"\n";
	static const char tail[] = "MMTESTS=abc def";
	char *exact = malloc(sizeof(tail) - 1), *why = NULL;
	struct strlist l = { 0 };

	(void)state;
	assert_int_equal(mmtests_config_benchmarks(nul, sizeof(nul) - 1, &l, &why), -1);
	assert_non_null(strstr(why, "which is not a benchmark name"));
	free(why);
	/* no NUL after the text: ASan stops a read past it */
	memcpy(exact, tail, sizeof(tail) - 1);
	assert_int_equal(mmtests_config_benchmarks(exact, sizeof(tail) - 1, &l, &why), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1], "def");
	strlist_free(&l);
	free(exact);
}

static struct job *load_good(void)
{
	char *path = fixture("good.yaml");
	struct job *job = NULL;

	assert_int_equal(job_load(path, &job), 0);
	free(path);
	return job;
}

static void test_job(void **state)
{
	struct job *job = load_good();
	const struct job_mmtests *m = job->workload.mmtests;
	const struct job_own *o = job->workload.own;

	(void)state;
	assert_non_null(m);
	assert_non_null(o);
	assert_true(ends_with(m->dir, "/mmtests/tree"));
	/* relative to the mmtests directory, where it is */
	assert_true(ends_with(m->config, "/mmtests/tree/configs/config-thp"));
	assert_int_equal(m->benchmarks.n, 1);
	assert_string_equal(m->benchmarks.v[0], "thp");
	assert_int_equal(m->packages.n, 1);
	assert_string_equal(m->packages.v[0], "stress-ng");
	assert_string_equal(job->workload.name, "mmtests");
	assert_int_equal(o->argv.n, 4);
	assert_string_equal(o->argv.v[0], "/bin/sh");
	assert_string_equal(o->argv.v[1], MMTESTS_GUEST_SCRIPT);
	assert_string_equal(o->argv.v[2], MMTESTS_GUEST_CONFIG);
	assert_string_equal(o->argv.v[3], MMTESTS_RUN_NAME);
	assert_int_equal(o->phase, OWN_PHASE_HANDSHAKE);
	assert_int_equal(o->timeout_s, 1200);
	assert_int_equal(o->nfiles, 1);
	assert_string_equal(o->files[0].src, m->config);
	assert_string_equal(o->files[0].dst, MMTESTS_GUEST_CONFIG);
	assert_true(strlist_has(&job->collect_files, MMTESTS_GUEST_LOG));
	job_free(job);
}

static char *load_errors(const char *yaml)
{
	char *dir = fixture(""), *errs = job_errors_in(dir, yaml);

	free(dir);
	return errs;
}

#define HEAD                                          \
	"name: t\n"                                   \
	"variants: [ { name: a, kernel: distro } ]\n" \
	"topology: { nodes: 1, memory_per_node: 512M }\n"

static void test_job_errors(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ HEAD "workload: { mmtests: { dir: tree, config: configs/config-thp } }\n",
		  "t.yaml:4:22: error: workload.mmtests: mmtests runs on the Debian disk image" },
		{ HEAD
		  "image: { kind: debootstrap }\n"
		  "workload: { mmtests: { dir: tree, config: configs/config-thp }, command: [x] }\n",
		  "t.yaml:5:65: error: workload.command: does not go with mmtests:" },
		{ HEAD "image: { kind: debootstrap }\n"
		       "workload: { mmtests: { dir: nowhere, config: configs/config-thp } }\n",
		  "t.yaml:5:29: error: workload.mmtests.dir: 'nowhere' is not a directory" },
		{ HEAD "image: { kind: debootstrap }\n"
		       "workload: { mmtests: { dir: ., config: good.yaml } }\n",
		  "t.yaml:5:29: error: workload.mmtests.dir: '.' has no run-mmtests.sh" },
		{ HEAD "image: { kind: debootstrap }\n"
		       "workload: { mmtests: { dir: tree, config: configs/config-none } }\n",
		  "t.yaml:5:43: error: workload.mmtests.config: 'configs/config-none': it sets no benchmarks" },
		{ HEAD "image: { kind: debootstrap }\n"
		       "workload: { mmtests: { dir: tree, config: configs/missing } }\n",
		  "t.yaml:5:43: error: workload.mmtests.config: 'configs/missing' is not a file" },
		{ HEAD "image: { kind: debootstrap }\n"
		       "workload: { mmtests: { dir: tree } }\n",
		  "t.yaml:5:22: error: workload.mmtests.config: required key is missing" },
		{ HEAD
		  "image: { kind: debootstrap }\n"
		  "workload: { mmtests: { dir: tree, config: configs/config-thp, packages: [Bad] } }\n",
		  "t.yaml:5:74: error: workload.mmtests.packages[0]: 'Bad' is not a Debian package name" },
		{ HEAD "image: { kind: debootstrap }\niterations: 2\niterations_per_boot: 2\n"
		       "workload: { mmtests: { dir: tree, config: configs/config-thp } }\n",
		  "t.yaml:7:22: error: workload.mmtests: runs one iteration per boot" },
		{ HEAD
		  "image: { kind: debootstrap }\n"
		  "workload: { mmtests: { dir: tree, config: configs/config-thp, runs: 3 } }\n",
		  "t.yaml:5:63: error: workload.mmtests.runs: unknown key 'runs'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *errs = load_errors(cases[i].yaml);

		if (!strstr(errs, cases[i].want))
			fail_msg("case %zu: errors\n%s\nlack '%s'", i, errs, cases[i].want);
		free(errs);
	}
}

/* the job's mmtests with another config of the fixture tree */
static struct job *with_config(const char *config)
{
	struct job *job = load_good();
	char *c = fixture("tree/configs/");

	free(job->workload.mmtests->config);
	assert_true(asprintf(&job->workload.mmtests->config, "%s%s", c, config) > 0);
	strlist_free(&job->workload.mmtests->benchmarks);
	strlist_push(&job->workload.mmtests->benchmarks, config + strlen("config-"));
	free(c);
	return job;
}

static void test_needs(void **state)
{
	struct job *job = load_good();
	struct mmtests_needs nd;

	(void)state;
	assert_int_equal(mmtests_needs(job->workload.mmtests, NULL, &nd), 0);
	/* run-mmtests.sh's, with bin/install-depends' Debian names */
	for (const char *const *p =
		     (const char *const[]){ "util-linux", "gawk", "numactl", "bc", "binutils-dev",
					    "debianutils", "libfile-slurp-perl", NULL };
	     *p; p++)
		if (!strlist_has(&nd.packages, *p))
			fail_msg("run-mmtests.sh's %s is not in the packages", *p);
	/* the benchmark's, an external scanned (localext), the job's */
	assert_true(strlist_has(&nd.packages, "libnuma-dev"));
	assert_true(strlist_has(&nd.packages, "psmisc"));
	assert_true(strlist_has(&nd.packages, "stress-ng"));
	/* fio downloads: Debian's fio stands in, and its build deps are not needed */
	assert_true(strlist_has(&nd.packages, "fio"));
	assert_false(strlist_has(&nd.packages, "libaio-dev"));
	assert_int_equal(nd.stubs.n, 1);
	assert_string_equal(nd.stubs.v[0], "fio-3.33-installed:fio");
	/* an openSUSE name Debian lacks, and no "$PACKAGE" */
	assert_true(strlist_has(&nd.missing, "libnuma"));
	assert_false(strlist_has(&nd.packages, "libnuma"));
	for (size_t i = 0; i < nd.packages.n; i++) {
		assert_null(strchr(nd.packages.v[i], '$'));
		if (i)
			assert_true(strcmp(nd.packages.v[i - 1], nd.packages.v[i]) < 0);
	}
	assert_true(strlist_has(&nd.sources, "run-mmtests.sh"));
	assert_true(strlist_has(&nd.sources, "shellpack thp"));

	/* apt-cache's answer kept in a cache directory: the same packages from it */
	{
		char tmpl[] = "/tmp/test-mmtests-cache-XXXXXX", *a, *b, *kept;
		struct mmtests_needs n1, n2;

		assert_non_null(mkdtemp(tmpl));
		assert_int_equal(mmtests_needs(job->workload.mmtests, tmpl, &n1), 0);
		assert_int_equal(mmtests_needs(job->workload.mmtests, tmpl, &n2), 0);
		a = strlist_join(&nd.packages, ",");
		b = strlist_join(&n1.packages, ",");
		assert_string_equal(a, b);
		free(b);
		b = strlist_join(&n2.packages, ",");
		assert_string_equal(a, b);
		free(a);
		free(b);
		assert_true(asprintf(&kept, "%s/mmtests-apt", tmpl) > 0);
		assert_true(is_dir(kept));
		free(kept);
		rm_rf(tmpl);
		mmtests_needs_release(&n1);
		mmtests_needs_release(&n2);
	}
	mmtests_needs_release(&nd);
	job_free(job);
}

static void test_needs_refused(void **state)
{
	static const struct {
		const char *config, *want;
	} cases[] = {
		{ "config-rawget",
		  "mmtests benchmark 'rawget' cannot run in the guest: rawget downloads its sources (shellpack_src/src/rawget/rawget-install line 5: wget)" },
		{ "config-unknown",
		  "mmtests has no benchmark 'unknown' (no drivers/driver-unknown.sh in " },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct job *job = with_config(cases[i].config);
		struct mmtests_needs nd;
		struct capture c;
		char *errs;

		capture_start(&c);
		assert_int_equal(mmtests_needs(job->workload.mmtests, NULL, &nd), -1);
		errs = capture_end(&c);
		if (!strstr(errs, cases[i].want))
			fail_msg("case %zu: errors\n%s\nlack '%s'", i, errs, cases[i].want);
		free(errs);
		job_free(job);
	}
}

/* mmtests' own fetches are needs, met on the host (sources.c), not refusals */
static void test_needs_fetches(void **state)
{
	struct job *job = with_config("config-fetcher");
	struct mmtests_needs nd;
	const struct mmtests_fetch *f;

	(void)state;
	assert_int_equal(mmtests_needs(job->workload.mmtests, NULL, &nd), 0);
	assert_int_equal(nd.fetches.n, 1);
	f = &nd.fetches.v[0];
	assert_int_equal(f->kind, MMTESTS_FETCH_GIT);
	assert_string_equal(f->bench, "fetcher");
	assert_string_equal(f->file, "fetcher-1.0.tar.gz");
	assert_string_equal(f->srcdir, "fetcher-1.0");
	assert_string_equal(f->mirror, "fetcher/fetcher-1.0.tar.gz"); /* no MIRROR_LOCATION */
	assert_null(f->url); /* no GIT_LOCATION */
	assert_int_equal(f->line, 5);
	mmtests_needs_release(&nd);
	job_free(job);

	/* an external Debian does not have: built from its sources, with its depends */
	job = with_config("config-extbad");
	assert_int_equal(mmtests_needs(job->workload.mmtests, NULL, &nd), 0);
	assert_int_equal(nd.fetches.n, 1);
	f = &nd.fetches.v[0];
	assert_int_equal(f->kind, MMTESTS_FETCH_TAR);
	assert_string_equal(f->bench, "extbad");
	assert_string_equal(f->pack, "extpack");
	assert_string_equal(f->file, "extpack-3.33.tar.bz2");
	assert_string_equal(f->url, "http://example.org/extpack-3.33.tar.bz2");
	/* its install-depends (the stand-in tree maps no libaio-devel) */
	assert_true(strlist_has(&nd.packages, "libaio-dev") ||
		    strlist_has(&nd.missing, "libaio-devel"));
	assert_int_equal(nd.stubs.n, 0);
	mmtests_needs_release(&nd);
	job_free(job);
}

/* a log archive with one entry (type: AE_IFREG, AE_IFLNK) */
static void write_tar(const char *path, const char *name, unsigned int type)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, 0644);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, "/etc/passwd");
	else
		archive_entry_set_size(e, 4);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	if (type == AE_IFREG)
		assert_int_equal(archive_write_data(a, "evil", 4), 4);
	archive_entry_free(e);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static void test_import_hostile(void **state)
{
	char tmpl[] = "/tmp/test-mmtests-XXXXXX", *files, *tar, *path;
	struct job *job = load_good();
	json_t *metrics = json_object();
	char *why = NULL;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_true(asprintf(&files, "%s/it/files/mmlab/work", tmpl) > 0);
	assert_int_equal(mkdir_p(files, 0755), 0);
	assert_true(asprintf(&tar, "%s/it/files%s", tmpl, MMTESTS_GUEST_LOG) > 0);

	/* no log at all */
	assert_true(asprintf(&path, "%s/it", tmpl) > 0);
	assert_null(mmtests_import(job->workload.mmtests, path, metrics, &why));
	assert_non_null(strstr(why, "the guest sent back no mmtests log"));
	free(why);

	/* a path out of the iteration's directory */
	write_tar(tar, "../../escaped", AE_IFREG);
	assert_null(mmtests_import(job->workload.mmtests, path, metrics, &why));
	assert_non_null(strstr(why, "holds a path mmlab does not unpack: ../../escaped"));
	free(why);
	free(path);
	assert_true(asprintf(&path, "%s/escaped", tmpl) > 0);
	assert_false(path_exists(path));
	free(path);

	/* a link is left out: nothing to read, so no samples, and no link made */
	assert_true(asprintf(&path, "%s/it/mmtests", tmpl) > 0);
	rm_rf(path);
	free(path);
	write_tar(tar, "mmlab/iter-0/passwd", AE_IFLNK);
	assert_true(asprintf(&path, "%s/it", tmpl) > 0);
	assert_null(mmtests_import(job->workload.mmtests, path, metrics, &why));
	/* the fixture's extract-mmtests.pl prints nothing */
	assert_non_null(strstr(why, "printed no JSON object"));
	free(why);
	free(path);
	assert_true(asprintf(&path, "%s/it/mmtests/mmlab/iter-0/passwd", tmpl) > 0);
	assert_false(path_exists(path));
	free(path);
	assert_int_equal(json_object_size(metrics), 0);

	json_decref(metrics);
	rm_rf(tmpl);
	free(files);
	free(tar);
	job_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_benchmarks),
		cmocka_unit_test(test_config_benchmarks_bounds),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_job_errors),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_needs_refused),
		cmocka_unit_test(test_needs_fetches),
		cmocka_unit_test(test_import_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
