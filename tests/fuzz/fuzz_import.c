// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_import - run.json and iteration.json of a store copied from another
 * lab server, as "mmlab results import" checks them before copying
 * anything (lab/store/import.c). Input: run.json, a NUL, iteration.json.
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "store/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *nul = memchr(buf, '\0', size);
	size_t a = nul ? (size_t)(nul - buf) : size;
	struct strlist vars = { 0 };
	char *why = import_check_run_json(buf, a, "20260101-000000-job-abcd", &vars);

	for (size_t i = 0; !why && i < vars.n; i++)
		if (!*vars.v[i] || strchr(vars.v[i], '/') || !strcmp(vars.v[i], ".."))
			abort(); /* a name that would leave the run's directory */
	free(why);
	strlist_free(&vars);
	if (nul)
		free(import_check_iteration_json(nul + 1, size - a - 1));
	return 0;
}
