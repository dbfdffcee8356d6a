// SPDX-License-Identifier: GPL-2.0
/*
 * test_image_recipe.c - guest image recipes (lab/image/recipe.c, images/):
 * the shipped recipes load and hash as the images cached before recipes
 * existed; a good recipe parses to the exact struct; every malformed one
 * fails with its FILE:LINE:COLUMN and message; a user's recipe in any
 * directory is what "image build --recipe" and a job's image.recipe use;
 * the cache lists and collects images of several recipes.
 */
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

#include "capture.h"

#include "image/cache.h"
#include "image/diskimage.h"
#include "image/image.h"
#include "image/initramfs.h"
#include "image/recipe.h"
#include "job/job.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-recipe-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text), 0755), 0);
	free(p);
}

static char *sha(const char *text)
{
	char h[65];

	sha256_buf(text, strlen(text), h);
	return xstrdup(h);
}

/*
 * A guest dir with an agent and two workloads, as MMLAB_GUEST_DIR for the
 * whole run (image_guest_dir() keeps the first answer).
 */
static char *guest;

static int setup_guest(void **state)
{
	char *wl;

	(void)state;
	guest = tmpdir();
	wl = xasprintf("%s/workloads", guest);
	assert_int_equal(mkdir(wl, 0755), 0);
	put(guest, "agent", "#agent");
	put(wl, "noop", "#noop");
	put(wl, "usemem", "#usemem");
	free(wl);
	setenv("MMLAB_GUEST_DIR", guest, 1);
	return 0;
}

static int teardown_guest(void **state)
{
	(void)state;
	rm_rf(guest);
	free(guest);
	return 0;
}

static void load_shipped(enum recipe_kind k, struct image_recipe *r)
{
	char *p = xasprintf("%s/images/%s.yaml", srcdir(), image_recipe_kind_name(k));

	assert_int_equal(image_recipe_load(p, r), 0);
	assert_int_equal(r->kind, k);
	free(p);
}

/* the shipped recipes, and the hashes of the images cached before them */
static void test_shipped(void **state)
{
	char *cache = tmpdir(), *old, *ih, *dh, *uh;
	struct image_recipe r;
	struct image img;
	struct disk_image d;

	(void)state;
	load_shipped(RECIPE_INITRAMFS, &r);
	assert_string_equal(r.name, "initramfs");
	assert_int_equal(r.dirs.n, 8);
	assert_string_equal(r.dirs.v[7], "mmlab/workloads");
	assert_int_equal(r.ndevices, 2);
	assert_string_equal(r.devices[0].path, "dev/console");
	assert_int_equal(r.devices[0].mode, 0600);
	assert_int_equal(r.devices[1].minor, 3);
	assert_int_equal(r.nfiles, 0);
	/* format 1: the format, then each guest program and its sha256 */
	ih = sha("#agent");
	dh = sha("#noop");
	uh = sha("#usemem");
	old = xasprintf("mmlab-initramfs-1\ninit %s\nmmlab/workloads/noop %s\n"
			"mmlab/workloads/usemem %s\n",
			ih, dh, uh);
	free(uh);
	assert_int_equal(image_initramfs_make(cache, &r, true, &img), 0);
	free(ih);
	ih = sha(old);
	assert_string_equal(img.hash, ih);
	assert_false(img.built);
	image_release(&img);
	image_recipe_release(&r);

	load_shipped(RECIPE_DEBOOTSTRAP, &r);
	assert_string_equal(r.suite, "bookworm");
	assert_string_equal(r.variant, "minbase");
	assert_int_equal(r.size_bytes, 4ULL << 30);
	assert_int_equal(r.packages.n, 0);
	assert_null(r.mirror);
	assert_int_equal(r.nfiles, 2);
	assert_string_equal(r.files[0].path, "etc/hostname");
	assert_string_equal(r.files[0].text, "mmlab\n");
	assert_int_equal(r.files[1].mode, 0644);
	free(old);
	old = xasprintf("mmlab-debootstrap-1\nsuite=bookworm\npackages=\nsize=4294967296\n"
			"guest=%s\n",
			ih);
	assert_int_equal(disk_image_make(cache, &r, true, false, &d), 0);
	free(dh);
	dh = sha(old);
	assert_string_equal(d.hash, dh);
	disk_image_release(&d);
	image_recipe_release(&r);
	free(old);
	free(ih);
	free(dh);
	rm_rf(cache);
	free(cache);
}

