// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_recipe - a bug-reproduction recipe (lab/repro/recipe.c: the job
 * format plus bug, expect, good; expressions and regexes in it).
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "repro/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe *r = NULL;

	if (recipe_load_buffer("fuzz.yaml", (const char *)data, size, "/nonexistent", &r) == 0) {
		json_t *j = recipe_json(r);

		json_decref(j);
		for (size_t i = 0; i < r->nexpect; i++)
			free(expect_describe(&r->expect[i]));
	}
	recipe_free(r);
	return 0;
}
