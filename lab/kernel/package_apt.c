// SPDX-License-Identifier: GPL-2.0
/*
 * package_apt.c - apt's side of a `package:` kernel (package.h): the
 * candidate version and its source (apt-cache policy), the versions there
 * are (apt-cache madison), the names nearest an unknown one (apt-cache
 * pkgnames), and apt-get download into a scratch directory. Every program
 * gets an argv, a deadline and a bounded capture; nothing is installed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/package.h"
#include "kernel/package_int.h"
#include "lib/pkgname.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define APT_CACHE_TIMEOUT_S 120
#define APT_GET_TIMEOUT_S 1800
#define APT_OUT_MAX (4u << 20)

/* run argv; its output (malloc'd) or NULL after a message */
static char *apt_out(const char *const argv[], const char *where)
{
	struct spawn_opts o = { .timeout_s = APT_CACHE_TIMEOUT_S, .capture_max = APT_OUT_MAX };
	struct spawn_result r;
	char why[96], *out = NULL;

	if (spawn_run(argv, &o, &r) == 0)
		out = xstrdup(r.out ? r.out : "");
	else if (r.exit_code != -1 || r.timed_out || r.term_signal)
		lab_err("%s: %s %s failed (%s): %s", where, argv[0], argv[1],
			spawn_describe(&r, o.timeout_s, why, sizeof(why)), spawn_tail(&r, 3));
	spawn_result_free(&r);
	return out;
}

