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
 *	           bin/install-depends' Debian names, and the source files
 *	           their install steps fetch (sources_fetch, git_fetch); a
 *	           download mmtests' macros do not make (a bare wget, curl or
 *	           git clone) is refused before any boot
 *	fetch.c    a shellpack's sources_fetch and git_fetch lines read
 *	sources.c  those files from a mirror or the host's cache (downloaded
 *	           on the host into it), or a refusal naming what is missing
 *	import.c   one iteration: mmtests-log.tar.gz unpacked, each
 *	           benchmark's samples read with extract-mmtests.pl
 *	           --print-json, stored as metrics mmtests.<bench>.<op>
 *	report.c   compare-kernels.sh over a run's variants
 */
#ifndef MMLAB_MMTESTS_MMTESTS_H
#define MMLAB_MMTESTS_MMTESTS_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "job/job_mmtests.h"
#include "lib/util.h"

/* a file a shellpack's install step fetches (fetch.c) */
#define MMTESTS_MAX_FETCHES 32
enum mmtests_fetch_kind { MMTESTS_FETCH_TAR, MMTESTS_FETCH_GIT };
struct mmtests_fetch {
	enum mmtests_fetch_kind kind;
	char *bench; /* the benchmark that needs it (needs.c sets it) */
	char *pack; /* the shellpack */
	char *file; /* TARFILE: $SHELLPACK_SOURCES/<file> in the guest */
	char *mirror; /* <benchmark>/<file>: its path in a mirror (WEBROOT) */
	char *url; /* WEB_LOCATION/[DIR/]file, or GIT_LOCATION; NULL: not known */
	char *url_alt; /* WEB_LOCATION_ALT/[DIR/]file, or NULL */
	char *srcdir; /* the directory it unpacks as: git archive's --prefix */
	char *commit; /* git_fetch: what it checks out ("master" for version 0) */
	unsigned int line; /* of the macro in <pack>-install */
};
struct mmtests_fetches {
	struct mmtests_fetch *v;
	size_t n;
};

/* a file or directory name from a shellpack: plain, no "..", no option */
bool mmtests_source_name_ok(const char *s);
/*
 * The fetches of a shellpack's install script (text, len bytes, untrusted:
 * at most MMTESTS_MAX_FETCHES). 0, or -1 with why (malloc'd, "line N:
 * ...") when a fetch's file or directory cannot be told.
 */
int mmtests_fetch_parse(const char *text, size_t len, const char *pack, struct mmtests_fetches *out,
			char **why);
void mmtests_fetches_free(struct mmtests_fetches *fs);

/* what a config's benchmarks need in the guest */
struct mmtests_needs {
	struct strlist packages; /* Debian package names, sorted, each once */
	struct strlist sources; /* where mmtests asked for them: "run-mmtests.sh", ... */
	struct strlist missing; /* names mmtests asks for that Debian does not have */
	/* externals mmtests would download, given by a Debian package: "DIR:PROGRAM" */
	struct strlist stubs;
	struct strlist notes; /* one line each, for the user */
	struct mmtests_fetches fetches; /* the files their install steps fetch */
};

/*
 * Where each of fetches comes from, before any boot: mirror (NULL: none)
 * <mirror>/<f->mirror>, else cache_dir's mmtests-sources/<f->mirror>
 * (size and SHA256 checked), else downloaded on the host into that cache
 * (curl, or git clone and git archive). files gets one
 * pair each: the guest's name (<file>) and the host's path. 0, or -1
 * after one message naming the benchmark, the file, the URL and the
 * mirror path where it would be found.
 */
int mmtests_sources(const struct mmtests_fetches *fetches, const char *mirror,
		    const char *cache_dir, struct kvlist *files);

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
 * Returns a new reference.
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
 * mmtests' compare-kernels.sh over a run (run: as store_run_load() loads
 * it; its iterations under results_dir), the baseline variant (NULL: the
 * first) against the others, written to out. 0, or -1 after a message.
 */
struct run_data;
int mmtests_report(const char *results_dir, const struct run_data *run, const char *baseline,
		   FILE *out);

#endif
