// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trackfile - a track file (docs/track.md, lab/track/trackfile.c
 * through lab/lib/yamlfile.c), without loading the jobs it names.
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "track/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct track_def d;

	if (!trackfile_parse("fuzz.yaml", (const char *)data, size, "/nonexistent", &d))
		trackfile_release(&d);
	return 0;
}
