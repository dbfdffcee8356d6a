// SPDX-License-Identifier: GPL-2.0
/*
 * step_json.c - the keys a bisect step reads of the results store's
 * records beyond their typed fields; see step_json.h.
 */
#include <jansson.h>

#include "bisect/step_json.h"
#include "store/run_record.h"

bool step_kernel_built(const struct run_kernel *k)
{
	return json_is_false(json_object_get(k->rest, "cache_hit"));
}
