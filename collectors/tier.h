/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tier.h - memory tiers in the guest: make the kmem nodes' memory System
 * RAM, set demotion, and report the tier layout the kernel built.
 */
#ifndef MMLAB_COLLECTORS_TIER_H
#define MMLAB_COLLECTORS_TIER_H

#include <stddef.h>

#include "plan.h"

/*
 * Before the first iteration, as the plan says: load the tier modules
 * (/mmlab/modules/<name>.ko), hand every dax device whose target node is a
 * kmem node to the kmem driver and online its memory (movable), write
 * /sys/kernel/mm/numa/demotion_enabled. 0, or -1 with the reason in err.
 */
int tier_setup(const struct plan *p, char *err, size_t errlen);
/* a TIERS record for iteration iter (common/proto.h) */
void tier_report(unsigned int iter);

#endif
