/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmtests.h - mmtests on the host side (docs/workloads.md, "mmtests";
 * docs/compare.md, "mmtests' own report"). mmlab reimplements none of
 * mmtests: it reads which packages mmtests' own scripts ask for, runs
 * mmtests' bin/extract-mmtests.pl on each iteration's log, and runs its
 * compare-kernels.sh over a run. The user's mmtests tree and its output are
 * untrusted: files are read with limits, the log archive is unpacked with
 * limits on entries, bytes and paths, and mmtests' programs run with argv
 * and a deadline.
 *
 *	needs.c    what a config's benchmarks need in the image, from
 *	           run-mmtests.sh's and the shellpacks' install-depends and
 *	           bin/install-depends' Debian names; a benchmark that
 *	           downloads its sources is refused before any boot
 *	import.c   one iteration: mmtests-log.tar.gz unpacked, each
 *	           benchmark's samples read with extract-mmtests.pl
 *	           --print-json, stored as metrics mmtests.<bench>.<op>
 *	report.c   compare-kernels.sh over a run's variants
 */
#ifndef MMLAB_MMTESTS_H
#define MMLAB_MMTESTS_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "job/job_mmtests.h"
#include "lib/util.h"

/* what a config's benchmarks need in the guest */
struct mmtests_needs {
	struct strlist packages; /* Debian package names, sorted, each once */
	struct strlist sources; /* where mmtests asked for them: "run-mmtests.sh", ... */
	struct strlist missing; /* names mmtests asks for that Debian does not have */
	/* externals mmtests would download, given by a Debian package: "DIR:PROGRAM" */
	struct strlist stubs;
	struct strlist notes; /* one line each, for the user */
};

/*
 * Read what the benchmarks of m need. Availability is asked of the host's
 * apt (the image is debootstrapped from the same Debian), its answer kept
 * under cache_dir (NULL: not kept). 0, or -1 after one message: a
 * benchmark mmtests does not have, or one whose install step downloads
 * sources (named, with the file and line that does it).
 */
int mmtests_needs(const struct job_mmtests *m, const char *cache_dir, struct mmtests_needs *out);
void mmtests_needs_release(struct mmtests_needs *n);

/*
 * One iteration stored in iter_dir: files/<MMTESTS_GUEST_LOG> unpacked
 * into iter_dir/mmtests/, each benchmark's operations read with mmtests'
 * extract-mmtests.pl and added to metrics as "mmtests.<bench>.<op>" (the
 * mean of the iteration's samples). Returns an object for the
 * iteration's record: {"log": "mmtests/", "benchmarks": {B: {"operations":
 * N, "samples": N, "preferred": "Lower"|"Higher"}}}; on a failure NULL,
 * with why (malloc'd).
 */
json_t *mmtests_import(const struct job_mmtests *m, const char *iter_dir, json_t *metrics,
		       char **why);

/*
 * The log archive in buf (tar, gzip'd or not) unpacked into dest, with the
 * limits above: what mmtests_import() does with the file. 0, or -1 with
 * why (malloc'd); dest may hold a part of it then.
 */
int mmtests_log_unpack_mem(const void *buf, size_t len, const char *dest, char **why);

/* the directions mmtests prefers, "mmtests.<bench>.<op>" -> "lower"/"higher", read from a record */
const char *mmtests_direction(const json_t *import, const char *metric);

/*
 * mmtests' compare-kernels.sh over a run (run: as results_load_run()
 * gives it; its iterations under results_dir), the baseline variant (NULL:
 * the first) against the others, written to out. 0, or -1 after a message.
 */
int mmtests_report(const char *results_dir, json_t *run, const char *baseline, FILE *out);

#endif
