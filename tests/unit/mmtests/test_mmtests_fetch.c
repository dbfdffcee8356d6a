// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmtests_fetch.c - the files shellpacks fetch: their sources_fetch
 * and git_fetch lines read (lab/mmtests/fetch.c), with hostile ones, and
 * where they are found on the host (lab/mmtests/sources.c): a mirror, the
 * cache and its records, and the refusal that names what is missing. The
 * download itself (curl, git from a local HTTP server) is in
 * tests/integration/t-mmtests-mirror.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"

#include "lib/util.h"
#include "mmtests/mmtests.h"

static int parse(const char *text, struct mmtests_fetches *fs, char **why)
{
	return mmtests_fetch_parse(text, strlen(text), "pack", fs, why);
}

/* mmtests' usemembuild-install, as in mmtests 638401e0 */
static const char usemembuild[] =
	"#!/bin/bash\n"
	"###SHELLPACK preamble usemembuild-install 0\n"
	"WEB_LOCATION=https://www.spinics.net/lists/linux-mm/attachments\n"
	"MIRROR_LOCATION=\"$WEBROOT/usemem\"\n"
	"\n"
	"###SHELLPACK parseargBegin\n"
	"###SHELLPACK parseargEnd\n"
	"install-depends lsscsi\n"
	"\n"
	"###SHELLPACK sources_fetch gtarazbJaHPaAT.gtar usemembuild-${VERSION}-installed\n"
	"###SHELLPACK build_start usemembuild-${VERSION}-installed\n";

static void test_usemembuild(void **state)
{
	struct mmtests_fetches fs;
	char *why;

	(void)state;
	assert_int_equal(parse(usemembuild, &fs, &why), 0);
	assert_int_equal(fs.n, 1);
	assert_int_equal(fs.v[0].kind, MMTESTS_FETCH_TAR);
	assert_string_equal(fs.v[0].file, "gtarazbJaHPaAT.gtar");
	assert_string_equal(fs.v[0].mirror, "usemem/gtarazbJaHPaAT.gtar");
	assert_string_equal(
		fs.v[0].url,
		"https://www.spinics.net/lists/linux-mm/attachments/gtarazbJaHPaAT.gtar");
	assert_null(fs.v[0].url_alt);
	assert_string_equal(fs.v[0].srcdir, "usemembuild-0-installed");
	assert_string_equal(fs.v[0].pack, "pack");
	assert_int_equal(fs.v[0].line, 10);
	mmtests_fetches_free(&fs);
}

static void test_forms(void **state)
{
	static const char git[] =
		"###SHELLPACK preamble x-install v2.1\n"
		"GIT_LOCATION=https://github.com/gormanm/dbench.git\n"
		"MIRROR_LOCATION=\"$WEBROOT/dbench/\"\n"
		"###SHELLPACK git_fetch dbench-${VERSION}.tar.gz dbench-${VERSION}\n";
	static const char dirs[] = "###SHELLPACK preamble x-install 1.2\n"
				   "export WEB_LOCATION=\"http://e.org/a/\"\n"
				   "WEB_LOCATION_ALT=http://f.org\n"
				   "MIRROR_LOCATION=$WEBROOT/x\n"
				   "###SHELLPACK sources_fetch v${VERSION}/x-${VERSION}.tgz x-\\\n"
				   "${VERSION}\n"
				   "###SHELLPACK sources_fetch_p0 y.tgz y\n"
				   "GIT_FETCH_BRANCH=stable\n"
				   "GIT_LOCATION=https://g.org/r.git\n"
				   "###SHELLPACK git_fetch r.tar.gz r\n";
	struct mmtests_fetches fs;
	char *why;

	(void)state;
	assert_int_equal(parse(git, &fs, &why), 0);
	assert_int_equal(fs.n, 1);
	assert_int_equal(fs.v[0].kind, MMTESTS_FETCH_GIT);
	assert_string_equal(fs.v[0].url, "https://github.com/gormanm/dbench.git");
	assert_string_equal(fs.v[0].commit, "v2.1");
	assert_string_equal(fs.v[0].file, "dbench-v2.1.tar.gz");
	assert_string_equal(fs.v[0].mirror, "dbench/dbench-v2.1.tar.gz");
	mmtests_fetches_free(&fs);

	assert_int_equal(parse(dirs, &fs, &why), 0);
	assert_int_equal(fs.n, 3);
	/* DIR/ goes into the URL, not the file nor the mirror path */
	assert_string_equal(fs.v[0].file, "x-1.2.tgz");
	assert_string_equal(fs.v[0].url, "http://e.org/a/v1.2/x-1.2.tgz");
	assert_string_equal(fs.v[0].url_alt, "http://f.org/v1.2/x-1.2.tgz");
	assert_string_equal(fs.v[0].mirror, "x/x-1.2.tgz");
	assert_string_equal(fs.v[0].srcdir, "x-1.2"); /* a continued line */
	assert_int_equal(fs.v[0].line, 5);
	assert_null(fs.v[1].url_alt); /* sources_fetch_p0 has no alternative */
	assert_int_equal(fs.v[1].line, 7);
	assert_string_equal(fs.v[2].commit, "stable");
	mmtests_fetches_free(&fs);

	/* pcrebuild's: an ftp WEB_LOCATION (not fetched) and an http alternative */
	assert_int_equal(parse("WEB_LOCATION=ftp://ftp.example.org/pcre\n"
			       "WEB_LOCATION_ALT=http://www.example.org/archive/\n"
			       "###SHELLPACK sources_fetch pcre-8.43.tar.bz2 pcrebuild-8.43\n",
			       &fs, &why),
			 0);
	assert_null(fs.v[0].url);
	assert_string_equal(fs.v[0].url_alt, "http://www.example.org/archive/pcre-8.43.tar.bz2");
	mmtests_fetches_free(&fs);
}

