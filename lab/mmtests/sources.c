// SPDX-License-Identifier: GPL-2.0
/*
 * sources.c - the files shellpacks fetch, found on the host before any
 * boot (mmtests.h, mmtests_sources()), in this order:
 *
 *   the mirror   the job's workload.mmtests.mirror, laid out as mmtests'
 *                WEBROOT: <benchmark>/<file> (fetch.c reads which)
 *   the cache    $MMLAB_CACHE/mmtests-sources/<benchmark>/<file>, with
 *                <file>.json beside it: its size, SHA256, URL and when it
 *                was fetched; a file that no longer matches is fetched again
 *   the network  the shellpack's own URL, on the host, into the cache:
 *                sources_fetch with curl (WEB_LOCATION, then
 *                WEB_LOCATION_ALT), git_fetch with git clone at the
 *                shellpack's version and git archive --prefix=SRCDIR/ of
 *                it as a gzipped tar, the file mmtests' own mirror holds
 *
 * curl and git are spawned with argv and a deadline (lib/spawn.h); curl
 * rather than libcurl because mmlab does not link it and one download per
 * file per host needs no library; git is already what kernel/ runs. A
 * file is written under a temporary name and renamed into place once it
 * is complete, so a killed download leaves no entry.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/timefmt.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"
#include "mmtests/sources_json.h"

#define SOURCE_MAX_BYTES "4G"
#define CURL_TIMEOUT_S 1800
#define GIT_TIMEOUT_S 3600

static bool regular_file(const char *p, off_t *size)
{
	struct stat st;

	if (stat(p, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return false;
	if (size)
		*size = st.st_size;
	return true;
}

/* the cached file, if its record still matches it */
static char *in_cache(const char *dir, const struct mmtests_fetch *f)
{
	char *path = xasprintf("%s/%s", dir, f->mirror), *meta = xasprintf("%s.json", path);
	char *text = NULL, sha[65];
	struct source_meta m = { 0 };
	off_t size;
	size_t len;

	if (!regular_file(path, &size) || !path_exists(meta))
		goto miss;
	text = read_file(meta, &len, SOURCE_META_MAX);
	if (!text || source_meta_parse(text, len, &m) || m.size != (uint64_t)size ||
	    sha256_file(path, sha) || strcmp(sha, m.sha256)) {
		lab_warn("the cached %s does not match its record %s; fetched again", path, meta);
		unlink(path);
		unlink(meta);
		goto miss;
	}
	source_meta_free(&m);
	free(text);
	free(meta);
	return path;
miss:
	source_meta_free(&m);
	free(text);
	free(meta);
	free(path);
	return NULL;
}

/* the record beside a file just fetched into the cache */
static int record(const char *path, const char *url, const struct mmtests_fetch *f)
{
	char when[TIME_STR_LEN], *meta, *text;
	struct source_meta m = { 0 };
	off_t size = 0;
	int ret;

	if (!regular_file(path, &size) || sha256_file(path, m.sha256))
		return -1;
	m.size = (uint64_t)size;
	m.url = (char *)url;
	m.fetched = time_iso_now(when);
	m.by = f->kind == MMTESTS_FETCH_GIT ? "git archive" : "curl";
	m.commit = f->kind == MMTESTS_FETCH_GIT ? f->commit : NULL;
	text = source_meta_dump(&m); /* m borrows its strings: not freed */
	if (!text)
		return -1;
	meta = xasprintf("%s.json", path);
	ret = write_file_atomic(meta, text, strlen(text), 0644);
	free(meta);
	free(text);
	return ret;
}

/* the last lines of a program's output, for one sentence: no trailing newline */
static const char *tail(struct spawn_result *r)
{
	while (r->out_len && (r->out[r->out_len - 1] == '\n' || r->out[r->out_len - 1] == ' '))
		r->out[--r->out_len] = '\0';
	return spawn_tail(r, 2);
}

static int curl(const char *url, const char *out, struct strbuf *why)
{
	const char *argv[] = { "curl",
			       "--fail",
			       "--silent",
			       "--show-error",
			       "--location",
			       "--proto",
			       "=http,https",
			       "--proto-redir",
			       "=http,https",
			       "--max-filesize",
			       SOURCE_MAX_BYTES,
			       "--connect-timeout",
			       "30",
			       "--output",
			       out,
			       "--",
			       url,
			       NULL };
	struct spawn_opts o = { .timeout_s = CURL_TIMEOUT_S };
	struct spawn_result r = { 0 };
	char buf[128];
	int ret = spawn_run(argv, &o, &r);

	if (ret)
		strbuf_addf(why, "%scurl %s %s: %s", why->len ? "; " : "", url,
			    spawn_describe(&r, o.timeout_s, buf, sizeof(buf)), tail(&r));
	spawn_result_free(&r);
	return ret ? -1 : 0;
}

static int git(const char *const *argv, unsigned int timeout, struct strbuf *why)
{
	static const char *const env[] = { "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true", NULL };
	struct spawn_opts o = { .timeout_s = timeout, .env = env };
	struct spawn_result r = { 0 };
	char buf[128];
	int ret = spawn_run(argv, &o, &r);

	if (ret && why)
		strbuf_addf(why, "git %s %s: %s", argv[3],
			    spawn_describe(&r, o.timeout_s, buf, sizeof(buf)), tail(&r));
	spawn_result_free(&r);
	return ret ? -1 : 0;
}

