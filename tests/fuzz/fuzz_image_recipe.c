// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_image_recipe - an image recipe (images/NAME.yaml, lab/image/recipe.c
 * through lab/lib/yamlfile.c).
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "image/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_recipe r;

	memset(&r, 0, sizeof(r));
	image_recipe_parse("fuzz.yaml", (const char *)data, size, "/nonexistent", &r);
	image_recipe_release(&r);
	return 0;
}
