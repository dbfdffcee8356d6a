/* SPDX-License-Identifier: GPL-2.0 */
/*
 * payload.h - the boot's payload on a disk image (common/proto.h, THE
 * PAYLOAD): a read-only virtio disk with the serial MMPAYLOAD_SERIAL
 * holding a raw cpio (newc) of the plan and the boot's files, which the
 * agent unpacks into / before it reads the plan. An initramfs boot has no
 * such disk: the kernel unpacked the same cpio already.
 */
#ifndef MMLAB_COLLECTORS_PAYLOAD_H
#define MMLAB_COLLECTORS_PAYLOAD_H

#include <stddef.h>

struct payload_stats {
	unsigned int files, dirs;
	unsigned long long bytes;
};

/*
 * Find the payload disk (waiting up to a few seconds for it while there
 * is no plan yet) and unpack it into /. 1 unpacked, 0 no payload disk,
 * -1 with a reason in err.
 */
int payload_unpack(struct payload_stats *st, char *err, size_t errlen);

/*
 * Unpack the cpio read from fd under root ("" for /): directories and
 * regular files with their modes; other entries are skipped. Names must
 * be relative, without "." or ".." components. Stops at the trailer.
 * 0, or -1 with a reason in err.
 */
int payload_unpack_fd(int fd, const char *root, struct payload_stats *st, char *err, size_t errlen);

#endif
