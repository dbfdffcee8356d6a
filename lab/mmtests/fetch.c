// SPDX-License-Identifier: GPL-2.0
/*
 * fetch.c - the files a shellpack's install step downloads (mmtests.h):
 * its "###SHELLPACK sources_fetch", "sources_fetch_p0" and "git_fetch"
 * lines, with the variables they use, read as mmtests'
 * shellpack_src/bin/rewrite-shellpack expands them:
 *
 *   sources_fetch [DIR/]TARFILE SRCDIR
 *       sources_fetch $WEB_LOCATION/[DIR/]TARFILE $MIRROR_LOCATION/TARFILE
 *                     $SHELLPACK_SOURCES/TARFILE $WEB_LOCATION_ALT/[DIR/]TARFILE
 *   git_fetch TARFILE SRCDIR
 *       git_fetch $GIT_LOCATION SRCDIR $MIRROR_LOCATION/TARFILE
 *                 $SHELLPACK_SOURCES/TARFILE ${GIT_FETCH_BRANCH:-$VERSION}
 *
 * MIRROR_LOCATION is "$WEBROOT/<benchmark>": the file's place in a mirror
 * is <benchmark>/TARFILE. The script comes from the user's tree and is
 * untrusted: variables are expanded from the script's own plain
 * assignments only (a command substitution or an unknown variable makes
 * the value unknown), every name and URL is checked, lines, values and
 * the number of fetches are bounded.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"

#define LINE_MAX_LEN 4096
#define VALUE_MAX 1024
#define MAX_VARS 128
/* WEBROOT's stand-in in a value: a byte no accepted value holds */
#define WEBROOT_MARK "\001"

#define FILE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"

bool mmtests_source_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 200 && s[0] != '.' && s[0] != '-' && strspn(s, FILE_CHARS) == n;
}

/* a URL mmlab may hand to curl or git as one argument */
static bool url_ok(const char *s, bool git)
{
	size_t n = strlen(s);

	if (n > 2048 || (strncmp(s, "http://", 7) && strncmp(s, "https://", 8) &&
			 (!git || strncmp(s, "git://", 6))))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || strchr("\"'`\\<>", s[i]))
			return false;
	return true;
}

struct pscan {
	const char *pack;
	struct kvlist vars; /* known values; "" with unknown set: unknown */
	struct strlist unknown; /* variables assigned something mmlab cannot tell */
	struct mmtests_fetches *out;
	char *why;
};

/* s with $NAME, ${NAME} of the script's values; NULL when one is unknown */
static char *expand(struct pscan *ps, const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *end = s + n;

	while (s < end) {
		const char *v;
		size_t k;
		char *name;
		bool br;

		if (*s == '`' || (*s == '$' && s + 1 < end && s[1] == '('))
			goto unknown;
		if (*s != '$') {
			strbuf_addch(&sb, *s++);
			continue;
		}
		br = s + 1 < end && s[1] == '{';
		s += 1 + br;
		for (k = 0; s + k < end && (isalnum((unsigned char)s[k]) || s[k] == '_'); k++)
			;
		if (!k || (br && (s + k >= end || s[k] != '}')))
			goto unknown;
		name = xstrndup(s, k);
		v = kvlist_get(&ps->vars, name);
		if (!v && !strcmp(name, "WEBROOT"))
			v = WEBROOT_MARK;
		if (strlist_has(&ps->unknown, name))
			v = NULL;
		free(name);
		if (!v)
			goto unknown;
		strbuf_addstr(&sb, v);
		s += k + br;
		if (sb.len > VALUE_MAX)
			goto unknown;
	}
	return strbuf_detach(&sb);
unknown:
	strbuf_release(&sb);
	return NULL;
}

/* a value kept: no control byte but WEBROOT's mark at its start */
static bool value_ok(const char *v)
{
	if (!v || strlen(v) > VALUE_MAX)
		return false;
	for (size_t i = 0; v[i]; i++)
		if (((unsigned char)v[i] < ' ' && !(i == 0 && v[i] == WEBROOT_MARK[0])) ||
		    v[i] == 0x7f)
			return false;
	return true;
}

static void set_var(struct pscan *ps, const char *name, const char *val)
{
	bool known = value_ok(val);

	if (ps->vars.n >= MAX_VARS && !kvlist_get(&ps->vars, name))
		return;
	kvlist_set(&ps->vars, name, known ? val : "");
	if (!known && !strlist_has(&ps->unknown, name))
		strlist_push(&ps->unknown, name);
	else if (known && strlist_has(&ps->unknown, name))
		for (size_t i = 0; i < ps->unknown.n; i++)
			if (!strcmp(ps->unknown.v[i], name))
				ps->unknown.v[i][0] = '\0'; /* known again */
}

