/* SPDX-License-Identifier: GPL-2.0 */
/*
 * own.h - one iteration of a command workload (the plan's own=1): the
 * user's program or module, its output captured and bounded, its process
 * tree killed at the timeout and after the iteration. Sends ITER_BEGIN,
 * SNAPSHOTs, WL_OUTPUT (stream=stdout, stderr, dmesg), FILE (iter=), RESULT and
 * ITER_END (common/proto.h).
 */
#ifndef MMLAB_COLLECTORS_OWN_H
#define MMLAB_COLLECTORS_OWN_H

#include "plan.h"

/* 0 if the iteration succeeded, -1 if it failed (ITER_END says which) */
int own_run_iteration(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		      int setup_failed);

#endif
