// SPDX-License-Identifier: GPL-2.0
/*
 * run_options.c - option callbacks the commands that start runs share
 * (run, repro, queue add, submit): --accel and --seed.
 */
#include <string.h>

#include "builtin/builtin.h"
#include "lib/parse-options.h"
#include "lib/util.h"
#include "run/runner.h"

int opt_accel_cb(const struct opt *o, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "kvm") && strcmp(arg, "tcg")) {
		lab_err("--accel is auto, kvm or tcg, not '%s'", arg);
		return -1;
	}
	*(const char **)o->value = arg;
	return 0;
}

int opt_seed_cb(const struct opt *opt, const char *arg)
{
	struct run_opts *o = opt->value;
	uint64_t seed;

	if (parse_uint(arg, &seed)) {
		lab_err("--seed wants a non-negative integer, not '%s'", arg);
		return -1;
	}
	o->seed = (unsigned long)seed;
	o->seeded = true;
	return 0;
}