static int parse_str(const char *yaml, const char *dir, struct image_recipe *r, char **errs)
{
	struct capture c;
	int ret;

	capture_start(&c);
	ret = image_recipe_parse("r.yaml", yaml, strlen(yaml), dir, r);
	*errs = capture_end(&c);
	return ret;
}

static void test_good(void **state)
{
	char *dir = tmpdir(), *errs, *want;
	struct image_recipe r;
	const char *yaml = "kind: initramfs\n"
			   "description: with busybox\n"
			   "dirs: [/dev, /usr/bin]\n"
			   "devices:\n"
			   "  - { path: /dev/sda, type: block, major: 8, minor: 0, mode: 660 }\n"
			   "files:\n"
			   "  - { path: /usr/bin/busybox, src: bb, mode: \"0755\" }\n"
			   "  - path: /etc/motd\n"
			   "    text: |\n"
			   "      hello\n"
			   "      world\n";

	(void)state;
	put(dir, "bb", "#busybox");
	assert_int_equal(parse_str(yaml, dir, &r, &errs), 0);
	assert_string_equal(errs, "");
	assert_string_equal(r.name, "r");
	assert_string_equal(r.description, "with busybox");
	assert_int_equal(r.dirs.n, 2);
	assert_string_equal(r.dirs.v[1], "usr/bin");
	assert_true(r.devices[0].block);
	assert_int_equal(r.devices[0].major, 8);
	assert_int_equal(r.devices[0].mode, 0660);
	assert_int_equal(r.nfiles, 2);
	want = xasprintf("%s/bb", dir);
	assert_string_equal(r.files[0].src, want);
	free(want);
	assert_int_equal(r.files[0].mode, 0755);
	assert_string_equal(r.files[1].text, "hello\nworld\n");
	assert_int_equal(r.files[1].mode, 0644);
	image_recipe_release(&r);
	free(errs);

	assert_int_equal(parse_str("kind: debootstrap\nsuite: trixie\nvariant: standard\n"
				   "packages: [numactl, g++]\nsize: 2G\n"
				   "mirror: http://m.example/debian\n",
				   dir, &r, &errs),
			 0);
	assert_string_equal(errs, "");
	assert_string_equal(r.suite, "trixie");
	assert_string_equal(r.variant, "standard");
	assert_string_equal(r.packages.v[1], "g++");
	assert_int_equal(r.size_bytes, 2ULL << 30);
	assert_string_equal(r.mirror, "http://m.example/debian");
	image_recipe_release(&r);
	free(errs);
	rm_rf(dir);
	free(dir);
}

struct bad {
	const char *yaml, *where, *msg;
};

