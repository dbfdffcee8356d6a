// SPDX-License-Identifier: GPL-2.0
/*
 * needs.c - what an mmtests config needs in the guest (mmtests.h), read
 * from mmtests' own files, never from a list of mmlab's:
 *
 *   run-mmtests.sh                      its install-depends lines (what
 *                                       mmtests itself needs)
 *   drivers/driver-<bench>.sh           the shellpacks it runs
 *   shellpack_src/src/<pack>/<pack>-install, -bench
 *                                       their install-depends; a
 *                                       sources_fetch or git_fetch in an
 *                                       install step is a download
 *   bin/install-depends                 its "debian::NAME" => "DEBIAN" map
 *
 * mmtests' names are openSUSE's; those the map does not cover are kept
 * as they are when Debian has them (apt-cache policy) and listed as
 * missing when it does not. A download in a benchmark's own install step
 * refuses the config. A download of an external package a benchmark
 * checks for (thpchallenge's fio) is met by Debian's package of that name
 * when there is one: the script makes the directory mmtests looks for.
 */
#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"

#define SCRIPT_MAX (4u << 20)
#define MAX_PACKS 32
#define MAX_NAMES 512
/*
 * What mmtests' scripts run without an install-depends for it (openSUSE
 * has it in every install; Debian's minbase does not): free and ps,
 * lsmod and modprobe.
 */
static const char *const base_packages[] = { "procps", "kmod" };

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-"

/*
 * A package or shellpack name from the user's tree: it becomes an
 * argument of apt-cache and part of a path, so it starts with a letter or
 * digit (no option, no "..") and has only NAME_CHARS.
 */
static bool name_ok(const char *s, size_t n)
{
	return n && n <= 64 && isalnum((unsigned char)s[0]) && strspn(s, NAME_CHARS) >= n;
}

/* an external package a benchmark checks for, whose install step downloads */
struct external {
	char *pack, *dir; /* its shellpack; the directory under work/sources */
	char *rel, *what, *bench; /* where it downloads and how; who needs it */
	unsigned int line;
	bool raw; /* downloads other than with mmtests' macros: no mirror helps */
	struct mmtests_fetches fetches; /* what its macros fetch */
	struct strlist names; /* its install-depends, needed if it is built */
};

struct scan {
	const char *dir; /* the mmtests tree */
	struct strlist names; /* mmtests' package names, each once */
	struct strlist sources;
	struct external *ext; /* met by Debian's package PACK, else built */
	size_t next;
	struct mmtests_fetches fetches; /* of the benchmarks' own install steps */
};

static void push_once(struct strlist *l, const char *s)
{
	if (!strlist_has(l, s))
		strlist_push(l, s);
}

/* a file of the tree (rel), or NULL when it is not there */
static char *tree_file(const char *dir, const char *rel, size_t *len)
{
	char *p = xasprintf("%s/%s", dir, rel), *t = NULL;

	if (path_exists(p))
		t = read_file(p, len, SCRIPT_MAX);
	free(p);
	return t;
}

/* the logical lines of a shell script: continuations joined, one call each */
static void each_line(const char *text, void (*fn)(const char *line, unsigned int lno, void *arg),
		      void *arg)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned int lno = 0, first = 1;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		lno++;
		if (!sb.len)
			first = lno;
		if (n && p[n - 1] == '\\') {
			strbuf_add(&sb, p, n - 1);
			strbuf_addch(&sb, ' ');
		} else {
			strbuf_add(&sb, p, n);
			fn(sb.buf, first, arg);
			strbuf_reset(&sb);
		}
		p += n + (nl != NULL);
	}
	if (sb.len)
		fn(sb.buf, first, arg);
	strbuf_release(&sb);
}

/* the first word of line after blanks: its length, and where it starts */
static size_t word(const char **line)
{
	*line += strspn(*line, " \t");
	return strcspn(*line, " \t");
}

struct depends_arg {
	struct strlist *names;
	bool any;
};

static void depends_line(const char *line, unsigned int lno, void *arg)
{
	struct depends_arg *d = arg;
	const char *p = line;
	size_t n = word(&p);

	(void)lno;
	if (n != 15 || strncmp(p, "install-depends", 15))
		return;
	p += n;
	while ((n = word(&p))) {
		char *w;

		if (strchr("#;|&<>`(", *p))
			break;
		w = xasprintf("%.*s", (int)n, p);
		p += n;
		if (!name_ok(w, n) || d->names->n >= MAX_NAMES) {
			free(w);
			continue; /* "$PACKAGE" and the like: not a name */
		}
		push_once(d->names, w);
		d->any = true;
		free(w);
	}
}

