// SPDX-License-Identifier: GPL-2.0
/*
 * test_slurm.c - the Slurm client (lab/batch/slurm.c) without Slurm: the
 * scripts sbatch runs, the argv of each sbatch, the parsing of what sbatch,
 * sinfo, sacct and squeue print, and the items' states "queue status"
 * derives from them; then the same through fake sbatch, sinfo, sacct and
 * squeue programs on PATH that record their arguments.
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

#include "batch/slurm.h"
#include "store/store.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static char *dir;

static int setup(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-slurm.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

static void test_sh_quote(void **state)
{
	char *q;

	(void)state;
	q = sh_quote("abc");
	assert_string_equal(q, "'abc'");
	free(q);
	q = sh_quote("it's $HOME");
	assert_string_equal(q, "'it'\\''s $HOME'");
	free(q);
	q = sh_quote("");
	assert_string_equal(q, "''");
	free(q);
	assert_null(sh_quote("a\nb"));
	assert_null(sh_quote("a\rb"));
}

static void test_valid_name(void **state)
{
	char long_name[130];

	(void)state;
	assert_true(slurm_valid_name("lab"));
	assert_true(slurm_valid_name("a.b-c_D9"));
	assert_false(slurm_valid_name(""));
	assert_false(slurm_valid_name("x;y"));
	assert_false(slurm_valid_name("a b"));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(slurm_valid_name(long_name));
}

static void test_script_text(void **state)
{
	const char *const build[] = { "build", "20261201-run", "--variant", "v'1" };
	const char *const exec_words[] = { "exec", "20261201-run" };
	const char *const bad[] = { "exec", "a\nb" };
	char *t, *want, *cwd = getcwd(NULL, 0);

	(void)state;
	t = slurm_script_text("/usr/bin/mmlab", "/r", "/c", build, 4, false);
	assert_string_equal(t, "#!/bin/sh\n# written by 'mmlab submit --slurm'; see docs/queue.md\n"
			       "export MMLAB_CACHE='/c'\n"
			       "exec '/usr/bin/mmlab' --results '/r' queue 'build' '20261201-run' "
			       "'--variant' 'v'\\''1'\n");
	free(t);
	/* an array task gets its boot from Slurm; a relative cache is made absolute */
	t = slurm_script_text("/m", "/r", "cache", exec_words, 2, true);
	want = xasprintf("#!/bin/sh\n# written by 'mmlab submit --slurm'; see docs/queue.md\n"
			 "export MMLAB_CACHE='%s/cache'\n"
			 "exec '/m' --results '/r' queue 'exec' '20261201-run' "
			 "--boot \"$SLURM_ARRAY_TASK_ID\"\n",
			 cwd);
	assert_string_equal(t, want);
	free(t);
	free(want);
	assert_null(slurm_script_text("/m", "/r", "/c", bad, 2, false));
	assert_null(slurm_script_text("/m\n", "/r", "/c", exec_words, 2, false));
	free(cwd);
}

/* the argv as one string, words joined by spaces */
static char *joined(struct strlist *a)
{
	char *s = strlist_join(a, " ");

	strlist_free(a);
	return s;
}

static void test_sbatch_argv(void **state)
{
	const struct slurm_target lab = { .partition = "lab", .dir = "/r/run/slurm" };
	const struct slurm_target any = { .partition = NULL, .dir = "/r/run/slurm" };
	struct strlist a = { 0 };
	char *s;

	(void)state;
	slurm_build_argv(&a, &lab, "run", "v", 8, 120, "/r/run/slurm/build-v.sh");
	s = joined(&a);
	assert_string_equal(s, "sbatch --parsable --job-name=mmlab-build-run-v "
			       "--output=/r/run/slurm/build-v.out --chdir=/r/run/slurm "
			       "--partition=lab --cpus-per-task=8 --time=120 "
			       "/r/run/slurm/build-v.sh");
	free(s);
	/* the boots wait for the builds, and die with a failed one */
	slurm_array_argv(&a, &lab, "run", 4, 2, 7, ":11:12", "/r/run/slurm/task.sh");
	s = joined(&a);
	assert_string_equal(s, "sbatch --parsable --job-name=mmlab-run "
			       "--output=/r/run/slurm/task-%a.out --chdir=/r/run/slurm "
			       "--partition=lab --array=0-3 --cpus-per-task=2 --time=7 "
			       "--dependency=afterok:11:12 --kill-on-invalid-dep=yes "
			       "/r/run/slurm/task.sh");
	free(s);
	slurm_array_argv(&a, &any, "run", 1, 1, 5, NULL, "/t.sh");
	s = joined(&a);
	assert_string_equal(s, "sbatch --parsable --job-name=mmlab-run "
			       "--output=/r/run/slurm/task-%a.out --chdir=/r/run/slurm "
			       "--array=0-0 --cpus-per-task=1 --time=5 /t.sh");
	free(s);
	slurm_finish_argv(&a, &any, "run", "13", "/f.sh");
	s = joined(&a);
	assert_string_equal(s, "sbatch --parsable --job-name=mmlab-finish-run "
			       "--output=/r/run/slurm/finish.out --chdir=/r/run/slurm "
			       "--dependency=afterany:13 --time=5 /f.sh");
	free(s);
}

