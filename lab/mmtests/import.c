// SPDX-License-Identifier: GPL-2.0
/*
 * import.c - one iteration's mmtests log into metrics (mmtests.h). The
 * archive comes from the guest and is untrusted: at most LOG_MAX_ENTRIES
 * entries and LOG_MAX_BYTES bytes, only regular files and directories,
 * each path relative with no "." or ".." part, each file created new
 * (O_EXCL, O_NOFOLLOW) under the iteration's mmtests/. The samples are
 * mmtests' own reading of its log: bin/extract-mmtests.pl --print-json,
 * whose "_ResultData" holds, per operation, the iteration's values.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/payload.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "mmtests/import_json.h"
#include "mmtests/mmtests.h"

#define LOG_MAX_ENTRIES 20000
#define LOG_MAX_BYTES (256ULL << 20)
#define EXTRACT_TIMEOUT_S 300
#define EXTRACT_OUT_MAX (32u << 20)
#define OP_NAME_MAX 100

/* dest/rel: its directories made, the file created new; -1 with errno */
static int create_in(const char *dest, const char *rel)
{
	char *path = xasprintf("%s/%s", dest, rel), *slash = strrchr(path, '/');
	int fd = -1;

	*slash = '\0';
	if (!mkdir_p(path, 0755)) {
		*slash = '/';
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	free(path);
	return fd;
}

static int copy_entry(struct archive *a, int fd, uint64_t *total, char **why, const char *rel)
{
	char buf[65536];
	la_ssize_t n;

	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		*total += (uint64_t)n;
		if (*total > LOG_MAX_BYTES) {
			*why = xasprintf("mmtests' log is larger than %llu MiB unpacked",
					 LOG_MAX_BYTES >> 20);
			return -1;
		}
		if (fd_write_all(fd, buf, (size_t)n)) {
			*why = xasprintf("cannot write %s: %s", rel, strerror(errno));
			return -1;
		}
	}
	if (n < 0) {
		*why = xasprintf("mmtests' log archive is damaged at %s: %s", rel,
				 archive_error_string(a));
		return -1;
	}
	return 0;
}

/* the opened archive a unpacked into dest (made new) and freed; 0, or -1 with why */
static int unpack(struct archive *a, const char *dest, char **why)
{
	struct archive_entry *e;
	uint64_t total = 0;
	unsigned int entries = 0;
	int ret = 0, r = ARCHIVE_OK;

	if (mkdir_p(dest, 0755)) {
		*why = xasprintf("cannot make %s", dest);
		archive_read_free(a);
		return -1;
	}
	while (!ret && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		mode_t type = archive_entry_filetype(e);
		char *rel;
		int fd;

		if (++entries > LOG_MAX_ENTRIES) {
			*why = xasprintf("mmtests' log has more than %d entries", LOG_MAX_ENTRIES);
			ret = -1;
			break;
		}
		while (name && name[0] == '.' && name[1] == '/')
			name += 2;
		if (!name || !*name || !strcmp(name, "."))
			continue;
		rel = xstrdup(name);
		if (rel[strlen(rel) - 1] == '/')
			rel[strlen(rel) - 1] = '\0';
		if (!payload_guest_path_ok(rel)) {
			*why = xasprintf("mmtests' log holds a path mmlab does not unpack: %.80s",
					 name);
			ret = -1;
		} else if (type == AE_IFDIR) {
			char *d = xasprintf("%s/%s", dest, rel);

			ret = mkdir_p(d, 0755);
			if (ret)
				*why = xasprintf("cannot make %s", d);
			free(d);
		} else if (type == AE_IFREG) {
			fd = create_in(dest, rel);
			if (fd < 0) {
				*why = xasprintf("cannot create %s/%s: %s", dest, rel,
						 strerror(errno));
				ret = -1;
			} else {
				ret = copy_entry(a, fd, &total, why, rel);
				close(fd);
			}
		} /* links and special files: left out */
		free(rel);
	}
	if (!ret && r != ARCHIVE_EOF) {
		*why = xasprintf("mmtests' log archive is damaged: %s", archive_error_string(a));
		ret = -1;
	}
	archive_read_free(a);
	return ret;
}

static struct archive *log_reader(void)
{
	struct archive *a = archive_read_new();

	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	return a;
}