static void depends(struct scan *s, const char *text, const char *source)
{
	struct depends_arg d = { .names = &s->names };

	each_line(text, depends_line, &d);
	if (d.any)
		push_once(&s->sources, source);
}

/* ---- downloads ---- */

struct fetch_arg {
	unsigned int line;
	char what[32];
	bool macros; /* mmtests' sources_fetch and git_fetch count too */
};

static void fetch_line(const char *line, unsigned int lno, void *arg)
{
	static const char *const macros[] = { "sources_fetch", "sources_fetch_p0", "git_fetch" };
	struct fetch_arg *f = arg;
	const char *p = line;
	size_t n = word(&p);

	if (f->line)
		return;
	if (n == 12 && !strncmp(p, "###SHELLPACK", 12)) {
		p += n;
		n = word(&p);
		for (size_t i = 0; f->macros && i < ARRAY_SIZE(macros); i++)
			if (n == strlen(macros[i]) && !strncmp(p, macros[i], n)) {
				f->line = lno;
				snprintf(f->what, sizeof(f->what), "%s", macros[i]);
			}
	} else if ((n == 4 && !strncmp(p, "wget", 4)) || (n == 4 && !strncmp(p, "curl", 4))) {
		f->line = lno;
		snprintf(f->what, sizeof(f->what), "%.4s", p);
	} else if (n == 3 && !strncmp(p, "git", 3)) {
		p += n;
		n = word(&p);
		if (n == 5 && !strncmp(p, "clone", 5)) {
			f->line = lno;
			snprintf(f->what, sizeof(f->what), "git clone");
		}
	}
}

/*
 * The line of text that downloads (0: none) and how; with macros false,
 * only a download other than mmtests' sources_fetch and git_fetch (which
 * a mirror or the host's cache stands in for: fetch.c, sources.c).
 */
static unsigned int downloads(const char *text, char what[32], bool macros)
{
	struct fetch_arg f = { .macros = macros };

	each_line(text, fetch_line, &f);
	memcpy(what, f.what, sizeof(f.what));
	return f.line;
}

/* ---- the externals a benchmark checks for ---- */

struct vars_arg {
	struct kvlist vars;
	struct strlist ext; /* "PACK DIR" as written */
};

static void vars_line(const char *line, unsigned int lno, void *arg)
{
	struct vars_arg *v = arg;
	const char *p = line, *eq;
	size_t n = word(&p);
	char *name, *val;

	(void)lno;
	if (n == 12 && !strncmp(p, "###SHELLPACK", 12)) {
		const char *q = p + n;
		size_t m = word(&q);

		if (m == 8 && !strncmp(q, "preamble", 8)) {
			q += m;
			m = word(&q);
			q += m;
			m = word(&q);
			if (m) {
				val = xasprintf("%.*s", (int)m, q);
				kvlist_set(&v->vars, "VERSION", val);
				free(val);
			}
		} else if (m == 31 && !strncmp(q, "check_external_install_required", 31)) {
			q += m;
			m = word(&q);
			val = xasprintf("%.*s", (int)m, q);
			q += m;
			m = word(&q);
			strlist_pushf(&v->ext, "%s %.*s", val, (int)m, q);
			free(val);
		}
		return;
	}
	if (n == 6 && !strncmp(p, "export", 6)) {
		p += n;
		word(&p);
	}
	eq = strchr(p, '=');
	if (!eq || eq == p ||
	    strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - p))
		return;
	name = xasprintf("%.*s", (int)(eq - p), p);
	eq++;
	if (*eq == '"' || *eq == '\'')
		val = xasprintf("%.*s", (int)strcspn(eq + 1, *eq == '"' ? "\"" : "'"), eq + 1);
	else
		val = xasprintf("%.*s", (int)strcspn(eq, " \t;#"), eq);
	if (!strchr(val, '$') && !strchr(val, '`'))
		kvlist_set(&v->vars, name, val);
	free(name);
	free(val);
}

/* s with $NAME and ${NAME} of vars replaced; NULL if one is not known */
static char *expand(const char *s, const struct kvlist *vars)
{
	struct strbuf sb = STRBUF_INIT;

	while (*s) {
		const char *v;
		size_t n;
		char *name;
		bool br;

		if (*s != '$') {
			strbuf_addch(&sb, *s++);
			continue;
		}
		br = s[1] == '{';
		s += 1 + br;
		n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		name = xasprintf("%.*s", (int)n, s);
		v = kvlist_get(vars, name);
		free(name);
		if (!v || !n || (br && s[n] != '}')) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_addstr(&sb, v);
		s += n + br;
	}
	return strbuf_detach(&sb);
}

