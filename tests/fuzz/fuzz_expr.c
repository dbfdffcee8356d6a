// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_expr - derived-metric expressions (lab/analysis/expr.c): parse,
 * evaluate with names that are known, unknown, zero or NaN, list names.
 * fuzz-options: -max_len=8192
 */
#include <math.h>

#include "analysis/expr.h"
#include "fuzz.h"

static int lookup(void *ctx, const char *name, double *val)
{
	size_t h = 5381;

	(void)ctx;
	for (const char *p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	switch (h % 5) {
	case 0:
		return -1;
	case 1:
		*val = 0;
		break;
	case 2:
		*val = NAN;
		break;
	case 3:
		*val = 1e308;
		break;
	default:
		*val = (double)(h % 1000) - 500;
		break;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = fuzz_cstr(data, size), err[256];
	struct expr *e = expr_parse(src, err, sizeof(err));
	struct strlist names = { 0 };
	double v;

	if (e) {
		expr_eval(e, lookup, NULL, &v, err, sizeof(err));
		expr_names(e, &names);
		strlist_free(&names);
		expr_free(e);
	}
	free(src);
	return 0;
}