int mmtests_log_unpack_mem(const void *buf, size_t len, const char *dest, char **why)
{
	struct archive *a = log_reader();

	*why = NULL;
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK) {
		*why = xasprintf("mmtests' log is not a tar archive: %s", archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	return unpack(a, dest, why);
}

static int unpack_file(const char *tarball, const char *dest, char **why)
{
	struct archive *a = log_reader();

	if (archive_read_open_filename(a, tarball, 65536) != ARCHIVE_OK) {
		*why = xasprintf("cannot read mmtests' log %s: %s", tarball,
				 archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	return unpack(a, dest, why);
}

/* an operation's name as part of a metric's: [A-Za-z0-9._+-], others '_' */
static char *op_name(const char *op)
{
	size_t n = strlen(op);
	char *s = xstrndup(op, n > OP_NAME_MAX ? OP_NAME_MAX : n);

	for (char *c = s; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-",
			    *c))
			*c = '_';
	return s;
}

/* extract-mmtests.pl's JSON for one benchmark; NULL with why */
static json_t *extract(const char *mmdir, const char *logdir, const char *bench, char **why)
{
	char *prog = xasprintf("%s/bin/extract-mmtests.pl", mmdir);
	const char *argv[] = { "perl",		 prog,		 "-d", logdir, "-b", bench, "-n",
			       MMTESTS_RUN_NAME, "--print-json", NULL };
	struct spawn_opts o = { .cwd = mmdir,
				.timeout_s = EXTRACT_TIMEOUT_S,
				.capture_max = EXTRACT_OUT_MAX };
	struct spawn_result r = { 0 };
	json_t *j = NULL;
	json_error_t err;
	char buf[128];

	if (spawn_run(argv, &o, &r)) {
		*why = xasprintf("mmtests' extract-mmtests.pl -b %s %s: %s", bench,
				 spawn_describe(&r, o.timeout_s, buf, sizeof(buf)),
				 spawn_tail(&r, 5));
	} else {
		/* Perl's warnings share the output: the JSON starts at the first '{' */
		const char *s = r.out ? strchr(r.out, '{') : NULL;

		j = s ? json_loadb(s, r.out_len - (size_t)(s - r.out), JSON_DISABLE_EOF_CHECK,
				   &err) :
			NULL;
		if (!json_is_object(j)) {
			*why = xasprintf(
				"mmtests' extract-mmtests.pl -b %s printed no JSON object%s%s: %s",
				bench, s ? ": " : "", s ? err.text : "", spawn_tail(&r, 5));
			json_decref(j);
			j = NULL;
		}
	}
	spawn_result_free(&r);
	free(prog);
	return j;
}

/* one benchmark's operations into metrics; the count of them, or -1 with why */
static int add_ops(const char *bench, json_t *doc, json_t *metrics, json_t *info, char **why)
{
	struct mmtests_extract x;
	int n;

	if (mmtests_extract_read(doc, &x)) {
		*why = xasprintf("mmtests' extract-mmtests.pl -b %s gave no _ResultData", bench);
		mmtests_extract_free(&x);
		return -1;
	}
	for (size_t i = 0; i < x.nops; i++) {
		char *opn = op_name(x.ops[i].name);
		char *name = xasprintf("mmtests.%s.%s", bench, opn);

		json_object_set_new(metrics, name, json_real(x.ops[i].mean));
		free(name);
		free(opn);
	}
	if (!x.nops) {
		*why = xasprintf("mmtests' log has no samples of %s (extract-mmtests.pl read none)",
				 bench);
		mmtests_extract_free(&x);
		return -1;
	}
	json_object_set_new(info, bench,
			    json_pack("{s:I, s:I, s:s}", "operations", (json_int_t)x.nops,
				      "samples", (json_int_t)x.samples, "preferred",
				      x.higher ? "higher" : "lower"));
	n = (int)x.nops;
	mmtests_extract_free(&x);
	return n;
}

json_t *mmtests_import(const struct job_mmtests *m, const char *iter_dir, json_t *metrics,
		       char **why)
{
	char *tarball = xasprintf("%s/files%s", iter_dir, MMTESTS_GUEST_LOG);
	char *rel = xasprintf("%s/mmtests", iter_dir);
	/* extract-mmtests.pl runs in the mmtests directory */
	char *logdir = path_abs(rel);
	json_t *info = json_object(), *ret = NULL;
	int bad = 0;

	*why = NULL;
	if (!path_exists(tarball)) {
		*why = xstrdup(
			"the guest sent back no mmtests log (mmtests-log.tar.gz); see the iteration's stdout");
		bad = 1;
	} else if (!path_exists(logdir) && unpack_file(tarball, logdir, why)) {
		bad = 1;
	}
	for (size_t b = 0; !bad && b < m->benchmarks.n; b++) {
		json_t *doc = extract(m->dir, logdir, m->benchmarks.v[b], why);

		bad = !doc || add_ops(m->benchmarks.v[b], doc, metrics, info, why) < 0;
		json_decref(doc);
	}
	if (!bad)
		ret = json_pack("{s:s, s:O}", "log", "mmtests/", "benchmarks", info);
	json_decref(info);
	free(tarball);
	free(logdir);
	free(rel);
	return ret;
}
