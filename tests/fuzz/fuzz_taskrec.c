// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_taskrec - a Slurm task's state record (RESULTS/<run>/tasks/<task>.json)
 * as the submitting host reads it: written by a process on another host,
 * on a shared filesystem anyone may damage (lab/batch/taskrec.c).
 * fuzz-options: -max_len=70000
 */
#include "batch/taskrec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct taskrec t;
	struct task_seen sn = { 0 };

	if (taskrec_parse((const char *)data, size, &t) == 0) {
		if (strlen(t.task) >= sizeof(t.task) || strlen(t.host) >= sizeof(t.host) ||
		    strlen(t.reason) >= sizeof(t.reason) || !*t.task)
			abort();
		taskrec_stale(&sn, &t, (struct timespec){ 0 }, 1.0, 120.0);
		taskrec_state_name(t.state);
	}
	return 0;
}
