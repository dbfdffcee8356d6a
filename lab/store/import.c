// SPDX-License-Identifier: GPL-2.0
/*
 * import.c - runs of another lab server's store (see import.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/import.h"
#include "store/iteration_record.h"
#include "store/run_record.h"
#include "lib/timefmt.h"
#include "lib/util.h"

static bool name_ok(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/* run.json text of run id into *rec (released by the caller either way); NULL or why */
static char *check_record(const char *buf, size_t len, const char *id, struct run_record *rec)
{
	json_error_t e;
	json_t *j;

	memset(rec, 0, sizeof(*rec));
	if (len > IMPORT_MAX_RUN_JSON)
		return xasprintf("run.json is larger than %u bytes", IMPORT_MAX_RUN_JSON);
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
	if (!j)
		return xasprintf("run.json is not valid JSON (truncated?): line %d: %.200s", e.line,
				 e.text);
	if (run_record_from_json(j, rec)) {
		json_decref(j);
		return xasprintf("run.json is not a JSON object");
	}
	json_decref(j);
	if (!rec->run || strcmp(rec->run, id))
		return xasprintf("run.json names another run than its directory '%.200s'", id);
	if (!rec->variants || rec->nvariants > 1000)
		return xasprintf("run.json has no list of named variants (at most 1000)");
	for (size_t i = 0; i < rec->nvariants; i++)
		if (!name_ok(rec->variants[i].name))
			return xasprintf("run.json variant %zu has no valid name", i);
	return NULL;
}

char *import_check_run_json(const char *buf, size_t len, const char *id, struct strlist *variants)
{
	struct run_record rec;
	char *why = check_record(buf, len, id, &rec);

	for (size_t i = 0; !why && variants && i < rec.nvariants; i++)
		strlist_push(variants, rec.variants[i].name);
	run_record_release(&rec);
	return why;
}

char *import_check_iteration_json(const char *buf, size_t len)
{
	json_t *j;
	json_error_t e;
	char *why = NULL;

	if (len > IMPORT_MAX_ITERATION_JSON)
		return xasprintf("larger than %u bytes", IMPORT_MAX_ITERATION_JSON);
	j = json_loadb(buf, len, 0, &e);
	if (!j)
		return xasprintf("not valid JSON (truncated?): line %d: %.200s", e.line, e.text);
	if (!iteration_json_has_result(j))
		why = xasprintf("not an iteration (no status or metrics)");
	json_decref(j);
	return why;
}

/* each numbered directory of a variant holds a valid iteration.json */
static char *check_variant(const char *rdir, const char *variant)
{
	char *vdir = xasprintf("%s/%s", rdir, variant), *why = NULL;
	DIR *d = opendir(vdir);
	struct dirent *e;

	while (d && !why && (e = readdir(d))) {
		uint64_t k;
		char *p, *buf, *w;
		size_t len;

		if (parse_uint(e->d_name, &k))
			continue;
		p = xasprintf("%s/%s/iteration.json", vdir, e->d_name);
		buf = path_exists(p) ? read_file(p, &len, IMPORT_MAX_ITERATION_JSON) : NULL;
		w = buf ? import_check_iteration_json(buf, len) : NULL;
		if (!buf)
			why = xasprintf("%s/%s/iteration.json is missing or unreadable", variant,
					e->d_name);
		else if (w)
			why = xasprintf("%s/%s/iteration.json is %s", variant, e->d_name, w);
		free(w);
		free(buf);
		free(p);
	}
	if (d)
		closedir(d);
	free(vdir);
	return why;
}

/* the planned boots' iterations are all there (the run's "boots") */
static char *check_planned(const char *rdir, const struct run_record *rec)
{
	char *why = NULL;

	for (size_t i = 0; !why && i < rec->nboots; i++) {
		const char *v = rec->boots[i].variant;
		long long first = rec->boots[i].first, count = rec->boots[i].count;

		for (long long k = first;
		     name_ok(v) && !why && k < first + count && k < STORE_MAX_ITERATIONS; k++) {
			char *p = xasprintf("%s/%s/%lld/iteration.json", rdir, v, k);

			if (!path_exists(p))
				why = xasprintf("%s/%lld/iteration.json is missing (the run's plan "
						"has it)",
						v, k);
			free(p);
		}
	}
	return why;
}

/* the whole run is there and well-formed; NULL or why (malloc'd) */
static char *check_run(const char *rdir, const char *id)
{
	char *p = xasprintf("%s/run.json", rdir), *buf, *why;
	struct run_record rec;
	size_t len;

	buf = path_exists(p) ? read_file(p, &len, IMPORT_MAX_RUN_JSON) : NULL;
	free(p);
	if (!buf)
		return xasprintf("run.json is missing or unreadable");
	why = check_record(buf, len, id, &rec);
	for (size_t i = 0; !why && i < rec.nvariants; i++)
		why = check_variant(rdir, rec.variants[i].name);
	if (!why)
		why = check_planned(rdir, &rec);
	run_record_release(&rec);
	free(buf);
	return why;
}