/* NAME=VALUE or export NAME=VALUE at p: the script's own plain assignment */
static void assignment(struct pscan *ps, const char *p)
{
	const char *eq, *v;
	size_t n;
	char *name, *val = NULL;

	if (!strncmp(p, "export", 6) && (p[6] == ' ' || p[6] == '\t'))
		p += 6 + strspn(p + 6, " \t");
	eq = strchr(p, '=');
	if (!eq || eq == p || !isupper((unsigned char)*p) ||
	    strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - p))
		return;
	name = xstrndup(p, (size_t)(eq - p));
	v = eq + 1;
	if (*v == '"' || *v == '\'') {
		n = strcspn(v + 1, *v == '"' ? "\"" : "'");
		if (v[1 + n]) /* closed */
			val = *v == '"' ? expand(ps, v + 1, n) : xstrndup(v + 1, n);
	} else {
		n = strcspn(v, " \t;#");
		val = expand(ps, v, n);
	}
	set_var(ps, name, val);
	free(name);
	free(val);
}

/* the next word at *p (blanks skipped): its length */
static size_t next_word(const char **p)
{
	*p += strspn(*p, " \t");
	return strcspn(*p, " \t");
}

static char *var_or_null(struct pscan *ps, const char *name)
{
	const char *v = kvlist_get(&ps->vars, name);

	return v && *v && !strlist_has(&ps->unknown, name) && strcmp(v, "NOT_AVAILABLE") ?
		       xstrdup(v) :
		       NULL;
}