static void test_parse_outputs(void **state)
{
	char *id;

	(void)state;
	id = slurm_parse_job_id("123;cluster\n");
	assert_string_equal(id, "123");
	free(id);
	id = slurm_parse_job_id("456\n");
	assert_string_equal(id, "456");
	free(id);
	assert_null(slurm_parse_job_id(""));
	assert_null(slurm_parse_job_id("\n"));
	/* sinfo -o %c: the smallest node, at most 32 */
	assert_int_equal(slurm_parse_node_cpus("64\n8+\n16\n"), 8);
	assert_int_equal(slurm_parse_node_cpus("64\n"), 32);
	assert_int_equal(slurm_parse_node_cpus(""), 0);
	assert_int_equal(slurm_parse_node_cpus("n/a\n"), 0);
}

static void test_parse_states(void **state)
{
	json_t *st = json_object();

	(void)state;
	/* sacct -n -P -X -o JobID,State */
	slurm_parse_states("100_0|COMPLETED\n100_1|RUNNING\n100.batch|COMPLETED\n"
			   "100.extern|COMPLETED\n101|PENDING\n|\nnoseparator\n",
			   st);
	/* squeue -h -o "%i %T": the live ones win */
	slurm_parse_states("100_1 COMPLETING\n100_2 PENDING\n", st);
	assert_int_equal(json_object_size(st), 4);
	assert_string_equal(json_string_value(json_object_get(st, "100_0")), "COMPLETED");
	assert_string_equal(json_string_value(json_object_get(st, "100_1")), "COMPLETING");
	assert_string_equal(json_string_value(json_object_get(st, "100_2")), "PENDING");
	assert_string_equal(json_string_value(json_object_get(st, "101")), "PENDING");
	json_decref(st);
}

/* a status entry of a job submitted to Slurm: a build item and boots v/0..6 */
static json_t *slurm_job(const char *run, const char *const qstates[7])
{
	json_t *items = json_array();
	json_t *j = json_pack("{s:s, s:{s:s, s:s, s:{s:s}}, s:{s:i}}", "run", run, "slurm", "array",
			      "100", "finish", "101", "builds", "v", "99", "counts", "queued", 7);

	json_array_append_new(items, json_pack("{s:s, s:s, s:s}", "kind", "build", "variant", "v",
					       "state", "done"));
	for (int i = 0; i < 7; i++)
		json_array_append_new(items, json_pack("{s:s, s:s, s:i, s:i, s:s}", "kind", "boot",
						       "variant", "v", "first", i, "count", 1,
						       "state", qstates[i]));
	json_object_set_new(j, "items", items);
	return j;
}

static const char *item_state(json_t *j, size_t i, const char *key)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(j, "items"), i), key));
}

static const char *const queued7[7] = {
	"queued", "queued", "queued", "queued", "failed", "queued", "queued",
};

/* v/0 stored; v/1 RUNNING; v/2 PENDING; v/3 COMPLETED, nothing stored;
 * v/4 failed in the queue (its build); v/5 FAILED; v/6 unknown to Slurm */
static char *store_v0(struct store **s)
{
	char *run;
	json_t *it = json_pack("{s:i, s:s, s:{}}", "index", 0, "status", "ok", "metrics");

	*s = store_open(dir);
	assert_non_null(*s);
	run = store_run_create(*s, "sl");
	assert_int_equal(store_iteration_write(*s, run, "v", 0, it), 0);
	json_decref(it);
	return run;
}

static void check_items(json_t *j)
{
	json_t *c = json_object_get(j, "counts");

	/* the build job's state; the build item's state is the queue's */
	assert_string_equal(item_state(j, 0, "slurm_state"), "COMPLETED");
	assert_string_equal(item_state(j, 0, "state"), "done");
	assert_string_equal(item_state(j, 1, "state"), "done");
	assert_string_equal(item_state(j, 2, "state"), "running");
	assert_string_equal(item_state(j, 2, "slurm_state"), "RUNNING");
	assert_string_equal(item_state(j, 3, "state"), "queued");
	assert_string_equal(item_state(j, 4, "state"), "failed");
	assert_string_equal(item_state(j, 5, "state"), "failed");
	assert_string_equal(item_state(j, 6, "state"), "failed");
	assert_string_equal(item_state(j, 7, "state"), "queued");
	assert_null(item_state(j, 7, "slurm_state"));
	assert_int_equal(json_integer_value(json_object_get(c, "done")), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "running")), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "queued")), 2);
	assert_int_equal(json_integer_value(json_object_get(c, "failed")), 3);
}