static const struct bad bads[] = {
	{ "kind: initramfs\ndirz: [/x]\n", "2:1",
	  "dirz: unknown key 'dirz' (did you mean 'dirs'?); allowed keys here: kind, " },
	{ "dirs: [/x]\n", "1:1", "kind: required key is missing" },
	{ "kind: qcow\n", "1:7",
	  "kind: 'qcow' is not allowed; expected one of: initramfs, debootstrap" },
	{ "kind: initramfs\ndirs: /x\n", "2:7", "dirs: got a scalar; expected a list such as" },
	{ "kind: initramfs\ndirs: [x/y]\n", "2:8", "dirs[0]: 'x/y' is not a usable path" },
	{ "kind: initramfs\ndirs: [/a/../b]\n", "2:8", "dirs[0]: '/a/../b' is not a usable path" },
	{ "kind: initramfs\ndevices: [{ path: /dev/x, type: char, major: 5000, minor: 1, mode: 600 }]\n",
	  "2:46",
	  "devices[0].major: '5000' is out of range or not a number; expected an integer 0..4095" },
	{ "kind: initramfs\ndevices: [{ path: /dev/x, type: pipe, major: 1, minor: 1, mode: 600 }]\n",
	  "2:33", "devices[0].type: 'pipe' is not allowed; expected one of: char, block" },
	{ "kind: initramfs\ndevices: [{ path: /dev/x, type: char, major: 1, minor: 1 }]\n", "2:11",
	  "devices[0].mode: required key is missing" },
	{ "kind: initramfs\nfiles: [{ path: /etc/x, text: a, mode: \"0999\" }]\n", "2:40",
	  "files[0].mode: '0999' is not a mode; expected an octal mode such as 0644" },
	{ "kind: initramfs\nfiles: [{ path: /etc/x }]\n", "2:9",
	  "files[0]: give either 'text:' (the contents) or 'src:' (a host file), not neither" },
	{ "kind: initramfs\nfiles: [{ path: /etc/x, text: a, src: b }]\n", "2:9",
	  "files[0]: give either 'text:' (the contents) or 'src:' (a host file), not both" },
	{ "kind: initramfs\nfiles: [{ path: /init, text: a }]\n", "2:17",
	  "files[0].path: '/init' is the lab's own" },
	{ "kind: initramfs\nfiles: [{ path: /x, src: no-such-file }]\n", "2:26",
	  "files[0].src: 'no-such-file' is not a readable file" },
	{ "kind: initramfs\nfiles: [{ path: /x, text: [a] }]\n", "2:27",
	  "files[0].text: got a list; expected a text" },
	{ "kind: initramfs\nfiles: [{ path: /x, text: a }, { path: /x, text: b }]\n", "2:32",
	  "files[1]: '/x' is listed twice" },
	{ "kind: initramfs\nsuite: bookworm\n", "2:1",
	  "suite: applies to 'kind: debootstrap' only; remove it" },
	{ "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 4G\n"
	  "devices: [{ path: /dev/x, type: char, major: 1, minor: 1, mode: 600 }]\n",
	  "5:1", "devices: applies to 'kind: initramfs' only; remove it" },
	{ "kind: debootstrap\nvariant: minbase\nsize: 4G\n", "1:1",
	  "suite: required key is missing; add it, e.g. 'suite: bookworm'" },
	{ "kind: debootstrap\nsuite: Bookworm\nvariant: minbase\nsize: 4G\n", "2:8",
	  "suite: 'Bookworm' is not a suite name" },
	{ "kind: debootstrap\nsuite: bookworm\nvariant: fat\nsize: 4G\n", "3:10",
	  "variant: 'fat' is not allowed; expected one of: minbase, buildd, standard" },
	{ "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 100M\n", "4:7",
	  "size: '100M' is not a usable size; expected a whole number of MiB from 512M to 1T" },
	{ "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 4G\npackages: [a, Bad]\n",
	  "5:15", "packages[1]: 'Bad' is not a Debian package name" },
	{ "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 4G\nmirror: ftp://x\n",
	  "5:9", "mirror: 'ftp://x' is not a mirror URL" },
	{ "kind: initramfs\ndirs: [/a\n", "3:1", "YAML: did not find expected ',' or ']'" },
	{ "kind: &k initramfs\nx: *k\n", "2:4", "YAML: alias '*k' is not supported" },
	{ "kind: initramfs\n---\nkind: initramfs\n", "2:1", "YAML: a second YAML document" },
	{ "", "1:1", "(top level): the file is empty; expected a mapping" },
	{ "- kind\n", "1:1", "(top level): got a list; expected a mapping" },
};

static void test_errors(void **state)
{
	unsigned int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bads); i++) {
		struct image_recipe r;
		char *errs, *want = xasprintf("r.yaml:%s: error: %s", bads[i].where, bads[i].msg);

		assert_int_equal(parse_str(bads[i].yaml, "/nonexistent", &r, &errs), -1);
		if (!strstr(errs, want))
			print_error("recipe %zu:\n%s\nwanted: %s\ngot:\n%s", i, bads[i].yaml, want,
				    errs);
		bad += !strstr(errs, want);
		/* one summary after the located errors */
		assert_non_null(strstr(errs, "in the image recipe; fix"));
		assert_null(r.path);
		free(errs);
		free(want);
	}
	assert_int_equal(bad, 0);
}

static void test_missing(void **state)
{
	struct image_recipe r;
	struct capture c;
	char *errs, *p;

	(void)state;
	capture_start(&c);
	assert_int_equal(image_recipe_load("/nonexistent/my.yaml", &r), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "cannot open /nonexistent/my.yaml"));
	free(errs);

	/* a name: looked up in the images directory, whose recipes the message lists */
	capture_start(&c);
	p = image_recipe_path("mine", NULL);
	errs = capture_end(&c);
	assert_null(p);
	assert_non_null(strstr(errs, "no image recipe 'mine'"));
	assert_non_null(strstr(errs, ": debootstrap, initramfs); add it, give a path, or set "
				     "MMLAB_IMAGES_DIR"));
	free(errs);

	capture_start(&c);
	p = image_recipe_path("my recipe", NULL);
	errs = capture_end(&c);
	assert_null(p);
	assert_non_null(strstr(errs, "'my recipe' is not a recipe name"));
	free(errs);

	capture_start(&c);
	p = image_recipe_path("rel/none.yaml", "/base");
	errs = capture_end(&c);
	assert_null(p);
	assert_non_null(strstr(errs, "no image recipe /base/rel/none.yaml"));
	free(errs);

	/* a name of the shipped recipes */
	p = image_recipe_path("debootstrap", NULL);
	assert_non_null(p);
	assert_non_null(strstr(p, "/debootstrap.yaml"));
	free(p);
}

