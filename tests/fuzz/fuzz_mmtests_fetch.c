// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_mmtests_fetch - a shellpack's install script from the user's
 * mmtests tree (lab/mmtests/fetch.c): its sources_fetch and git_fetch
 * lines, whose files, mirror paths and URLs mmlab hands to the payload,
 * curl and git.
 * fuzz-options: -max_len=65536
 */
#include "fuzz.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"

static bool url_plain(const char *u)
{
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8) && strncmp(u, "git://", 6))
		return false;
	for (; *u; u++)
		if ((unsigned char)*u <= ' ' || *u == 0x7f)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmtests_fetches fs;
	char *why = NULL;

	if (mmtests_fetch_parse((const char *)data, size, "pack", &fs, &why)) {
		if (!why || strncmp(why, "line ", 5))
			abort();
		free(why);
		return 0;
	}
	if (fs.n > MMTESTS_MAX_FETCHES)
		abort();
	for (size_t i = 0; i < fs.n; i++) {
		const struct mmtests_fetch *f = &fs.v[i];

		if (!mmtests_source_name_ok(f->file) || !mmtests_source_name_ok(f->srcdir) ||
		    f->mirror[0] == '.' || f->mirror[0] == '/' || strstr(f->mirror, "/.") ||
		    strstr(f->mirror, "//"))
			abort();
		if ((f->url && !url_plain(f->url)) || (f->url_alt && !url_plain(f->url_alt)))
			abort();
		if (f->kind == MMTESTS_FETCH_GIT && f->commit && f->commit[0] == '-')
			abort();
	}
	mmtests_fetches_free(&fs);
	return 0;
}
