// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_samples_csv - `mmlab compare --samples FILE.csv`: the CSV reader
 * (lab/analysis/compare_load.c), then the statistics and every output
 * format of the comparison.
 * fuzz-options: -max_len=65536
 */
#include "analysis/compare.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *csv = fuzz_cstr(data, size);
	struct comparison *c = cmp_new();

	if (cmp_add_samples_buf(c, "fuzz.csv", csv) == 0 &&
	    cmp_compute(c, NULL, 0.05, size & 1 ? "*" : NULL) == 0) {
		cmp_write(c, CMP_TEXT, fuzz_devnull());
		cmp_write(c, CMP_JSON, fuzz_devnull());
		cmp_write(c, CMP_CSV, fuzz_devnull());
		cmp_write_power(c, 0.02, CMP_TEXT, fuzz_devnull());
	}
	cmp_free(c);
	free(csv);
	return 0;
}
