// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_package - a kernel package's bytes (a .deb or an .rpm from outside)
 * through the unpacker (lab/kernel/package.c, package_fmt.c, libarchive):
 * every refusal is a message, never a crash, and nothing is written
 * outside the scratch directory. Seeds: tests/unit/kernel/test_package.c with
 * MMLAB_PKG_SEEDS=tests/fuzz/corpus/package.
 * fuzz-options: -max_len=65536
 */
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "kernel/package.h"
#include "lib/util.h"

static char *dir;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkg_info pi;

	if (!dir) {
		dir = strdup("/tmp/fuzz_package.XXXXXX");
		if (!dir || !mkdtemp(dir))
			abort();
	}
	pkg_unpack_mem(data, size, dir, NULL, true, "fuzz", &pi);
	pkg_info_release(&pi);
	/* only what the scratch directory holds may have been written */
	if (rm_rf(dir) || mkdir(dir, 0700))
		abort();
	return 0;
}
