/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - the guest plan (/mmlab/plan, format in common/proto.h) parsed
 * into fixed-size storage. Every name is checked so that it can be used in
 * a path or an argument without surprises.
 */
#ifndef MMLAB_COLLECTORS_PLAN_H
#define MMLAB_COLLECTORS_PLAN_H

#include <stddef.h>

#include "proto.h"

#define PLAN_MAX_KV 128
#define PLAN_NAME_MAX 128
#define PLAN_VALUE_MAX 1024
#define PLAN_MAX_FILES 64
#define PLAN_MAX_ARGS 64 /* own.arg.<i> */
#define PLAN_MAX_READ 16 /* own.read.<i> */
#define PLAN_PATH_MAX 256

struct plan_kv {
	char name[PLAN_NAME_MAX];
	char value[PLAN_VALUE_MAX];
};

struct plan {
	char run[PLAN_NAME_MAX];
	char variant[PLAN_NAME_MAX];
	char workload[PLAN_NAME_MAX];
	unsigned int iteration_first;
	unsigned int iterations;
	int probe;
	struct plan_kv params[PLAN_MAX_KV];
	unsigned int nparams;
	struct plan_kv sysctls[PLAN_MAX_KV];
	unsigned int nsysctls;
	char thp_enabled[PLAN_NAME_MAX]; /* "" = leave the kernel default */
	char thp_defrag[PLAN_NAME_MAX];
	int collect_enabled; /* collect.enabled, default 1 */
	char tracepoints[PLAN_VALUE_MAX]; /* collect.tracepoints, "" = none */
	/* collect.file.<i>, decoded, in the plan's order: sent back as FILE records */
	char files[PLAN_MAX_FILES][MMPATH_MAX + 1];
	unsigned int nfiles;
	/* memory tiers (collectors/tier.c) */
	int tier_report; /* tier.report: send TIERS at every iteration */
	char tier_kmem[PLAN_NAME_MAX]; /* tier.kmem: nodes onlined with kmem, "1,2" */
	char tier_modules[PLAN_NAME_MAX]; /* tier.modules: /mmlab/modules/<name>.ko to load */
	int tier_demotion; /* tier.demotion: -1 leave, 0 false, 1 true */
	/* own=1: the user's command or module (common/proto.h, "own.*") */
	int own;
	int own_handshake; /* own.phase=handshake */
	unsigned int own_timeout_s; /* 0: none */
	unsigned int own_argc;
	char own_argv[PLAN_MAX_ARGS][PLAN_VALUE_MAX]; /* decoded */
	unsigned int own_nread;
	char own_read[PLAN_MAX_READ][PLAN_PATH_MAX];
	int own_dmesg;
	char own_module[PLAN_NAME_MAX]; /* "" = none */
	char own_module_params[PLAN_VALUE_MAX]; /* decoded */
};

/* 0, or -1 with a reason in err */
int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen);

#endif
