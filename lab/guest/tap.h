/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the host end of the agent's data channel (ttyS1).
 *
 * libvirt hands a <serial type='file'> to virtlogd, which rolls the file
 * over at 2 MiB (max_size in virtlogd.conf) and keeps three old ones, so
 * a longer stream lost its beginning, and a guest could fill the disk.
 * A boot's ttyS1 is therefore a <serial type='pipe'>: QEMU writes into the
 * FIFO PATH.out, and a thread of ours copies it into the file PATH as it
 * comes (progress and timing read that file), at most cap bytes; what
 * comes beyond is read and counted, not kept.
 */
#ifndef MMLAB_GUEST_TAP_H
#define MMLAB_GUEST_TAP_H

#include <stdint.h>

struct data_tap;

/*
 * Make PATH.in and PATH.out (FIFOs, which libvirt hands to QEMU) and the
 * empty file PATH, and start copying. NULL after a message.
 */
struct data_tap *data_tap_start(const char *path, uint64_t cap);

/*
 * Once the domain is gone (QEMU exited, so everything it wrote is in the
 * FIFO): copy the rest, stop, remove the FIFOs. Returns the bytes that
 * came beyond cap (dropped), or -1 after a message when PATH could not be
 * written. Frees t.
 */
int64_t data_tap_stop(struct data_tap *t);

#endif