/* ---- one benchmark ---- */

static int refuse_download(const char *bench, const char *pack, const char *rel, unsigned int line,
			   const char *what, const char *via)
{
	lab_err("mmtests benchmark '%s' cannot run in the guest: %s%s%s%s downloads its sources "
		"(%s line %u: %s) and the guest has no network. Choose a config whose "
		"benchmarks build from mmtests' own files (thpchallenge does) or fetch with "
		"mmtests' sources_fetch or git_fetch (workload.mmtests.mirror serves those)%s",
		bench, pack, via ? " (" : "", via ? via : "", via ? ")" : "", rel, line, what,
		via ? "" : ", or install the program in the image and drop the download");
	return -1;
}

/* from's fetches appended to to's, each file once; from is emptied */
static void take_fetches(struct mmtests_fetches *to, struct mmtests_fetches *from)
{
	for (size_t i = 0; i < from->n; i++) {
		bool dup = false;

		for (size_t j = 0; j < to->n; j++)
			dup |= !strcmp(to->v[j].file, from->v[i].file);
		if (dup)
			continue;
		to->v = xrealloc(to->v, (to->n + 1) * sizeof(*to->v));
		to->v[to->n++] = from->v[i];
		memset(&from->v[i], 0, sizeof(from->v[i]));
	}
	mmtests_fetches_free(from);
}

/* the fetches of an install script into out, each with the benchmark that needs it */
static int read_fetches(const char *text, size_t len, const char *bench, const char *pack,
			const char *rel, struct mmtests_fetches *out)
{
	struct mmtests_fetches fs;
	char *why;

	if (mmtests_fetch_parse(text, len, pack, &fs, &why)) {
		lab_err("mmtests benchmark '%s' cannot run in the guest: %s %s", bench, rel, why);
		free(why);
		return -1;
	}
	for (size_t i = 0; i < fs.n; i++)
		fs.v[i].bench = xstrdup(bench);
	take_fetches(out, &fs);
	return 0;
}

static void external_free(struct external *e)
{
	free(e->pack);
	free(e->dir);
	free(e->rel);
	free(e->what);
	free(e->bench);
	mmtests_fetches_free(&e->fetches);
	strlist_free(&e->names);
}

/*
 * The external PACK a bench checks for in DIR: scanned when its install
 * step downloads nothing; otherwise met by Debian's package of that name,
 * or built from what its sources_fetch and git_fetch get (resolve()).
 */
static int external(struct scan *s, const char *bench, const char *pack, const char *dir)
{
	char *rel = xasprintf("shellpack_src/src/%s/%s-install", pack, pack), *text, what[32];
	char rwhat[32];
	struct external *e;
	unsigned int line, raw;
	size_t len;
	int ret = 0;

	text = tree_file(s->dir, rel, &len);
	line = text ? downloads(text, what, true) : 0;
	if (text && !line)
		depends(s, text, bench);
	if (!line)
		goto out;
	if (!dir) {
		ret = refuse_download(bench, pack, rel, line, what,
				      "an external package whose directory mmlab cannot tell");
		goto out;
	}
	for (size_t i = 0; i < s->next; i++)
		if (!strcmp(s->ext[i].pack, pack))
			goto out;
	if (s->next >= MAX_PACKS)
		goto out;
	raw = downloads(text, rwhat, false); /* a download no mirror stands in for */
	s->ext = xrealloc(s->ext, (s->next + 1) * sizeof(*s->ext));
	e = &s->ext[s->next++];
	*e = (struct external){ .pack = xstrdup(pack),
				.dir = xstrdup(dir),
				.rel = xstrdup(rel),
				.what = xstrdup(raw ? rwhat : what),
				.bench = xstrdup(bench),
				.line = raw ? raw : line,
				.raw = raw != 0 };
	if (!e->raw) {
		struct depends_arg d = { .names = &e->names };

		each_line(text, depends_line, &d);
		ret = read_fetches(text, len, bench, pack, rel, &e->fetches);
	}
out:
	free(text);
	free(rel);
	return ret;
}