/* the revision git_fetch would archive: f->commit, else the remote's branch, else HEAD */
static char *git_rev(const char *clone, const struct mmtests_fetch *f)
{
	const char *const cand[] = { "%s^{commit}", "origin/%s^{commit}" };

	for (size_t i = 0; f->commit && i < ARRAY_SIZE(cand); i++) {
		char *rev = xasprintf(cand[i], f->commit);
		const char *argv[] = { "git",	   "-C",      clone, "rev-parse",
				       "--verify", "--quiet", rev,   NULL };

		if (!git(argv, 60, NULL))
			return rev;
		free(rev);
	}
	lab_warn("mmtests: %s has no %s; its default branch is archived, as mmtests' git_fetch "
		 "falls back to master",
		 f->url, f->commit ? f->commit : "version");
	return xstrdup("HEAD");
}

/* git clone at the shellpack's version, packed as mmtests' mirror holds it */
static int git_pack(const struct mmtests_fetch *f, const char *out, struct strbuf *why)
{
	char *clone = xasprintf("%s.clone", out), *rev, *prefix;
	const char *cl[] = { "git",   "-c",	 "advice.detachedHead=false",
			     "clone", "--quiet", "--no-checkout",
			     "--",    f->url,	 clone,
			     NULL };
	int ret;

	rm_rf(clone);
	ret = git(cl, GIT_TIMEOUT_S, why);
	if (!ret) {
		rev = git_rev(clone, f);
		prefix = xasprintf("--prefix=%s/", f->srcdir);
		{
			const char *ar[] = {
				"git",	"-C",	    clone, "archive", "--format=tar.gz",
				prefix, "--output", out,   "--",      rev,
				NULL
			};

			ret = git(ar, GIT_TIMEOUT_S, why);
		}
		free(prefix);
		free(rev);
	}
	rm_rf(clone);
	free(clone);
	return ret;
}

/* f fetched from its URL into the cache at path */
static int download(const struct mmtests_fetch *f, const char *path, struct strbuf *why)
{
	char *dir = xstrdup(path), *tmp = xasprintf("%s.part.%ld", path, (long)getpid());
	const char *used = NULL;
	int ret = -1;

	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir, 0755))
		goto out;
	if (f->kind == MMTESTS_FETCH_GIT) {
		lab_info("mmtests: cloning %s at %s for %s (git_fetch)", f->url, f->commit,
			 f->file);
		if (!git_pack(f, tmp, why))
			used = f->url;
	} else {
		const char *urls[] = { f->url, f->url_alt };

		for (size_t i = 0; !used && i < ARRAY_SIZE(urls); i++) {
			if (!urls[i])
				continue;
			lab_info("mmtests: downloading %s (sources_fetch)", urls[i]);
			if (!curl(urls[i], tmp, why))
				used = urls[i];
		}
	}
	if (used && regular_file(tmp, NULL) && !rename(tmp, path) && !record(path, used, f))
		ret = 0;
	else if (used)
		strbuf_addf(why, "%s was empty or could not be stored in %s", used, dir);
out:
	unlink(tmp);
	free(tmp);
	free(dir);
	return ret;
}

static int refuse(const struct mmtests_fetch *f, const char *mirror, const char *cache,
		  const char *why)
{
	const char *macro = f->kind == MMTESTS_FETCH_GIT ? "git_fetch" : "sources_fetch";
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(
		&sb,
		"mmtests benchmark '%s' needs %s (shellpack_src/src/%s/%s-install line %u: %s), which is ",
		f->bench ? f->bench : f->pack, f->file, f->pack, f->pack, f->line, macro);
	strbuf_addstr(&sb, mirror ? "neither in the mirror nor in the cache" :
				    "not in the cache (the job gives no mirror)");
	if (f->url || f->url_alt)
		strbuf_addf(&sb, ", and its URL %s could not be fetched on the host (%s)",
			    f->url ? f->url : f->url_alt, why && *why ? why : "no cache directory");
	else
		strbuf_addstr(
			&sb,
			", and its URL is not known (the shellpack gives none mmlab can read)");
	if (mirror)
		strbuf_addf(&sb, ". Put the file in the mirror at %s/%s", mirror, f->mirror);
	else
		strbuf_addf(
			&sb,
			". Put the file in a mirror at MIRROR/%s (workload.mmtests.mirror: MIRROR, laid out as mmtests' WEBROOT)",
			f->mirror);
	strbuf_addf(&sb, ", or in the cache at %s/%s", cache, f->mirror);
	lab_err("%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

int mmtests_sources(const struct mmtests_fetches *fetches, const char *mirror,
		    const char *cache_dir, struct kvlist *files)
{
	char *cache = xasprintf("%s/mmtests-sources", cache_dir ? cache_dir : ".");
	int ret = 0;

	for (size_t i = 0; !ret && i < fetches->n; i++) {
		const struct mmtests_fetch *f = &fetches->v[i];
		char *path = mirror ? xasprintf("%s/%s", mirror, f->mirror) : NULL;
		struct strbuf why = STRBUF_INIT;

		if (kvlist_get(files, f->file)) {
			free(path);
			continue;
		}
		if (path && regular_file(path, NULL)) {
			lab_info("mmtests: %s from the mirror: %s", f->file, path);
		} else {
			free(path);
			path = in_cache(cache, f);
			if (!path && (f->url || f->url_alt) && cache_dir) {
				path = xasprintf("%s/%s", cache, f->mirror);
				if (download(f, path, &why)) {
					free(path);
					path = NULL;
				}
			}
			if (path)
				lab_info("mmtests: %s from the cache: %s", f->file, path);
		}
		if (path)
			kvlist_set(files, f->file, path);
		else
			ret = refuse(f, mirror, cache, why.buf);
		strbuf_release(&why);
		free(path);
	}
	free(cache);
	return ret;
}
