// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_mmtests_config - the MMTESTS= line of a user's mmtests config
 * (lab/job/parse_mmtests.c): the benchmarks mmlab reads from it.
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "job/job_mmtests.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strlist l = { 0 };
	char *why = NULL;

	if (!mmtests_config_benchmarks((const char *)data, size, &l, &why) &&
	    (!l.n || l.n > MMTESTS_MAX_BENCHMARKS))
		abort();
	for (size_t i = 0; i < l.n; i++)
		if (!l.v[i][0] || strchr(l.v[i], '/') || strchr(l.v[i], '$'))
			abort();
	free(why);
	strlist_free(&l);
	return 0;
}