/* copy regular files and directories only; *n counts files */
static int copy_tree(const char *src, const char *dst, int depth, unsigned int *n)
{
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (depth > IMPORT_MAX_DEPTH || mkdir(dst, 0755))
		return -1;
	d = opendir(src);
	if (!d)
		return -1;
	while (!ret && (e = readdir(d))) {
		char *s, *t;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		t = xasprintf("%s/%s", dst, e->d_name);
		if (lstat(s, &st) || ++*n > IMPORT_MAX_FILES)
			ret = -1;
		else if (S_ISDIR(st.st_mode))
			ret = copy_tree(s, t, depth + 1, n);
		else if (S_ISREG(st.st_mode))
			ret = copy_file(s, t, 0644);
		/* symlinks, devices, sockets of the other store: left out */
		free(s);
		free(t);
	}
	closedir(d);
	return ret;
}

static int write_provenance(const char *dir, const char *src, const char *rdir)
{
	char host[256] = "", now[TIME_STR_LEN], *abs = realpath(src, NULL), *p, *text, *rj;
	struct run_record rec = { 0 };
	json_t *j, *r;
	size_t len;
	int ret;

	gethostname(host, sizeof(host) - 1);
	time_iso(time(NULL), now);
	p = xasprintf("%s/run.json", rdir);
	rj = read_file(p, &len, IMPORT_MAX_RUN_JSON);
	r = rj ? json_loadb(rj, len, 0, NULL) : NULL;
	if (run_record_from_json(r, &rec))
		memset(&rec, 0, sizeof(rec));
	j = json_pack("{s:s, s:s, s:s?, s:s}", "imported", now, "from_store", abs ? abs : src,
		      "from_host", rec.host.hostname, "imported_by", host);
	run_record_release(&rec);
	text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	free(p);
	p = xasprintf("%s/import.json", dir);
	ret = text ? write_file_atomic(p, text, strlen(text), 0644) : -1;
	free(p);
	free(text);
	json_decref(j);
	json_decref(r);
	free(rj);
	free(abs);
	return ret;
}

/* one run directory of src: 0 imported, 1 already present, -1 refused */
static int import_one(struct store *s, const char *src, const char *id)
{
	char *rdir = xasprintf("%s/%s", src, id), *why = check_run(rdir, id);
	char *dst = store_run_path(s, id);
	char *tmp = xasprintf("%s/.import-%s.%ld", store_dir(s), id, (long)getpid());
	unsigned int n = 0;
	int ret = -1;

	if (why) {
		lab_err("run %s in %s is refused: %s; copy it whole again (rsync) and retry", id,
			src, why);
		goto out;
	}
	if (path_exists(dst)) {
		lab_info("run %s is in %s already: skipped", id, store_dir(s));
		ret = 1;
		goto out;
	}
	rm_rf(tmp);
	if (copy_tree(rdir, tmp, 0, &n) || write_provenance(tmp, src, rdir)) {
		lab_err("cannot copy run %s from %s to %s (%u files): %s", id, src, store_dir(s), n,
			strerror(errno));
		rm_rf(tmp);
		goto out;
	}
	/* a run that appeared meanwhile is not replaced: rename refuses a full directory */
	if (rename(tmp, dst)) {
		lab_info("run %s is in %s already: skipped", id, store_dir(s));
		rm_rf(tmp);
		ret = 1;
		goto out;
	}
	ret = store_index_run(s, id) ? -1 : 0;
	if (!ret)
		lab_info("imported run %s (%u files)", id, n);
out:
	free(tmp);
	free(dst);
	free(why);
	free(rdir);
	return ret;
}

enum store_import_result store_import(struct store *s, const char *src, unsigned int *imported,
				      unsigned int *skipped)
{
	DIR *d = opendir(src);
	struct dirent *e;
	enum store_import_result ret = STORE_IMPORT_OK;

	*imported = *skipped = 0;
	if (!d) {
		lab_err("cannot read the store to import, %s: %s", src, strerror(errno));
		return STORE_IMPORT_NO_SOURCE;
	}
	while ((e = readdir(d))) {
		char *p = xasprintf("%s/%s", src, e->d_name);
		int rc = 0;

		/* run directories: every directory but dot-files (an index, a queue are files) */
		if (e->d_name[0] != '.' && is_dir(p)) {
			rc = name_ok(e->d_name) ? import_one(s, src, e->d_name) : -1;
			if (rc == 0)
				(*imported)++;
			else if (rc == 1)
				(*skipped)++;
			else
				ret = STORE_IMPORT_REFUSED;
		}
		free(p);
	}
	closedir(d);
	return ret;
}