static void test_items_state(void **state)
{
	struct store *s;
	char *run = store_v0(&s);
	json_t *j = slurm_job(run, queued7);

	(void)state;
	json_object_set_new(json_object_get(j, "slurm"), "states",
			    json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "99", "COMPLETED",
				      "100_0", "COMPLETED", "100_1", "RUNNING", "100_2", "PENDING",
				      "100_3", "COMPLETED", "100_4", "PENDING", "100_5", "FAILED"));
	slurm_items_state(j, s);
	check_items(j);
	json_decref(j);
	store_close(s);
	free(run);
}

/* DIR/bin/NAME: a program that records its argv in DIR/NAME.args and prints out */
static void fake_program(const char *name, const char *out, int code)
{
	char *bin = xasprintf("%s/bin", dir), *path = xasprintf("%s/%s", bin, name);
	char *text = xasprintf("#!/bin/sh\necho \"$*\" >>'%s/%s.args'\nprintf '%s'\nexit %d\n", dir,
			       name, out, code);

	assert_int_equal(mkdir_p(bin, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0755), 0);
	free(text);
	free(path);
	free(bin);
}

static char *args_of(const char *name)
{
	char *path = xasprintf("%s/%s.args", dir, name);
	size_t len;
	char *text = read_file(path, &len, 1 << 16);

	free(path);
	return text;
}

/* PATH with the fake programs first; the old one back with restore_path() */
static char *fake_path(void)
{
	const char *old = getenv("PATH");
	char *saved = xstrdup(old ? old : "/usr/bin:/bin");
	char *p = xasprintf("%s/bin:%s", dir, saved);

	setenv("PATH", p, 1);
	free(p);
	return saved;
}

static void restore_path(char *saved)
{
	setenv("PATH", saved, 1);
	free(saved);
}

static void test_programs(void **state)
{
	struct strlist a = { 0 };
	char *saved = fake_path(), *id, *args;

	(void)state;
	fake_program("sbatch", "77;cluster\\n", 0);
	fake_program("sinfo", "16\\n4\\n", 0);
	fake_program("scancel", "", 0);
	strlist_push(&a, "sbatch");
	strlist_push(&a, "--parsable");
	strlist_push(&a, "/t.sh");
	id = slurm_sbatch(&a);
	assert_string_equal(id, "77");
	free(id);
	args = args_of("sbatch");
	assert_string_equal(args, "--parsable /t.sh\n");
	free(args);
	assert_int_equal(slurm_node_cpus("lab"), 4);
	args = args_of("sinfo");
	assert_string_equal(args, "-h -o %c -p lab\n");
	free(args);
	slurm_scancel((const char *const[]){ "11", "12" }, 2);
	args = args_of("scancel");
	assert_string_equal(args, "11\n12\n");
	free(args);
	/* sbatch refusing: no id, one message */
	fake_program("sbatch", "sbatch: error: invalid partition specified: x\\n", 1);
	assert_null(slurm_sbatch(&a));
	strlist_free(&a);
	restore_path(saved);
}

/* queue status through fake sacct and squeue: their argv, their states */
static void test_status_fill(void **state)
{
	struct store *s;
	char *run = store_v0(&s), *saved = fake_path(), *args;
	json_t *j = slurm_job(run, queued7);

	(void)state;
	fake_program("sacct",
		     "99|COMPLETED\\n100_0|COMPLETED\\n100_1|RUNNING\\n"
		     "100_3|COMPLETED\\n100_3.batch|COMPLETED\\n100_5|FAILED\\n",
		     0);
	fake_program("squeue", "100_1 RUNNING\\n100_2 PENDING\\n100_4 PENDING\\n", 0);
	slurm_status_fill(j, s);
	check_items(j);
	assert_int_equal(json_object_size(json_object_get(json_object_get(j, "slurm"), "states")),
			 7);
	args = args_of("sacct");
	assert_string_equal(args, "-n -P -X -j 100,101,99 -o JobID,State\n");
	free(args);
	args = args_of("squeue");
	assert_string_equal(args, "-h -r -t all -j 100,101,99 -o %i %T\n");
	free(args);
	json_decref(j);
	store_close(s);
	free(run);
	restore_path(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sh_quote),
		cmocka_unit_test(test_valid_name),
		cmocka_unit_test(test_script_text),
		cmocka_unit_test(test_sbatch_argv),
		cmocka_unit_test(test_parse_outputs),
		cmocka_unit_test(test_parse_states),
		cmocka_unit_test_setup_teardown(test_items_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_programs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_fill, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
