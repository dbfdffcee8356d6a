/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.h - collect_files in the guest: each collect.file.<i> of the plan
 * sent back on the data channel as FILE records (common/proto.h) after
 * the last iteration, at most MMFILE_MAX bytes of each.
 */
#ifndef MMLAB_COLLECTORS_FILES_H
#define MMLAB_COLLECTORS_FILES_H

#include "plan.h"

void files_send(const struct plan *p);

#endif
