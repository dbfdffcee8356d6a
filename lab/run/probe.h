/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - the accel probe as the run, image and doctor commands use it:
 * a small boot built on the runner's steps (run/stage.c stages a kernel and
 * a probe initramfs where QEMU can read them, guest/stream.c reads what the
 * agent sent), while vm/accel.c decides and caches KVM or TCG.
 */
#ifndef MMLAB_RUN_PROBE_H
#define MMLAB_RUN_PROBE_H

#include <stdbool.h>

#include "vm/accel.h"
#include "image/initramfs.h"
#include "topo/topology.h"
#include "vm/vm.h"

/* 1 when the data channel file holds the agent's HELLO */
int probe_agent_reached(const char *data_path, const char *console_path, void *arg);

int probe_accel(struct vm_host *h, enum accel_mode mode, const char *cache_dir, const char *kernel,
		const struct image *img, bool reprobe, struct accel_choice *out);

#endif