/* what mmlab cannot tell is unknown, never guessed or run */
static void test_unknown(void **state)
{
	static const char *const no_url[] = {
		"WEB_LOCATION=`curl http://x`\n###SHELLPACK sources_fetch a.tgz a\n",
		"WEB_LOCATION=$(echo http://x)\n###SHELLPACK sources_fetch a.tgz a\n",
		"WEB_LOCATION=$UNSET/x\n###SHELLPACK sources_fetch a.tgz a\n",
		"WEB_LOCATION=NOT_AVAILABLE\n###SHELLPACK sources_fetch a.tgz a\n",
		"WEB_LOCATION=file:///etc\n###SHELLPACK sources_fetch a.tgz a\n",
		"WEB_LOCATION='http://x/\"$(id)'\n###SHELLPACK sources_fetch a.tgz a\n",
		"GIT_LOCATION=--upload-pack=touch\n###SHELLPACK git_fetch a.tgz a\n",
		"WEB_LOCATION=http://x\nWEB_LOCATION=`date`\n###SHELLPACK sources_fetch a.tgz a\n",
	};
	static const char *const refused[] = {
		"###SHELLPACK sources_fetch ../../etc/passwd a\n",
		"###SHELLPACK sources_fetch a.tgz ../a\n",
		"###SHELLPACK sources_fetch -a.tgz a\n",
		"###SHELLPACK sources_fetch a/b/c.tgz a\n",
		"###SHELLPACK sources_fetch ${NOPE}.tgz a\n",
		"###SHELLPACK sources_fetch a.tgz\n",
		"###SHELLPACK git_fetch\n",
	};
	struct mmtests_fetches fs;
	char *why;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(no_url); i++) {
		if (parse(no_url[i], &fs, &why))
			fail_msg("case %zu refused: %s", i, why);
		assert_int_equal(fs.n, 1);
		if (fs.v[0].url)
			fail_msg("case %zu: a URL %s", i, fs.v[0].url);
		assert_string_equal(fs.v[0].mirror, "pack/a.tgz");
		mmtests_fetches_free(&fs);
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		if (!parse(refused[i], &fs, &why))
			fail_msg("case %zu was read", i);
		assert_non_null(strstr(why, "line 1: mmlab cannot tell"));
		free(why);
	}
	/* a MIRROR_LOCATION outside $WEBROOT or with ".." falls back to <pack>/ */
	assert_int_equal(
		parse("MIRROR_LOCATION=$WEBROOT/../x\n###SHELLPACK sources_fetch a.tgz a\n", &fs,
		      &why),
		0);
	assert_string_equal(fs.v[0].mirror, "pack/a.tgz");
	mmtests_fetches_free(&fs);
}

static void test_bounds(void **state)
{
	struct mmtests_fetches fs;
	char *why, *big;
	size_t n = 0;
	char *p;

	(void)state;
	/* more fetches than the bound */
	big = xmalloc(64 * (MMTESTS_MAX_FETCHES + 2));
	p = big;
	for (int i = 0; i <= MMTESTS_MAX_FETCHES; i++)
		p += sprintf(p, "###SHELLPACK sources_fetch f%d.tgz d%d\n", i, i);
	assert_int_equal(mmtests_fetch_parse(big, strlen(big), "pack", &fs, &why), -1);
	assert_non_null(strstr(why, "more than"));
	free(why);
	free(big);
	/* a line longer than the bound is no macro; a NUL ends nothing early */
	big = xmalloc(20000);
	n = (size_t)sprintf(big, "###SHELLPACK sources_fetch a.tgz ");
	memset(big + n, 'a', 9000);
	n += 9000;
	n += (size_t)sprintf(big + n, "\n###SHELLPACK sources_fetch b.tgz b\n");
	big[n++] = '\0';
	n += (size_t)sprintf(big + n, "###SHELLPACK sources_fetch c.tgz c\n");
	assert_int_equal(mmtests_fetch_parse(big, n, "pack", &fs, &why), 0);
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.v[0].file, "b.tgz");
	mmtests_fetches_free(&fs);
	free(big);
	/* a value that grows past the bound by expansion */
	big = xmalloc(8192);
	p = big +
	    sprintf(big, "A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
	for (int i = 0; i < 6; i++)
		p += sprintf(p, "A=$A$A\n");
	sprintf(p, "WEB_LOCATION=http://$A\n###SHELLPACK sources_fetch a.tgz a\n");
	assert_int_equal(mmtests_fetch_parse(big, strlen(big), "pack", &fs, &why), 0);
	assert_null(fs.v[0].url);
	mmtests_fetches_free(&fs);
	free(big);
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
}