static void resolve_dry(const struct image_request *rq, const char *cache, struct image_built *b)
{
	struct image_recipe r;

	assert_int_equal(image_resolve(rq, &r), 0);
	assert_int_equal(image_make(cache, &r, true, false, b), 0);
	image_recipe_release(&r);
}

/* a user's recipe in a directory of its own, by path: its own hash, changed by its content */
static void test_user_recipe(void **state)
{
	char *cache = tmpdir(), *dir = tmpdir();
	char *my = xasprintf("%s/my.yaml", dir), first[65];
	struct image_request def = { .kind = RECIPE_DEBOOTSTRAP },
			     rq = { .kind = -1, .recipe = my };
	struct image_built b, bd;
	struct image_recipe r;
	struct capture c;
	char *errs;

	(void)state;
	put(dir, "my.yaml",
	    "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 4G\n"
	    "packages: [stress-ng]\n");
	resolve_dry(&def, cache, &bd);
	resolve_dry(&rq, cache, &b);
	assert_string_not_equal(b.hash, bd.hash);
	assert_non_null(strstr(b.path, "/images/debootstrap-"));
	assert_false(b.cached);
	strcpy(first, b.hash);
	image_built_release(&b);
	image_built_release(&bd);

	/* another package is another image; --packages adds to the recipe's */
	put(dir, "my.yaml",
	    "kind: debootstrap\nsuite: bookworm\nvariant: minbase\nsize: 4G\n"
	    "packages: [stress-ng, numactl]\n");
	resolve_dry(&rq, cache, &b);
	assert_string_not_equal(b.hash, first);
	strcpy(first, b.hash);
	image_built_release(&b);
	{
		struct strlist pk = { 0 };
		struct image_request add = { .kind = -1, .recipe = my, .packages = &pk };

		put(dir, "my.yaml",
		    "kind: debootstrap\nsuite: bookworm\nvariant: minbase\n"
		    "size: 4G\npackages: [stress-ng]\n");
		strlist_push(&pk, "numactl");
		resolve_dry(&add, cache, &b);
		assert_string_equal(b.hash, first);
		image_built_release(&b);
		strlist_free(&pk);
	}

	/* the kind must agree; initramfs recipes take no suite */
	capture_start(&c);
	def.recipe = my;
	def.kind = RECIPE_INITRAMFS;
	assert_int_equal(image_resolve(&def, &r), -1);
	def.recipe = NULL;
	def.suite = "trixie";
	assert_int_equal(image_resolve(&def, &r), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "is of kind debootstrap, not initramfs"));
	assert_non_null(strstr(errs, "apply to debootstrap images"));
	free(errs);

	rm_rf(cache);
	rm_rf(dir);
	free(cache);
	free(dir);
	free(my);
}

/* "path type" lines of the archive at path */
static char *archive_names(const char *path)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct strlist l = { 0 };
	char *s;

	archive_read_support_filter_all(a);
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_filename(a, path, 4096), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK)
		strlist_pushf(&l, "%s %o", archive_entry_pathname(e),
			      (unsigned int)archive_entry_filetype(e));
	archive_read_free(a);
	s = strlist_join(&l, "\n");
	strlist_free(&l);
	strlist_pushf(&l, "\n%s\n", s);
	free(s);
	s = xstrdup(l.v[0]);
	strlist_free(&l);
	return s;
}