/* the externals a script checks for (check_external_install_required) */
static int externals(struct scan *s, const char *bench, const char *text)
{
	struct vars_arg va = { 0 };
	int ret = 0;

	each_line(text, vars_line, &va);
	for (size_t i = 0; !ret && i < va.ext.n; i++) {
		char *sp = strchr(va.ext.v[i], ' '), *d;

		*sp = '\0';
		d = expand(sp + 1, &va.vars);
		if (d && !name_ok(d, strlen(d))) { /* a directory name under work/sources */
			free(d);
			d = NULL;
		}
		if (name_ok(va.ext.v[i], strlen(va.ext.v[i])))
			ret = external(s, bench, va.ext.v[i], d);
		free(d);
	}
	kvlist_free(&va.vars);
	strlist_free(&va.ext);
	return ret;
}

static int pack_scripts(struct scan *s, const char *bench, const char *pack)
{
	static const char *const kinds[] = { "install", "bench" };
	int ret = 0;

	for (size_t k = 0; !ret && k < ARRAY_SIZE(kinds); k++) {
		char *rel = xasprintf("shellpack_src/src/%s/%s-%s", pack, pack, kinds[k]), what[32];
		size_t len;
		char *text = tree_file(s->dir, rel, &len);
		unsigned int line;

		if (!text) {
			free(rel);
			continue;
		}
		depends(s, text, bench);
		/* mmtests' own fetches are met on the host; any other download refuses */
		line = !k ? downloads(text, what, false) : 0;
		if (line)
			ret = refuse_download(bench, pack, rel, line, what, NULL);
		else if (!k)
			ret = read_fetches(text, len, bench, pack, rel, &s->fetches);
		if (!ret)
			ret = externals(s, bench, text);
		free(text);
		free(rel);
	}
	return ret;
}

/* the shellpacks drivers/driver-<bench>.sh runs */
static int bench_packs(struct scan *s, const char *bench, struct strlist *packs)
{
	static const char *const marks[] = { "shellpack-bench-", "shellpack-install-" };
	char *rel = xasprintf("drivers/driver-%s.sh", bench);
	size_t len;
	char *text = tree_file(s->dir, rel, &len);

	if (!text) {
		lab_err("mmtests has no benchmark '%s' (no %s in %s); check MMTESTS= in the config",
			bench, rel, s->dir);
		free(rel);
		return -1;
	}
	for (size_t k = 0; k < ARRAY_SIZE(marks); k++)
		for (const char *p = strstr(text, marks[k]); p && packs->n < MAX_PACKS;
		     p = strstr(p + 1, marks[k])) {
			const char *nm = p + strlen(marks[k]);
			size_t n = strspn(nm, NAME_CHARS);
			char *name;

			if (!name_ok(nm, n))
				continue;
			name = xasprintf("%.*s", (int)n, nm);
			push_once(packs, name);
			free(name);
		}
	if (!packs->n)
		push_once(packs, bench);
	free(text);
	free(rel);
	return 0;
}

/* ---- names to Debian's ---- */

/* bin/install-depends' "debian::NAME" => "DEBIAN" */
static void debian_map(const char *dir, struct kvlist *map)
{
	size_t len;
	char *text = tree_file(dir, "bin/install-depends", &len);

	for (const char *p = text ? strstr(text, "\"debian::") : NULL; p;
	     p = strstr(p + 1, "\"debian::")) {
		const char *k = p + 9, *q;
		size_t kn = strcspn(k, "\"\n"), vn;
		char *key, *val;

		q = k + kn;
		if (*q != '"')
			continue;
		q += 1 + strspn(q + 1, " \t");
		if (strncmp(q, "=>", 2))
			continue;
		q += 2 + strspn(q + 2, " \t");
		if (*q != '"')
			continue;
		vn = strcspn(q + 1, "\"\n");
		key = xasprintf("%.*s", (int)kn, k);
		val = xasprintf("%.*s", (int)vn, q + 1);
		kvlist_set(map, key, val);
		free(key);
		free(val);
	}
	free(text);
}