/* a mirror, then the cache with its record; a file in neither is refused, named */
static void test_sources(void **state)
{
	char tmpl[] = "/tmp/test-mmtests-src-XXXXXX", *mirror, *cache, *p, *errs;
	struct mmtests_fetches fs;
	struct kvlist files = { 0 };
	struct capture c;
	char *why;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_true(asprintf(&mirror, "%s/mirror", tmpl) > 0);
	assert_true(asprintf(&cache, "%s/cache", tmpl) > 0);
	assert_true(asprintf(&p, "%s/usemem", mirror) > 0);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	assert_int_equal(parse(usemembuild, &fs, &why), 0);

	/* the mirror */
	assert_true(asprintf(&p, "%s/usemem/gtarazbJaHPaAT.gtar", mirror) > 0);
	write_text(p, "tarball");
	assert_int_equal(mmtests_sources(&fs, mirror, cache, &files), 0);
	assert_string_equal(kvlist_get(&files, "gtarazbJaHPaAT.gtar"), p);
	unlink(p);
	free(p);
	kvlist_free(&files);

	/* the cache, with a record that matches; sha256("tarball") */
	assert_true(asprintf(&p, "%s/mmtests-sources/usemem", cache) > 0);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	assert_true(asprintf(&p, "%s/mmtests-sources/usemem/gtarazbJaHPaAT.gtar", cache) > 0);
	write_text(p, "tarball");
	{
		char sha[65], *meta, *rec;

		sha256_buf("tarball", 7, sha);
		assert_true(asprintf(&meta, "%s.json", p) > 0);
		assert_true(asprintf(&rec, "{\"size\": 7, \"sha256\": \"%s\"}", sha) > 0);
		write_text(meta, rec);
		assert_int_equal(mmtests_sources(&fs, mirror, cache, &files), 0);
		assert_string_equal(kvlist_get(&files, "gtarazbJaHPaAT.gtar"), p);
		kvlist_free(&files);
		/* changed since: not used, and without a URL not fetched again */
		free(fs.v[0].url);
		fs.v[0].url = NULL;
		write_text(p, "tarbal!");
		capture_start(&c);
		assert_int_equal(mmtests_sources(&fs, mirror, cache, &files), -1);
		errs = capture_end(&c);
		assert_non_null(strstr(errs, "does not match its record"));
		assert_false(path_exists(p));
		assert_false(path_exists(meta));
		free(errs);
		free(meta);
		free(rec);
	}
	free(p);

	/* in neither place: the benchmark, the file, the URL and the paths */
	free(fs.v[0].bench);
	fs.v[0].bench = xstrdup("usemem");
	capture_start(&c);
	assert_int_equal(mmtests_sources(&fs, mirror, cache, &files), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(
		errs,
		"mmtests benchmark 'usemem' needs gtarazbJaHPaAT.gtar (shellpack_src/src/pack/pack-install line 10: sources_fetch), which is neither in the mirror nor in the cache, and its URL is not known"));
	assert_true(
		asprintf(
			&p,
			"Put the file in the mirror at %s/usemem/gtarazbJaHPaAT.gtar, or in the cache at %s/mmtests-sources/usemem/gtarazbJaHPaAT.gtar",
			mirror, cache) > 0);
	assert_non_null(strstr(errs, p));
	free(p);
	free(errs);
	assert_int_equal(files.n, 0);
	capture_start(&c);
	assert_int_equal(mmtests_sources(&fs, NULL, cache, &files), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "not in the cache (the job gives no mirror)"));
	assert_non_null(strstr(errs, "in a mirror at MIRROR/usemem/gtarazbJaHPaAT.gtar"));
	free(errs);

	mmtests_fetches_free(&fs);
	rm_rf(tmpl);
	free(mirror);
	free(cache);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usemembuild), cmocka_unit_test(test_forms),
		cmocka_unit_test(test_unknown),	    cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