/* where a mirror holds file: MIRROR_LOCATION under $WEBROOT, else <pack>/file */
static char *mirror_path(struct pscan *ps, const char *file)
{
	char *ml = var_or_null(ps, "MIRROR_LOCATION"), *out = NULL;
	struct strbuf sb = STRBUF_INIT;

	if (ml && !strncmp(ml, WEBROOT_MARK, 1)) {
		/* "$WEBROOT/netcdf/" -> "netcdf", each part a plain name */
		char *save = NULL;

		for (char *c = strtok_r(ml + 1, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
			if (!mmtests_source_name_ok(c)) {
				strbuf_reset(&sb);
				break;
			}
			strbuf_addf(&sb, "%s/", c);
		}
		/* MIRROR_LOCATION naming the file itself (stream's mysecond.c) */
		if (sb.len > strlen(file) + 1 &&
		    !strncmp(sb.buf + sb.len - strlen(file) - 1, file, strlen(file)))
			sb.buf[sb.len -= strlen(file) + 1] = '\0';
	}
	if (!sb.len)
		strbuf_addf(&sb, "%s/", ps->pack);
	strbuf_addstr(&sb, file);
	out = strbuf_detach(&sb);
	free(ml);
	return out;
}

static char *url_of(struct pscan *ps, const char *var, const char *dir, const char *file)
{
	char *loc = var_or_null(ps, var), *u = NULL;

	if (!loc)
		return NULL;
	while (*loc && loc[strlen(loc) - 1] == '/')
		loc[strlen(loc) - 1] = '\0';
	u = xasprintf("%s/%s%s", loc, dir, file);
	if (!url_ok(u, false)) {
		free(u);
		u = NULL;
	}
	free(loc);
	return u;
}

/* the version git_fetch checks out: GIT_FETCH_BRANCH, else VERSION; 0 is master */
static char *git_commit(struct pscan *ps)
{
	char *c = var_or_null(ps, "GIT_FETCH_BRANCH");

	if (!c)
		c = var_or_null(ps, "VERSION");
	if (!c || !strcmp(c, "0")) {
		free(c);
		c = xstrdup("master");
	}
	if (c[0] == '-' || strlen(c) > 200 || strspn(c, FILE_CHARS "/") != strlen(c)) {
		free(c);
		return NULL;
	}
	return c;
}

static void fetch_free(struct mmtests_fetch *f)
{
	free(f->bench);
	free(f->pack);
	free(f->file);
	free(f->mirror);
	free(f->url);
	free(f->url_alt);
	free(f->srcdir);
	free(f->commit);
}

void mmtests_fetches_free(struct mmtests_fetches *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		fetch_free(&fs->v[i]);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

/* "###SHELLPACK sources_fetch [DIR/]TARFILE SRCDIR" at p (after the macro's name) */
static int fetch_macro(struct pscan *ps, const char *p, enum mmtests_fetch_kind kind, bool alt,
		       unsigned int lno)
{
	struct mmtests_fetch f = { .kind = kind, .line = lno };
	char *arg = NULL, *dir = NULL, *slash;
	size_t n = next_word(&p);

	arg = n ? expand(ps, p, n) : NULL;
	p += n;
	n = next_word(&p);
	f.srcdir = n ? expand(ps, p, n) : NULL;
	if (arg && (slash = strchr(arg, '/'))) { /* rewrite-shellpack: one DIR/ at most */
		*slash = '\0';
		dir = xasprintf("%s/", arg);
		f.file = xstrdup(slash + 1);
		if (!mmtests_source_name_ok(arg)) {
			free(f.file);
			f.file = NULL;
		}
	} else if (arg) {
		f.file = xstrdup(arg);
	}
	if (!f.file || !mmtests_source_name_ok(f.file) || !f.srcdir ||
	    !mmtests_source_name_ok(f.srcdir)) {
		ps->why = xasprintf(
			"line %u: mmlab cannot tell the file or directory of this %s (it must be a plain name after the script's own variables are expanded)",
			lno, kind == MMTESTS_FETCH_GIT ? "git_fetch" : "sources_fetch");
		free(arg);
		free(dir);
		fetch_free(&f);
		return -1;
	}
	f.pack = xstrdup(ps->pack);
	f.mirror = mirror_path(ps, f.file);
	if (kind == MMTESTS_FETCH_GIT) {
		f.url = var_or_null(ps, "GIT_LOCATION");
		if (f.url && !url_ok(f.url, true)) {
			free(f.url);
			f.url = NULL;
		}
		f.commit = git_commit(ps);
	} else {
		f.url = url_of(ps, "WEB_LOCATION", dir ? dir : "", f.file);
		if (alt)
			f.url_alt = url_of(ps, "WEB_LOCATION_ALT", dir ? dir : "", f.file);
	}
	free(arg);
	free(dir);
	if (ps->out->n >= MMTESTS_MAX_FETCHES) {
		ps->why = xasprintf("line %u: more than %d downloads in one shellpack", lno,
				    MMTESTS_MAX_FETCHES);
		fetch_free(&f);
		return -1;
	}
	ps->out->v = xrealloc(ps->out->v, (ps->out->n + 1) * sizeof(f));
	ps->out->v[ps->out->n++] = f;
	return 0;
}

/* one logical line */
static int scan_line(struct pscan *ps, const char *line, unsigned int lno)
{
	const char *p = line;
	size_t n = next_word(&p);

	if (n != 12 || strncmp(p, "###SHELLPACK", 12)) {
		assignment(ps, p);
		return 0;
	}
	p += n;
	n = next_word(&p);
	if (n == 8 && !strncmp(p, "preamble", 8)) {
		char *v;

		p += n;
		p += next_word(&p);
		n = next_word(&p);
		v = n ? xstrndup(p, n) : NULL;
		set_var(ps, "VERSION", v);
		free(v);
		return 0;
	}
	if (n == 13 && !strncmp(p, "sources_fetch", 13))
		return fetch_macro(ps, p + n, MMTESTS_FETCH_TAR, true, lno);
	if (n == 16 && !strncmp(p, "sources_fetch_p0", 16))
		return fetch_macro(ps, p + n, MMTESTS_FETCH_TAR, false, lno);
	if (n == 9 && !strncmp(p, "git_fetch", 9))
		return fetch_macro(ps, p + n, MMTESTS_FETCH_GIT, false, lno);
	return 0;
}

int mmtests_fetch_parse(const char *text, size_t len, const char *pack, struct mmtests_fetches *out,
			char **why)
{
	struct pscan ps = { .pack = pack, .out = out };
	struct strbuf sb = STRBUF_INIT;
	unsigned int lno = 0, first = 1;
	const char *p = text, *end = text + len;
	bool skip = false, open = false; /* skip: too long or with a NUL */
	int ret = 0;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	while (!ret && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool cont = n && p[n - 1] == '\\';

		lno++;
		if (!open)
			first = lno;
		open = true;
		if (!skip && sb.len + n <= LINE_MAX_LEN && !memchr(p, '\0', n))
			strbuf_add(&sb, p, n - cont);
		else
			skip = true; /* no assignment, no macro */
		if (!cont) {
			if (!skip)
				ret = scan_line(&ps, sb.buf ? sb.buf : "", first);
			strbuf_reset(&sb);
			skip = open = false;
		}
		p += n + (nl != NULL);
	}
	if (!ret && open && !skip)
		ret = scan_line(&ps, sb.buf ? sb.buf : "", first);
	strbuf_release(&sb);
	kvlist_free(&ps.vars);
	strlist_free(&ps.unknown);
	if (ret) {
		*why = ps.why;
		mmtests_fetches_free(out);
	}
	return ret;
}
