/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs.h - the guest's file system chores: mounts, bounded reads of
 * /proc and /sys files, writes of settings, the list of NUMA nodes.
 */
#ifndef MMLAB_COLLECTORS_SYSFS_H
#define MMLAB_COLLECTORS_SYSFS_H

#include <stddef.h>

#define AGENT_MAX_NODES 64
#define NODE_DIR "/sys/devices/system/node"

/* mount proc, sysfs, devtmpfs, tmpfs /tmp, tracefs (optional) */
void mount_all(void);
/* LOG the mount failures once the channel is open */
void mount_report(void);
/*
 * Read up to cap bytes of a file into a malloc'ed NUL-terminated buffer.
 * *truncated is set when the file was longer. NULL and errno on failure.
 */
char *read_capped(const char *path, size_t cap, size_t *len, int *truncated);
/* write s to path (open O_WRONLY|O_TRUNC); 0 or -errno */
int write_str(const char *path, const char *s);
/* online node ids in ascending order; returns the count (0 if none) */
int list_nodes(int *ids, int max);

#endif
