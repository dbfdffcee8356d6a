// SPDX-License-Identifier: GPL-2.0
/*
 * test_taskrec.c - a Slurm task's state record (lab/batch/taskrec.c): it
 * round-trips, damaged or oversized records are refused, and whether a
 * task is alive is decided on the observer's own monotonic clock: a record
 * whose mtime is far in the past but changes is alive, one whose mtime is
 * in the future but does not change is lost once stale_s passed here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "batch/taskrec.h"
#include "lib/util.h"

static void test_roundtrip(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-taskrec.XXXXXX";
	struct taskrec me, back;
	struct timespec mt;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	taskrec_self(&me, "boot-3", 2);
	me.beat = 7;
	assert_int_equal(taskrec_write(tmpl, "run-1", &me), 0);
	assert_int_equal(taskrec_read(tmpl, "run-1", "boot-3", &back, &mt), 0);
	assert_string_equal(back.task, "boot-3");
	assert_int_equal(back.state, TASK_RUNNING);
	assert_int_equal(back.attempt, 2);
	assert_int_equal(back.beat, 7);
	assert_true(taskrec_same_owner(&me, &back));
	/* a requeued attempt of the same task takes the record over */
	back.attempt = 3;
	assert_false(taskrec_same_owner(&me, &back));
	assert_int_equal(taskrec_read(tmpl, "run-1", "boot-4", &back, &mt), 1);
	rm_rf(tmpl);
}

static int parse(const char *s)
{
	struct taskrec t;

	return taskrec_parse(s, strlen(s), &t);
}

static void test_refused(void **state)
{
	char *big = xcalloc(1, TASKREC_MAX_BYTES + 64), *longhost;

	(void)state;
	assert_int_equal(parse("{\"task\":\"boot-0\",\"state\":\"done\",\"host\":\"n1\"}"), 0);
	assert_int_equal(parse(""), -1);
	assert_int_equal(parse("[]"), -1);
	assert_int_equal(parse("{\"task\":\"boot-0\",\"state\":\"done\"}"), -1); /* no host */
	assert_int_equal(parse("{\"task\":\"boot-0\",\"state\":\"odd\",\"host\":\"n\"}"), -1);
	assert_int_equal(parse("{\"task\":\"../x\",\"state\":\"done\",\"host\":\"n\"}"), -1);
	assert_int_equal(parse("{\"task\":\"a/b\",\"state\":\"done\",\"host\":\"n\"}"), -1);
	assert_int_equal(parse("{\"task\":\"b\",\"state\":\"done\",\"host\":\"n\",\"pid\":-1}"),
			 -1);
	assert_int_equal(parse("{\"task\":\"b\",\"state\":\"done\",\"host\":\"n\",\"beat\":1.5}"),
			 -1);
	assert_int_equal(parse("{\"task\":\"b\",\"task\":\"c\",\"state\":\"done\",\"host\":\"n\"}"),
			 -1);
	assert_int_equal(parse("{\"task\":\"b\\u0000c\",\"state\":\"done\",\"host\":\"n\"}"), -1);
	longhost = xasprintf("{\"task\":\"b\",\"state\":\"done\",\"host\":\"%0300d\"}", 0);
	assert_int_equal(parse(longhost), -1);
	memset(big, ' ', TASKREC_MAX_BYTES + 10);
	memcpy(big, "{\"task\":\"b\",\"state\":\"done\",\"host\":\"n\"}", 38);
	assert_int_equal(taskrec_parse(big, TASKREC_MAX_BYTES + 10, &(struct taskrec){ 0 }), -1);
	free(longhost);
	free(big);
}

/* write the record with its mtime set to when (another host's clock, or a server's) */
static void write_at(const char *dir, struct taskrec *t, time_t when)
{
	char *p = taskrec_path(dir, "run-1", t->task);
	struct timespec ts[2] = { { .tv_sec = when }, { .tv_sec = when } };

	assert_int_equal(taskrec_write(dir, "run-1", t), 0);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
}

static bool observe(const char *dir, struct task_seen *sn, double now)
{
	struct taskrec t;
	struct timespec mt;

	assert_int_equal(taskrec_read(dir, "run-1", "boot-0", &t, &mt), 0);
	return taskrec_stale(sn, &t, mt, now, 120);
}

static void test_clock(void **state)
{
	char tmpl[] = "/tmp/mmlab-test-taskrec.XXXXXX";
	time_t wall = time(NULL);
	struct task_seen sn = { 0 };
	struct taskrec t;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	taskrec_self(&t, "boot-0", 1);
	/* the writer's clock is a day behind: its heartbeats still count */
	write_at(tmpl, &t, wall - 86400);
	assert_false(observe(tmpl, &sn, 1000));
	t.beat++;
	write_at(tmpl, &t, wall - 86400 + 2);
	assert_false(observe(tmpl, &sn, 1500)); /* 500 s here, but it changed */
	assert_false(observe(tmpl, &sn, 1600)); /* unchanged for 100 s: not yet */
	assert_true(observe(tmpl, &sn, 1621)); /* unchanged for 121 s: lost */
	/* a record an hour in the future that stops changing is lost all the same */
	memset(&sn, 0, sizeof(sn));
	t.beat++;
	write_at(tmpl, &t, wall + 3600);
	assert_false(observe(tmpl, &sn, 2000));
	assert_true(observe(tmpl, &sn, 2121));
	/* an mtime that changes alone (the same beat, rewritten) is a heartbeat */
	write_at(tmpl, &t, wall + 3601);
	assert_false(observe(tmpl, &sn, 2200));
	/* an ended task is never lost */
	t.state = TASK_DONE;
	write_at(tmpl, &t, wall + 3601);
	assert_false(observe(tmpl, &sn, 99999));
	rm_rf(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_clock),
	};

	lab_quiet = true;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
