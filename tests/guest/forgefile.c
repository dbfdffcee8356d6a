// SPDX-License-Identifier: GPL-2.0
/*
 * forgefile - a hostile guest program for tests/integration/t-collect-hostile.sh,
 * built only for that test (never into build/guest): it takes the place of
 * the noop workload in a test image and, as any program running as root in
 * a guest could, writes FILE records of its own straight to the data
 * channel (/dev/ttyS1), with valid framing and checksums:
 *
 *   - /etc/forged-not-asked, a path the job did not ask for;
 *   - /var/log/../../../../tmp/mmlab-forged, climbing out with "..";
 *   - the same with the dots encoded (%2E%2E);
 *   - FORGE_LIED (asked for) claiming 4 bytes and sending 64;
 *   - FORGE_HUGE (asked for) claiming 2^60 bytes.
 *
 * It also writes FORGE_OK, which the agent then sends honestly. The host
 * must store FORGE_OK, refuse the two lies, and write nothing else.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "proto.h"
#include "wl.h"

#define FORGE_OK "/var/log/mmlab/forge-ok"
#define FORGE_LIED "/var/log/mmlab/forge-lied"
#define FORGE_HUGE "/var/log/mmlab/forge-huge"

static int forge(int fd, const char *hdr, const char *body, size_t blen)
{
	size_t hl = strlen(hdr), plen = hl + (blen ? 1 + blen : 0);
	char payload[4096], rec[MMREC_HDR_SIZE + sizeof(payload)];
	size_t n;

	if (plen >= sizeof(payload))
		return -1;
	snprintf(payload, sizeof(payload), "%s", hdr);
	if (blen) {
		payload[hl] = '\n';
		memcpy(payload + hl + 1, body, blen);
	}
	n = mmrec_encode(rec, MMREC_FILE, payload, (uint32_t)plen);
	return write(fd, rec, n) == (ssize_t)n ? 0 : -1;
}

static int write_ok(void)
{
	static const char text[] = "written by the guest, sent by the agent\n";
	int fd;

	mkdir("/var", 0755);
	mkdir("/var/log", 0755);
	mkdir("/var/log/mmlab", 0755);
	fd = open(FORGE_OK, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		return -1;
	/* the lied-about files exist too: the agent sends them honestly, too late */
	close(fd);
	fd = open(FORGE_LIED, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char body[64];
	int fd, bad = 0;

	if (wl_init(argc, argv) < 0 || write_ok() < 0)
		return 2;
	memset(body, 'E', sizeof(body));
	if (wl_ready_and_wait() < 0)
		return 1;
	fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		perror("forgefile: /dev/ttyS1");
		return 1;
	}
	bad |= forge(fd, "path=/etc/forged-not-asked size=8 offset=0", body, 8);
	bad |= forge(fd, "path=/var/log/../../../../tmp/mmlab-forged size=8 offset=0", body, 8);
	bad |= forge(
		fd,
		"path=/var/log/%2E%2E/%2E%2E/%2E%2E/%2E%2E/tmp/mmlab-forged-enc size=8 offset=0",
		body, 8);
	bad |= forge(fd, "path=" FORGE_LIED " size=4 offset=0", body, sizeof(body));
	bad |= forge(fd, "path=" FORGE_HUGE " size=1152921504606846976 offset=0", body, 8);
	tcdrain(fd);
	close(fd);
	if (bad)
		fprintf(stderr, "forgefile: a write to /dev/ttyS1 failed\n");
	if (wl_done_and_wait() < 0)
		return 1;
	return bad;
}
