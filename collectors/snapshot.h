/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - send the SNAPSHOT records of one phase of an iteration:
 * /proc/vmstat, /proc/buddyinfo, /proc/pagetypeinfo and, for every node,
 * node<N>/vmstat, node<N>/numastat, node<N>/meminfo.
 */
#ifndef MMLAB_COLLECTORS_SNAPSHOT_H
#define MMLAB_COLLECTORS_SNAPSHOT_H

#define SNAP_CAP (1u << 20) /* pagetypeinfo can be big */

/* returns how many files could not be read (each one LOGged) */
int snapshot_phase(unsigned int iter, const char *phase, const int *nodes, int nnodes);

#endif
