// SPDX-License-Identifier: GPL-2.0
/*
 * test_phases.c - boot.phases from a boot's clock readings (record.c):
 * the phases add up to the boot, a step not reached is left out, and the
 * guest's part is one "guest" phase when the agent's writes were not seen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/run.h"

/* a boot that reached every step: 100 s on the monotonic clock, then ... */
static void full_boot(struct boot_out *o)
{
	memset(o, 0, sizeof(*o));
	o->clock.begin = 100.0;
	o->clock.staged = 100.05;
	o->vr.t.create = 100.06;
	o->vr.t.started = 100.5;
	o->vr.t.first_output = 103.5;
	o->vr.t.last_output = 104.0;
	o->vr.t.outcome = 104.02;
	o->vr.t.torn_down = 104.03;
	o->clock.collected = 104.031;
}

static double ph(json_t *p, const char *name)
{
	json_t *v = json_object_get(p, name);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_every_phase(void **state)
{
	struct boot_out o;
	json_t *p;
	double sum = 0;
	const char *name;
	json_t *v;

	(void)state;
	full_boot(&o);
	p = record_phases(&o, 0.04);
	assert_true(ph(p, "stage") > 0.0499 && ph(p, "stage") < 0.0501);
	assert_true(ph(p, "define") > 0.0099 && ph(p, "define") < 0.0101);
	assert_true(ph(p, "start") > 0.4399 && ph(p, "start") < 0.4401);
	assert_true(ph(p, "guest_to_agent") > 2.9999 && ph(p, "guest_to_agent") < 3.0001);
	assert_true(ph(p, "workload") > 0.4999 && ph(p, "workload") < 0.5001);
	assert_true(ph(p, "poweroff_seen") > 0.0199 && ph(p, "poweroff_seen") < 0.0201);
	assert_true(ph(p, "teardown") > 0.0099 && ph(p, "teardown") < 0.0101);
	assert_true(ph(p, "collect") > 0.0009 && ph(p, "collect") < 0.0011);
	assert_true(ph(p, "store") > 0.0399 && ph(p, "store") < 0.0401);
	assert_null(json_object_get(p, "guest"));
	json_object_foreach(p, name, v)
		sum += json_number_value(v);
	/* begin 100 to collected 104.031, plus the store */
	assert_true(sum > 4.0709 && sum < 4.0711);
	json_decref(p);
}

static void test_agent_never_wrote(void **state)
{
	struct boot_out o;
	json_t *p;

	(void)state;
	full_boot(&o);
	o.vr.t.first_output = o.vr.t.last_output = 0;
	p = record_phases(&o, 0.01);
	assert_null(json_object_get(p, "guest_to_agent"));
	assert_null(json_object_get(p, "workload"));
	assert_null(json_object_get(p, "poweroff_seen"));
	assert_true(ph(p, "guest") > 3.5199 && ph(p, "guest") < 3.5201);
	json_decref(p);
}

/* the last write's time comes from a coarser clock than the first's */
static void test_last_write_before_first(void **state)
{
	struct boot_out o;
	json_t *p;

	(void)state;
	full_boot(&o);
	o.vr.t.last_output = o.vr.t.first_output - 0.002;
	p = record_phases(&o, 0.01);
	assert_true(ph(p, "workload") == 0);
	assert_true(ph(p, "poweroff_seen") > 0.5199 && ph(p, "poweroff_seen") < 0.5201);
	json_decref(p);
}

/* a domain that never started: no guest, no teardown */
static void test_not_started(void **state)
{
	struct boot_out o;
	json_t *p;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.clock.begin = 10;
	o.clock.staged = 10.5;
	o.vr.t.create = 10.6;
	o.vr.t.started = 11;
	o.clock.collected = 11.1;
	p = record_phases(&o, 0);
	assert_non_null(json_object_get(p, "start"));
	assert_null(json_object_get(p, "guest"));
	assert_null(json_object_get(p, "teardown"));
	assert_null(json_object_get(p, "collect"));
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_phase),
		cmocka_unit_test(test_agent_never_wrote),
		cmocka_unit_test(test_last_write_before_first),
		cmocka_unit_test(test_not_started),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