/* an initramfs recipe with a file: built, its parents made, listed and collected */
static void test_user_initramfs(void **state)
{
	char *cache = tmpdir(), *dir = tmpdir(), *names;
	char *my = xasprintf("%s/bb.yaml", dir);
	struct image_request rq = { .kind = -1, .recipe = my };
	struct image_recipe r;
	struct image_built b;
	struct image def;
	json_t *l, *removed;

	(void)state;
	put(dir, "busybox", "#busybox");
	put(dir, "bb.yaml",
	    "kind: initramfs\ndirs: [/dev, /proc]\nfiles:\n"
	    "  - { path: /usr/bin/busybox, src: busybox, mode: \"0755\" }\n");
	assert_int_equal(image_resolve(&rq, &r), 0);
	assert_int_equal(image_make(cache, &r, false, false, &b), 0);
	assert_true(b.built);
	image_recipe_release(&r);
	names = archive_names(b.path);
	assert_non_null(strstr(names, "\nusr 40000\nusr/bin 40000\nusr/bin/busybox 100000\n"));
	/* the guest programs' parents, which the recipe does not list */
	assert_non_null(strstr(names, "\nmmlab 40000\nmmlab/workloads 40000\n"));
	free(names);

	assert_int_equal(image_initramfs(cache, &def), 0);
	assert_string_not_equal(def.hash, b.hash);
	l = image_list(cache);
	assert_int_equal(json_array_size(l), 2);
	names = json_dumps(l, 0);
	assert_non_null(strstr(names, "\"recipe\": \"bb\""));
	assert_non_null(strstr(names, "\"recipe\": \"initramfs\""));
	free(names);
	json_decref(l);
	/* both hold the current guest programs: gc keeps them */
	removed = image_cache_gc(cache, false);
	assert_int_equal(json_array_size(removed), 0);
	json_decref(removed);
	/* a new agent: both go, with their meta files */
	put(guest, "agent", "#agent-v2");
	removed = image_cache_gc(cache, false);
	assert_int_equal(json_array_size(removed), 4);
	json_decref(removed);
	put(guest, "agent", "#agent");

	image_release(&def);
	image_built_release(&b);
	rm_rf(cache);
	rm_rf(dir);
	free(cache);
	free(dir);
	free(my);
}

static int load_job(const char *dir, const char *image, struct job **job, char **errs)
{
	char *yaml = xasprintf("name: j\nvariants: [ { name: base } ]\n"
			       "topology: { nodes: 1, memory_per_node: 256M }\n"
			       "workload: { name: noop }\n%s\n",
			       image);
	struct capture c;
	int ret;

	capture_start(&c);
	ret = job_load_buffer("t.yaml", yaml, strlen(yaml), dir, job);
	*errs = capture_end(&c);
	free(yaml);
	return ret;
}

/* a job names a recipe, relative to its own directory */
static void test_job_recipe(void **state)
{
	char *dir = tmpdir(), *errs, *want;
	struct job *job;

	(void)state;
	put(dir, "small.yaml", "kind: debootstrap\nsuite: trixie\nvariant: minbase\nsize: 1G\n");
	assert_int_equal(load_job(dir, "image: { recipe: ./small.yaml }", &job, &errs), 0);
	assert_string_equal(errs, "");
	assert_int_equal(job->image.kind, IMAGE_DEBOOTSTRAP);
	want = xasprintf("%s/./small.yaml", dir);
	assert_string_equal(job->image.recipe, want);
	free(want);
	assert_string_equal(job->image.suite, "trixie");
	assert_int_equal(job->image.size_bytes, 1ULL << 30);
	job_free(job);
	free(errs);

	/* the job's own suite and size win */
	assert_int_equal(load_job(dir, "image: { recipe: small.yaml, suite: bookworm, size: 2G }",
				  &job, &errs),
			 0);
	assert_string_equal(job->image.suite, "bookworm");
	assert_int_equal(job->image.size_bytes, 2ULL << 30);
	job_free(job);
	free(errs);

	/* by name, from the images directory */
	assert_int_equal(load_job(dir, "image: { recipe: initramfs }", &job, &errs), 0);
	assert_int_equal(job->image.kind, IMAGE_INITRAMFS);
	assert_non_null(job->image.recipe);
	job_free(job);
	free(errs);

	assert_int_equal(
		load_job(dir, "image: { kind: initramfs, recipe: small.yaml }", &job, &errs), -1);
	assert_non_null(strstr(errs, "t.yaml:5:16: error: image.kind: is initramfs, but the "
				     "recipe"));
	free(errs);
	assert_int_equal(load_job(dir, "image: { recipe: nope }", &job, &errs), -1);
	assert_non_null(strstr(errs, "no image recipe 'nope'"));
	assert_non_null(strstr(errs, "t.yaml:5:18: error: image.recipe: cannot use the image "
				     "recipe 'nope'"));
	free(errs);
	put(dir, "bad.yaml", "kind: initramfs\nsize: 4G\n");
	assert_int_equal(load_job(dir, "image: { recipe: bad.yaml }", &job, &errs), -1);
	assert_non_null(strstr(errs, "/bad.yaml:2:1: error: size: applies to 'kind: debootstrap'"));
	assert_non_null(strstr(errs, "t.yaml:5:18: error: image.recipe: cannot use"));
	free(errs);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped),	    cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),	    cmocka_unit_test(test_missing),
		cmocka_unit_test(test_user_recipe), cmocka_unit_test(test_user_initramfs),
		cmocka_unit_test(test_job_recipe),
	};

	return cmocka_run_group_tests(tests, setup_guest, teardown_guest);
}
