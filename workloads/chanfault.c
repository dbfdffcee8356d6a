// SPDX-License-Identifier: GPL-2.0
/*
 * chanfault - a guest whose data channel (ttyS1) carries garbage or
 * nothing, for the host's tests (tests/integration/t-data-channel.sh). It
 * runs instead of the agent, as the initramfs's init: a variant's cmdline
 * "rdinit=/mmlab/workloads/chanfault chanfault.mode=garbage" (or =silent).
 *
 *   garbage  writes chanfault.bytes (default 4 MiB) to ttyS1: record
 *            headers ("MMLR") every 16 bytes claiming 4 MiB payloads
 *            with wrong checksums, then pseudo-random bytes; then waits
 *   silent   writes nothing and waits
 *
 * The host must end the boot at its deadline and record why.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* "key=" in /proc/cmdline, its value into out; 0 or -1 */
static int cmdline_get(const char *key, char *out, size_t len)
{
	char buf[4096], *p;
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	size_t kl = strlen(key);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n")) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, len, "%s", p + kl + 1);
			return 0;
		}
	}
	return -1;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int garbage(int fd, size_t bytes)
{
	uint8_t buf[4096];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t done = 0;

	while (done < bytes) {
		for (size_t i = 0; i < sizeof(buf); i += 16) {
			if (done < bytes / 2) { /* headers claiming 4 MiB, wrong CRC */
				memcpy(buf + i, "MMLR", 4);
				buf[i + 4] = 4, buf[i + 5] = 0, buf[i + 6] = 1, buf[i + 7] = 0;
				put_le32(buf + i + 8, 4u << 20);
				put_le32(buf + i + 12, (uint32_t)x);
			} else {
				for (int k = 0; k < 16; k++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					buf[i + (size_t)k] = (uint8_t)x;
				}
			}
		}
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		done += sizeof(buf);
	}
	return 0;
}

int main(void)
{
	char mode[32] = "silent", bytes[32] = "4194304";
	int fd;

	mkdir("/proc", 0555);
	mount("proc", "/proc", "proc", 0, NULL);
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	cmdline_get("chanfault.mode", mode, sizeof(mode));
	cmdline_get("chanfault.bytes", bytes, sizeof(bytes));
	fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
	printf("chanfault: mode %s, %s bytes, ttyS1 %s\n", mode, bytes,
	       fd < 0 ? "missing" : "open");
	fflush(stdout);
	if (fd >= 0 && !strcmp(mode, "garbage"))
		garbage(fd, strtoul(bytes, NULL, 10));
	printf("chanfault: done, waiting\n");
	fflush(stdout);
	for (;;)
		pause();
}
