// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm.c - the parts of vm.c and accel.c that need no libvirt daemon:
 * outcome names, the stop flag, and accelerator choices the job forces.
 * (Booting guests is covered by the integration tests.)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vm/accel.h"
#include "vm/vm.h"

static void test_outcome_names(void **state)
{
	(void)state;
	assert_string_equal(vm_outcome_name(VM_POWEROFF), "poweroff");
	assert_string_equal(vm_outcome_name(VM_CRASHED), "crashed");
	assert_string_equal(vm_outcome_name(VM_TIMEOUT), "timeout");
	assert_string_equal(vm_outcome_name(VM_INTERRUPTED), "interrupted");
	assert_string_equal(vm_outcome_name(VM_ERROR), "error");
	assert_string_equal(vm_outcome_name((enum vm_outcome)42), "unknown");
}

static void on_signal(int sig)
{
	(void)sig;
	vm_request_stop();
}

static void test_stop_flag_from_a_signal(void **state)
{
	struct vm_result r;

	(void)state;
	vm_clear_stop();
	assert_false(vm_stop_requested());
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	assert_true(vm_stop_requested());
	/* a pending stop ends the next run before any domain is created */
	memset(&r, 0xff, sizeof(r));
	assert_int_equal(vm_run(NULL, "<domain><name>x</name></domain>", 10, &r), 0);
	assert_int_equal(r.outcome, VM_INTERRUPTED);
	assert_false(r.guest_reset);
	vm_clear_stop();
	assert_false(vm_stop_requested());
}

/* no host: nothing is pending, so every domain is gone and reaping is a no-op */
static void test_nothing_pending(void **state)
{
	(void)state;
	assert_true(vm_gone(NULL, "mmlab-x-base-0+1"));
	vm_reap(NULL);
}

static void test_accel_requested(void **state)
{
	struct accel_choice c;

	(void)state;
	assert_int_equal(accel_decide(NULL, ACCEL_TCG, NULL, true, &c), 1);
	assert_int_equal(c.accel, DOM_ACCEL_TCG);
	assert_string_equal(c.reason, "requested by the job");
	assert_false(c.probed);
	assert_false(c.cached);
	assert_int_equal(accel_decide(NULL, ACCEL_KVM, NULL, true, &c), 1);
	assert_int_equal(c.accel, DOM_ACCEL_KVM);
	assert_non_null(strstr(c.reason, "not probed"));
	assert_false(c.probed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcome_names),
		cmocka_unit_test(test_stop_flag_from_a_signal),
		cmocka_unit_test(test_nothing_pending),
		cmocka_unit_test(test_accel_requested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
