// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_job - a job file (lab/job/: libyaml, then every section's checks).
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "job/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job *job = NULL;

	if (job_load_buffer("fuzz.yaml", (const char *)data, size, "/nonexistent", &job) == 0 &&
	    !job)
		abort();
	job_free(job);
	return 0;
}
