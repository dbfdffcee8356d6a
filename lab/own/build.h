/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.h - a command workload's "build:": C sources compiled on the host
 * into one static program with the host's gcc (docs/job-format.md), cached
 * by content under CACHE/own/<key>/<output>. The key covers the compiler
 * (its version and target, the static libc), the flags, the output name
 * and the contents of every source and of every header the preprocessor
 * reads for them (gcc -M), so that any change rebuilds and nothing else
 * does.
 */
#ifndef MMLAB_OWN_BUILD_H
#define MMLAB_OWN_BUILD_H

#include <stdbool.h>

#include "job/job_own.h"

#define OWN_BUILD_TIMEOUT_S 600
#define OWN_CC "gcc" /* $MMLAB_CC overrides */

struct own_built {
	char *path; /* the static program in the cache */
	char key[65];
	bool cached; /* found, not compiled now */
	double seconds; /* the host-side set-up time: key, lookup and any compile */
};

/*
 * Find or build b for the job file job_path (its directory dir is gcc's
 * working directory, for -I and the sources). 0, or -1 after the
 * compiler's output and what to do, located at build: in the job
 * ("FILE:LINE:COLUMN: error: workload.build: ...").
 */
int own_build(const struct own_build *b, const char *job_path, const char *dir,
	      const char *cache_dir, struct own_built *out);
void own_built_release(struct own_built *b);

#endif