/* the names of l Debian has (apt-cache policy: a candidate version) into have */
static int apt_policy(const struct strlist *l, struct strlist *have)
{
	const char **argv = xcalloc(l->n + 3, sizeof(*argv));
	struct spawn_opts o = { .timeout_s = 120, .capture_max = 4u << 20 };
	struct spawn_result r = { 0 };
	char *cur = NULL;
	int ok = 0;

	argv[0] = "apt-cache";
	argv[1] = "policy";
	for (size_t i = 0; i < l->n; i++)
		argv[2 + i] = l->v[i];
	if (spawn_run(argv, &o, &r)) {
		char buf[128];

		lab_warn("apt-cache policy %s; the image gets every package mmtests names",
			 spawn_describe(&r, o.timeout_s, buf, sizeof(buf)));
		for (size_t i = 0; i < l->n; i++)
			strlist_push(have, l->v[i]);
		ok = -1;
	}
	for (char *line = r.out; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (line[0] && line[0] != ' ' && line[strlen(line) - 1] == ':') {
			free(cur);
			cur = xstrndup(line, strlen(line) - 1);
		} else if (cur && !strncmp(line + strspn(line, " "), "Candidate: ", 11) &&
			   strcmp(line + strspn(line, " ") + 11, "(none)")) {
			push_once(have, cur);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(cur);
	spawn_result_free(&r);
	free(argv);
	return ok;
}

/*
 * apt-cache policy takes 0.6 s here: its answer is kept in the cache
 * (mmtests-apt/<sha256 of the names>: the lists' stamp, then the names
 * Debian has), good while /var/lib/apt/lists is unchanged (apt-get update
 * changes it).
 */
static void debian_has(const struct strlist *l, const char *cache_dir, struct strlist *have)
{
	struct stat st;
	char *names = strlist_join(l, "\n"), key[65], *dir = NULL, *path = NULL, *text = NULL;
	char stamp[64];
	size_t len;

	if (!cache_dir || stat("/var/lib/apt/lists", &st)) {
		(void)apt_policy(l, have);
		free(names);
		return;
	}
	snprintf(stamp, sizeof(stamp), "%lld.%09ld", (long long)st.st_mtim.tv_sec,
		 (long)st.st_mtim.tv_nsec);
	sha256_buf(names, strlen(names), key);
	dir = xasprintf("%s/mmtests-apt", cache_dir);
	path = xasprintf("%s/%s", dir, key);
	if (path_exists(path))
		text = read_file(path, &len, 1u << 20);
	if (text && !strncmp(text, stamp, strlen(stamp)) && text[strlen(stamp)] == '\n') {
		for (char *t = text + strlen(stamp) + 1, *save = NULL,
			  *w = strtok_r(t, "\n", &save);
		     w; w = strtok_r(NULL, "\n", &save))
			push_once(have, w);
	} else {
		struct strbuf sb = STRBUF_INIT;
		char *j;

		int failed = apt_policy(l, have);

		j = strlist_join(have, "\n");
		strbuf_addf(&sb, "%s\n%s\n", stamp, j);
		if (!failed && !mkdir_p(dir, 0755))
			write_file_atomic(path, sb.buf, sb.len, 0644);
		strbuf_release(&sb);
		free(j);
	}
	free(text);
	free(path);
	free(dir);
	free(names);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * An external package: Debian's package of its name stands in for it
 * (the script links it where mmtests looks), else it is built in the
 * guest as mmtests does, from the files its install step fetches (a
 * mirror or the host's cache has them: sources.c) and with its
 * install-depends, else the config is refused.
 */
static int resolve_external(struct external *e, const struct kvlist *map,
			    const struct strlist *have, struct mmtests_needs *out)
{
	if (strlist_has(have, e->pack)) {
		push_once(&out->packages, e->pack);
		strlist_pushf(&out->stubs, "%s-installed:%s", e->dir, e->pack);
		strlist_pushf(
			&out->notes,
			"mmtests would download %s (%s:%u); Debian's package %s stands in for it",
			e->dir, e->rel, e->line, e->pack);
		return 0;
	}
	if (e->raw || !e->fetches.n)
		return refuse_download(e->bench, e->pack, e->rel, e->line, e->what,
				       "an external package Debian does not have either");
	for (size_t k = 0; k < e->names.n; k++) {
		const char *d = kvlist_get(map, e->names.v[k]);

		d = d ? d : e->names.v[k];
		push_once(strlist_has(have, d) ? &out->packages : &out->missing, d);
	}
	strlist_pushf(&out->notes,
		      "mmtests: %s is built in the guest from the %zu file%s %s fetches (%s)",
		      e->pack, e->fetches.n, e->fetches.n == 1 ? "" : "s", e->rel,
		      e->fetches.v[0].file);
	take_fetches(&out->fetches, &e->fetches);
	return 0;
}

static int resolve(struct scan *s, const struct job_mmtests *m, const char *cache_dir,
		   struct mmtests_needs *out)
{
	struct kvlist map = { 0 };
	struct strlist want = { 0 }, have = { 0 }, query = { 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t nmm;
	int ret = 0;
	char *j;

	debian_map(s->dir, &map);
	for (size_t i = 0; i < s->names.n; i++) {
		const char *d = kvlist_get(&map, s->names.v[i]);

		push_once(&want, d ? d : s->names.v[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(base_packages); i++)
		push_once(&want, base_packages[i]);
	for (size_t i = 0; i < s->next; i++) {
		push_once(&query, s->ext[i].pack);
		for (size_t k = 0; k < s->ext[i].names.n; k++) {
			const char *d = kvlist_get(&map, s->ext[i].names.v[k]);

			push_once(&query, d ? d : s->ext[i].names.v[k]);
		}
	}
	for (size_t i = 0; i < want.n; i++)
		push_once(&query, want.v[i]);
	if (query.n)
		debian_has(&query, cache_dir, &have);
	for (size_t i = 0; i < want.n; i++)
		push_once(strlist_has(&have, want.v[i]) ? &out->packages : &out->missing,
			  want.v[i]);
	for (size_t i = 0; !ret && i < s->next; i++)
		ret = resolve_external(&s->ext[i], &map, &have, out);
	if (ret)
		goto out;
	nmm = out->packages.n;
	for (size_t i = 0; i < m->packages.n; i++)
		push_once(&out->packages, m->packages.v[i]);
	qsort(out->packages.v, out->packages.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < s->sources.n; i++)
		push_once(&out->sources, s->sources.v[i]);
	j = strlist_join(&out->sources, ", ");
	strbuf_addf(&sb,
		    "mmtests: the image gets %zu packages: what mmtests' install-depends ask for "
		    "(%s; Debian's names from bin/install-depends), procps and kmod (free, ps, "
		    "lsmod, modprobe: mmtests runs them without asking for them)",
		    nmm, j);
	free(j);
	if (m->packages.n)
		strbuf_addf(&sb, ", and %zu from workload.mmtests.packages", out->packages.n - nmm);
	strlist_push(&out->notes, sb.buf);
	if (out->missing.n) {
		j = strlist_join(&out->missing, ", ");
		strlist_pushf(
			&out->notes,
			"mmtests asks for %s, which Debian does not have; left out (name a "
			"Debian package in workload.mmtests.packages if a benchmark needs it)",
			j);
		free(j);
	}
out:
	strbuf_release(&sb);
	strlist_free(&want);
	strlist_free(&query);
	strlist_free(&have);
	kvlist_free(&map);
	return ret;
}

int mmtests_needs(const struct job_mmtests *m, const char *cache_dir, struct mmtests_needs *out)
{
	struct scan s = { .dir = m->dir };
	size_t len;
	char *text;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	text = tree_file(m->dir, "run-mmtests.sh", &len);
	if (!text) {
		lab_err("%s has no run-mmtests.sh; is it an mmtests checkout?", m->dir);
		return -1;
	}
	depends(&s, text, "run-mmtests.sh");
	free(text);
	for (size_t b = 0; !ret && b < m->benchmarks.n; b++) {
		struct strlist packs = { 0 };
		char *src = xasprintf("shellpack %s", m->benchmarks.v[b]);

		ret = bench_packs(&s, m->benchmarks.v[b], &packs);
		for (size_t i = 0; !ret && i < packs.n; i++)
			ret = pack_scripts(&s, m->benchmarks.v[b], packs.v[i]);
		/* depends() named the source after the benchmark: say which */
		for (size_t i = 0; i < s.sources.n; i++)
			if (!strcmp(s.sources.v[i], m->benchmarks.v[b])) {
				free(s.sources.v[i]);
				s.sources.v[i] = xstrdup(src);
			}
		free(src);
		strlist_free(&packs);
	}
	if (!ret)
		ret = resolve(&s, m, cache_dir, out);
	if (!ret)
		take_fetches(&out->fetches, &s.fetches);
	mmtests_fetches_free(&s.fetches);
	for (size_t i = 0; i < s.next; i++)
		external_free(&s.ext[i]);
	free(s.ext);
	strlist_free(&s.names);
	strlist_free(&s.sources);
	if (ret)
		mmtests_needs_release(out);
	return ret;
}

void mmtests_needs_release(struct mmtests_needs *n)
{
	strlist_free(&n->packages);
	strlist_free(&n->sources);
	strlist_free(&n->missing);
	strlist_free(&n->stubs);
	strlist_free(&n->notes);
	mmtests_fetches_free(&n->fetches);
}