static size_t lev(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xcalloc(lb + 1, sizeof(*row)), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			best = up + 1 < best ? up + 1 : best;
			best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

void pkg_nearest(const char *name, char *names, struct strbuf *sb)
{
	const char *best[PKG_NEAREST] = { 0 };
	size_t dist[PKG_NEAREST] = { 0 };
	char *save = NULL;

	for (char *l = names ? strtok_r(names, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		size_t d, k = PKG_NEAREST;

		if (strlen(l) > PKG_NAME_MAX)
			continue;
		d = lev(name, l);
		while (k > 0 && (!best[k - 1] || d < dist[k - 1] ||
				 (d == dist[k - 1] && strverscmp(l, best[k - 1]) > 0))) {
			if (k < PKG_NEAREST) {
				best[k] = best[k - 1];
				dist[k] = dist[k - 1];
			}
			k--;
		}
		if (k < PKG_NEAREST) {
			best[k] = l;
			dist[k] = d;
		}
	}
	for (size_t k = 0; k < PKG_NEAREST && best[k]; k++)
		strbuf_addsep(sb, ", ", best[k]);
}

/* the PKG_NEAREST names apt knows that start as name does, "a, b, c" or "" */
static void nearest_names(const char *name, struct strbuf *sb)
{
	size_t plen = strcspn(name, "0123456789");
	char *pre = xstrndup(name, plen ? plen : 1), *out;
	const char *argv[] = { "apt-cache", "pkgnames", pre, NULL };

	out = apt_out(argv, "apt-cache");
	pkg_nearest(name, out, sb);
	free(out);
	free(pre);
}

static void unknown_package(const char *name, const char *where)
{
	struct strbuf sb = STRBUF_INIT;

	nearest_names(name, &sb);
	if (sb.len)
		lab_err("%s: apt knows no package '%s'; the nearest are: %s ('apt-cache search "
			"--names-only ^linux-image' lists them)",
			where, name, sb.buf);
	else
		lab_err("%s: apt knows no package '%s' nor any like it; run 'apt-get update' if "
			"apt's lists are empty, and check the name",
			where, name);
	strbuf_release(&sb);
}

/* in apt-cache policy's output: the source line under the candidate's version */
static char *policy_source(const char *out, const char *cand)
{
	const char *v = strstr(out, "Version table:"), *l;
	char *src = NULL;

	for (l = v; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *t = l + strspn(l, " *");
		size_t n = strlen(cand);

		if (strncmp(t, cand, n) || t[n] != ' ')
			continue;
		l = strchr(l, '\n');
		if (!l)
			break;
		l++;
		l += strspn(l, " 0123456789");
		src = xstrndup(l, strcspn(l, "\n"));
		break;
	}
	return src;
}

char *pkg_policy_candidate(const char *out, char **source)
{
	const char *c = strstr(out, "Candidate: ");
	char *cand = NULL;

	*source = NULL;
	if (c) {
		c += strlen("Candidate: ");
		cand = xstrndup(c, strcspn(c, "\n"));
	}
	if (cand && (!strcmp(cand, "(none)") || !pkg_version_ok(cand))) {
		free(cand);
		cand = NULL;
	}
	if (cand)
		*source = policy_source(out, cand);
	return cand;
}

char *pkg_apt_candidate(const char *name, const char *where, char **source)
{
	const char *argv[] = { "apt-cache", "policy", name, NULL };
	char *out = apt_out(argv, where), *cand;

	*source = NULL;
	if (!out)
		return NULL;
	cand = pkg_policy_candidate(out, source);
	if (!cand)
		unknown_package(name, where);
	free(out);
	return cand;
}

/* is v one of the versions in sb ("a, b, c")? */
static bool listed(const struct strbuf *sb, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = sb->buf; (p = strstr(p, v)); p += n)
		if ((p == sb->buf || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

int pkg_madison(char *out, const char *version, struct strbuf *others, size_t *n)
{
	char *save = NULL;
	int found = 0;

	*n = 0;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(l, '|'), *e;

		if (!v)
			continue;
		v += 1 + strspn(v + 1, " ");
		e = strchr(v, ' ');
		if (e)
			*e = '\0';
		if (!*v || !pkg_version_ok(v))
			continue;
		if (!strcmp(v, version))
			found = 1;
		else if (!listed(others, v) && (*n)++ < PKG_VERSIONS_SHOWN)
			strbuf_addsep(others, ", ", v);
	}
	return found;
}

/* in apt-cache madison's output: the source of version's first line, or NULL */
static char *madison_source(const char *out, const char *version)
{
	size_t n = strlen(version);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = memchr(l, '|', strcspn(l, "\n")), *src;

		if (!v)
			continue;
		v += 1 + strspn(v + 1, " ");
		if (strncmp(v, version, n) || v[n] != ' ')
			continue;
		src = memchr(v, '|', strcspn(v, "\n"));
		if (!src)
			continue;
		src += 1 + strspn(src + 1, " ");
		return xstrndup(src, strcspn(src, "\n"));
	}
	return NULL;
}

int pkg_apt_check_version(const char *name, const char *version, const char *where, char **source)
{
	const char *argv[] = { "apt-cache", "madison", name, NULL };
	char *out = apt_out(argv, where);
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	int ret = -1;

	*source = NULL;
	if (!out)
		return -1;
	*source = madison_source(out, version);
	if (pkg_madison(out, version, &sb, &n))
		ret = 0;
	else if (!n)
		unknown_package(name, where);
	else
		lab_err("%s: apt has no version %s of %s; it has: %s%s (apt-cache madison %s)",
			where, version, name, sb.buf, n > PKG_VERSIONS_SHOWN ? ", ..." : "", name);
	if (ret) {
		free(*source);
		*source = NULL;
	}
	strbuf_release(&sb);
	free(out);
	return ret;
}

/* the one .deb apt-get download left in dir (malloc'd), or NULL */
static char *the_deb(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *file = NULL;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 4 && !strcmp(e->d_name + n - 4, ".deb") && !file)
			file = xasprintf("%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	return file;
}

static bool unreachable(const char *out)
{
	static const char *const signs[] = { "Failed to fetch",	  "Could not resolve",
					     "Unable to connect", "Temporary failure",
					     "Could not connect", "Connection failed" };

	for (size_t i = 0; out && i < ARRAY_SIZE(signs); i++)
		if (strstr(out, signs[i]))
			return true;
	return false;
}

int pkg_apt_download(const char *name, const char *version, const char *dir, const char *source,
		     const char *where, char **file)
{
	char *spec = xasprintf("%s=%s", name, version), why[96];
	const char *argv[] = { "apt-get", "download", "-q", spec, NULL };
	struct spawn_opts o = { .cwd = dir, .timeout_s = APT_GET_TIMEOUT_S };
	struct spawn_result r;
	int ret = spawn_run(argv, &o, &r);

	*file = NULL;
	lab_info("apt-get download %s: %s", spec, ret ? "failed" : "done");
	if (ret && unreachable(r.out))
		lab_err("%s: cannot fetch %s: the archive is not reachable (apt source: %s); check "
			"the network or that source in /etc/apt/sources.list(.d), or give the "
			"file as 'deb: FILE'. apt said: %s",
			where, spec, source ? source : "see apt-cache policy", spawn_tail(&r, 2));
	else if (ret)
		lab_err("%s: apt-get download %s failed (%s): %s", where, spec,
			spawn_describe(&r, o.timeout_s, why, sizeof(why)), spawn_tail(&r, 3));
	else if (!(*file = the_deb(dir))) {
		lab_err("%s: apt-get download %s left no .deb in %s", where, spec, dir);
		ret = -1;
	}
	spawn_result_free(&r);
	free(spec);
	return ret ? -1 : 0;
}
