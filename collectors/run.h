/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - one iteration: run the workload through the ready/go/done
 * handshake (common/proto.h), snapshot around its measured phase, and send
 * ITER_BEGIN, SNAPSHOTs, WL_OUTPUT, RESULT and ITER_END.
 */
#ifndef MMLAB_COLLECTORS_RUN_H
#define MMLAB_COLLECTORS_RUN_H

#include "plan.h"

#define WL_DIR "/mmlab/workloads"
#define WL_STDOUT_CAP (256u << 10)

/* 0 if the iteration succeeded, -1 if it failed (ITER_END says which) */
int run_iteration(const struct plan *p, unsigned int iter, const int *nodes, int nnodes,
		  int setup_failed);

#endif
