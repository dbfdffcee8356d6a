/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - the accel probe as the run and doctor commands use it: stage a
 * kernel and a probe initramfs where QEMU can read them, then let accel.c
 * decide (and cache) KVM or TCG.
 */
#ifndef MMLAB_PROBE_H
#define MMLAB_PROBE_H

#include <stdbool.h>

#include "vm/accel.h"
#include "image/initramfs.h"
#include "job/job.h"
#include "vm/vm.h"

/* 1 when the data channel file holds the agent's HELLO */
int probe_agent_reached(const char *data_path, const char *console_path, void *arg);

int probe_accel(struct vm_host *h, enum accel_mode mode, const char *cache_dir, const char *kernel,
		const struct image *img, bool reprobe, struct accel_choice *out);

#endif
