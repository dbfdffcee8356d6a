// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_plan - the guest plan as the agent reads it (collectors/plan.c,
 * built here for the host): every name it accepts must be usable in a
 * path or an argument.
 * fuzz-options: -max_len=70000
 */
#include "fuzz.h"
#include "plan.h"

static void check_name(const char *s)
{
	if (strstr(s, "..") || strchr(s, '/') || strchr(s, ' '))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct plan p;
	char err[256];

	if (plan_parse((const char *)data, size, &p, err, sizeof(err)) == 0) {
		check_name(p.workload);
		for (unsigned int i = 0; i < p.nparams; i++)
			check_name(p.params[i].name);
		for (unsigned int i = 0; i < p.nsysctls; i++)
			check_name(p.sysctls[i].name);
		if (p.iterations < 1 || p.nparams > PLAN_MAX_KV || p.nsysctls > PLAN_MAX_KV)
			abort();
	}
	return 0;
}
