// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_mmtests_log - the archive of mmtests' work/log/ a guest sends back
 * (lab/mmtests/import.c, through libarchive): unpacked into a fresh
 * directory, which must stay the only place written.
 * fuzz-options: -max_len=65536
 */
#include <dirent.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"

/* nothing was written beside log/ */
static void only_log(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "log"))
			abort();
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char tmpl[] = "/tmp/fuzz-mmtests-XXXXXX", *dest, *why = NULL;

	if (!mkdtemp(tmpl))
		abort();
	dest = xasprintf("%s/log", tmpl);
	mmtests_log_unpack_mem(data, size, dest, &why);
	free(why);
	free(dest);
	only_log(tmpl);
	rm_rf(tmpl);
	return 0;
}
