// SPDX-License-Identifier: GPL-2.0
/*
 * test_own_build.c - a command workload's build: on the host (own/build.c,
 * the real gcc): a static program, found in the cache the second time,
 * rebuilt when a header it includes changes; a compile error is a job
 * error located at build: with the compiler's output. And the program
 * checks of own/exec.c: static, dynamic (with its interpreter), script,
 * data.
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

#include "job/job.h"
#include "job/job_own.h"
#include "lib/util.h"
#include "own/build.h"
#include "own/exec.h"

static char dir[] = "/tmp/mmlab-test-own-XXXXXX";

static void put(const char *name, const char *text, unsigned int mode)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text), mode), 0);
	free(p);
}

static struct job *load(const char *build)
{
	struct job *job = NULL;
	char *yaml = xasprintf("name: x\nvariants: [ { name: b } ]\n"
			       "topology: { nodes: 1, memory_per_node: 256M }\n"
			       "workload:\n  command: [prog]\n  build: %s\n",
			       build);

	assert_int_equal(job_load_buffer("t.yaml", yaml, strlen(yaml), dir, &job), 0);
	free(yaml);
	return job;
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	put("prog.c",
	    "#include <stdio.h>\n#include \"inc.h\"\nint main(void) { printf(\"v %d\\n\", V); return 0; }\n",
	    0644);
	put("inc.h", "#define V 1\n", 0644);
	put("bad.c", "int main(void) { return undeclared_thing; }\n", 0644);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static void test_build_cached(void **state)
{
	struct job *job = load("{ c: prog.c, cflags: [-O2], output: prog }");
	char *cache = xasprintf("%s/cache", dir), interp[256], key1[65];
	const struct own_build *b = &job->workload.own->build;
	struct own_built out;

	(void)state;
	assert_int_equal(own_build(b, job->path, job->dir, cache, &out), 0);
	assert_false(out.cached);
	assert_int_equal(own_exec_kind(out.path, interp, sizeof(interp)), OWN_EXEC_STATIC);
	assert_true(access(out.path, X_OK) == 0);
	memcpy(key1, out.key, sizeof(key1));
	own_built_release(&out);
	/* the same again: from the cache */
	assert_int_equal(own_build(b, job->path, job->dir, cache, &out), 0);
	assert_true(out.cached);
	assert_string_equal(out.key, key1);
	own_built_release(&out);
	/* a header it includes changed: another key, built again */
	put("inc.h", "#define V 2\n", 0644);
	assert_int_equal(own_build(b, job->path, job->dir, cache, &out), 0);
	assert_false(out.cached);
	assert_string_not_equal(out.key, key1);
	own_built_release(&out);
	job_free(job);
	free(cache);
}

static void test_build_error(void **state)
{
	struct job *job = load("{ c: bad.c }");
	char *cache = xasprintf("%s/cache", dir), *errs;
	struct own_built out;
	struct capture c;
	int rc;

	(void)state;
	capture_start(&c);
	rc = own_build(&job->workload.own->build, job->path, job->dir, cache, &out);
	errs = capture_end(&c);
	assert_int_equal(rc, -1);
	assert_null(out.path);
	/* located at build: (line 6, column 10), with gcc's own message */
	if (strncmp(errs,
		    "t.yaml:6:10: error: workload.build: gcc exited with status 1 (compiling); its output:\n",
		    85) ||
	    !strstr(errs, "undeclared_thing") ||
	    !strstr(errs, "mmlab: error: t.yaml: workload.build could not be built"))
		print_error("got:\n%s", errs);
	assert_non_null(
		strstr(errs, "t.yaml:6:10: error: workload.build: gcc exited with status 1"));
	assert_non_null(strstr(errs, "undeclared_thing"));
	free(errs);
	job_free(job);
	free(cache);
}

static void test_exec_kinds(void **state)
{
	char interp[256], *p;

	(void)state;
	assert_int_equal(own_exec_kind("/bin/true", interp, sizeof(interp)), OWN_EXEC_DYNAMIC);
	assert_non_null(strstr(interp, "ld-linux"));
	put("s.sh", "#!/bin/sh -e\necho hi\n", 0755);
	p = xasprintf("%s/s.sh", dir);
	assert_int_equal(own_exec_kind(p, interp, sizeof(interp)), OWN_EXEC_SCRIPT);
	assert_string_equal(interp, "/bin/sh");
	free(p);
	p = xasprintf("%s/inc.h", dir);
	assert_int_equal(own_exec_kind(p, interp, sizeof(interp)), OWN_EXEC_OTHER);
	free(p);
	put("elf32",
	    "\x7f"
	    "ELF\x01\x01\x01",
	    0755);
	p = xasprintf("%s/elf32", dir);
	assert_int_equal(own_exec_kind(p, interp, sizeof(interp)), OWN_EXEC_FOREIGN);
	free(p);
	assert_int_equal(own_exec_kind("/nonexistent", interp, sizeof(interp)),
			 OWN_EXEC_UNREADABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_cached),
		cmocka_unit_test(test_build_error),
		cmocka_unit_test(test_exec_kinds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
