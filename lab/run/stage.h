/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stage.h - the first step of a boot: a staging directory under /tmp where
 * the kernel, the initramfs or disk overlay, the console log and the agent's
 * data channel file of a boot live while its domain runs. QEMU runs as
 * another user (libvirt-qemu), so the directory is world-traversable; the
 * results store may sit where that user cannot go.
 *
 * Each stage holds an "owner" file ("PID BOOT_ID"): stage_create() first
 * removes the stages of mmlab processes that died without removing theirs
 * (kill -9, a reboot). MMLAB_KEEP_STAGE=1 keeps stages for debugging (and
 * they are never swept).
 */
#ifndef MMLAB_RUN_STAGE_H
#define MMLAB_RUN_STAGE_H

/* a fresh staging directory (malloc'd path), or NULL after a message */
char *stage_create(void);
/* remove a stage, or a directory in one, unless MMLAB_KEEP_STAGE is set */
void stage_done(const char *path);

#endif
