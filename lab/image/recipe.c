// SPDX-License-Identifier: GPL-2.0
/*
 * recipe.c - read and check guest image recipes (recipe.h, docs/image.md).
 *
 * A recipe is a user's file: everything in it is bounded and checked, and
 * every problem is reported with its FILE:LINE:COLUMN (lib/yamlfile.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/recipe.h"
#include "lib/strbuf.h"
#include "lib/yamlfile.h"

static const char *const kind_choices[] = { "initramfs", "debootstrap", NULL };
static const char *const variant_choices[] = { "minbase", "buildd", "standard", NULL };
static const char *const device_choices[] = { "char", "block", NULL };

const char *image_recipe_kind_name(enum recipe_kind k)
{
	return k == RECIPE_DEBOOTSTRAP ? "debootstrap" : "initramfs";
}

const char *image_recipe_dir(void)
{
	static char *dir;

	if (!dir)
		dir = resource_dir("MMLAB_IMAGES_DIR", "images", "../share/mmlab/images");
	return dir;
}

/* ---- finding a recipe ---- */

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > RECIPE_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "debootstrap, initramfs" or "none" */
static char *recipes_in(const char *dir)
{
	struct strlist names = { 0 };
	struct dirent *e;
	DIR *d = opendir(dir);
	char *s;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml") && e->d_name[0] != '.')
			strlist_pushf(&names, "%.*s", (int)(n - 5), e->d_name);
	}
	if (d)
		closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	s = names.n ? strlist_join(&names, ", ") : xstrdup("none");
	strlist_free(&names);
	return s;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= 5 && !strcmp(s + n - 5, ".yaml"));
}

char *image_recipe_path(const char *name_or_path, const char *base_dir)
{
	const char *dir = image_recipe_dir();
	char *p, *have;

	if (is_path(name_or_path)) {
		if (name_or_path[0] == '/' || !base_dir)
			p = path_abs(name_or_path);
		else
			p = xasprintf("%s/%s", base_dir, name_or_path);
		if (access(p, R_OK) == 0 && !is_dir(p))
			return p;
		lab_err("no image recipe %s: cannot read it; give the path of a YAML recipe "
			"(docs/image.md)",
			p);
		free(p);
		return NULL;
	}
	if (!name_ok(name_or_path)) {
		lab_err("'%.64s' is not a recipe name; expected a name such as debootstrap "
			"(letters, digits, '.', '_', '-') or the path of a .yaml file",
			name_or_path);
		return NULL;
	}
	p = xasprintf("%s/%s.yaml", dir, name_or_path);
	if (access(p, R_OK) == 0)
		return p;
	have = recipes_in(dir);
	lab_err("no image recipe '%s': %s does not exist (the recipes in %s: %s); add "
		"it, give a path, or set MMLAB_IMAGES_DIR",
		name_or_path, p, dir, have);
	free(have);
	free(p);
	return NULL;
}

/* ---- checking values ---- */

/* "/a/b" into "a/b": absolute, plain components, no "..", no "//" */
static char *guest_path(struct yfile *y, yaml_node_t *n, const char *field)
{
	const char *want = "an absolute path in the guest such as /etc/motd";
	const char *v = yf_scalar(y, n, field, want);
	char s[YF_SHOWLEN];
	size_t len;

	if (!v)
		return NULL;
	len = strlen(v);
	if (v[0] != '/' || len < 2 || len > RECIPE_PATH_MAX || v[len - 1] == '/' ||
	    strstr(v, "//") || strstr(v, "/./") || strstr(v, "/../") ||
	    (len >= 3 && !strcmp(v + len - 3, "/..")) || (len >= 2 && !strcmp(v + len - 2, "/.")) ||
	    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+@-") !=
		    len) {
		yf_err(y, n->start_mark, field,
		       "'%s' is not a usable path; expected %s (at most "
		       "%d characters: letters, digits, '/', '.', '_', '+', '@', '-'; no '..')",
		       yf_shown(s, v), want, RECIPE_PATH_MAX);
		return NULL;
	}
	return xstrdup(v + 1);
}

static bool get_mode(struct yfile *y, yaml_node_t *n, const char *field, unsigned int *mode)
{
	const char *want = "an octal mode such as 0644";
	const char *v = yf_scalar(y, n, field, want);
	char s[YF_SHOWLEN];
	size_t len;

	if (!v)
		return false;
	len = strlen(v);
	if (!len || len > 4 || strspn(v, "01234567") != len) {
		yf_err(y, n->start_mark, field, "'%s' is not a mode; expected %s (up to 07777)",
		       yf_shown(s, v), want);
		return false;
	}
	*mode = (unsigned int)strtoul(v, NULL, 8);
	return true;
}

bool image_debian_name_ok(const char *s, bool plus)
{
	if (!*s || strlen(s) > 100 || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '.' || (plus && *s == '+')))
			return false;
	return true;
}

/* paths the lab writes itself: a recipe cannot put a file there */
static bool reserved(const char *p)
{
	return !strcmp(p, "init") || !strcmp(p, "mmlab") || !strncmp(p, "mmlab/", 6) ||
	       !strcmp(p, "sbin/mmlab-agent") || !strcmp(p, "etc/mmlab-image");
}

/* ---- the sections ---- */

struct rparse {
	struct yfile *y;
	const char *dir; /* of the recipe: src paths are relative to it */
	struct image_recipe *r;
};

static void parse_dirs(struct rparse *c, yaml_node_t *n)
{
	char p[YF_PATHLEN];

	if (!yf_seq(c->y, n, "dirs", "[/proc, /sys]", RECIPE_MAX_DIRS))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		char *d = guest_path(c->y, yf_seq_item(c->y, n, i), yf_pidx(p, "dirs", i));

		if (d)
			strlist_push(&c->r->dirs, d);
		free(d);
	}
}

enum { DV_PATH, DV_TYPE, DV_MAJOR, DV_MINOR, DV_MODE, DV_N };

static void parse_device(struct rparse *c, yaml_node_t *n, const char *field)
{
	struct yfield f[DV_N] = {
		[DV_PATH] = { .key = "path" },	 [DV_TYPE] = { .key = "type" },
		[DV_MAJOR] = { .key = "major" }, [DV_MINOR] = { .key = "minor" },
		[DV_MODE] = { .key = "mode" },
	};
	struct recipe_device d = { 0 };
	unsigned long long maj = 0, min = 0;
	char p[YF_PATHLEN];
	bool ok = true;

	if (!yf_map(c->y, n, field,
		    "a mapping such as { path: /dev/null, type: char, "
		    "major: 1, minor: 3, mode: \"0666\" }",
		    f, DV_N))
		return;
	for (int i = 0; i < DV_N; i++)
		if (!f[i].val) {
			yf_missing(c->y, n, field, f[i].key, i == DV_TYPE ? "char" : "1");
			ok = false;
		}
	if (!ok)
		return;
	d.path = guest_path(c->y, f[DV_PATH].val, yf_pkey(p, field, "path"));
	d.block = yf_enum(c->y, f[DV_TYPE].val, yf_pkey(p, field, "type"), device_choices) == 1;
	ok = d.path && yf_uint(c->y, f[DV_MAJOR].val, yf_pkey(p, field, "major"), 0, 4095, &maj);
	ok = ok && yf_uint(c->y, f[DV_MINOR].val, yf_pkey(p, field, "minor"), 0, 1048575, &min);
	ok = ok && get_mode(c->y, f[DV_MODE].val, yf_pkey(p, field, "mode"), &d.mode);
	if (!ok) {
		free(d.path);
		return;
	}
	d.major = (unsigned int)maj;
	d.minor = (unsigned int)min;
	c->r->devices = xrealloc(c->r->devices, (c->r->ndevices + 1) * sizeof(d));
	c->r->devices[c->r->ndevices++] = d;
}

static void parse_devices(struct rparse *c, yaml_node_t *n)
{
	char p[YF_PATHLEN];

	if (!yf_seq(c->y, n, "devices",
		    "[{ path: /dev/null, type: char, major: 1, minor: 3, "
		    "mode: \"0666\" }]",
		    RECIPE_MAX_DEVICES))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++)
		parse_device(c, yf_seq_item(c->y, n, i), yf_pidx(p, "devices", i));
}

/* src: a regular file of at most RECIPE_SRC_MAX bytes, relative to the recipe */
static char *file_src(struct rparse *c, yaml_node_t *n, const char *field)
{
	const char *v = yf_scalar(c->y, n, field, "the path of a host file");
	char s[YF_SHOWLEN], *p;
	struct stat st;

	if (!v)
		return NULL;
	p = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", c->dir, v);
	if (stat(p, &st) || !S_ISREG(st.st_mode) || access(p, R_OK)) {
		yf_err(c->y, n->start_mark, field,
		       "'%s' is not a readable file (looked for %s); "
		       "give a host file, relative to the recipe's directory",
		       yf_shown(s, v), p);
	} else if ((uint64_t)st.st_size > RECIPE_SRC_MAX) {
		yf_err(c->y, n->start_mark, field, "'%s' is %lld bytes; at most %u allowed",
		       yf_shown(s, v), (long long)st.st_size, RECIPE_SRC_MAX);
	} else {
		return p;
	}
	free(p);
	return NULL;
}

enum { FL_PATH, FL_TEXT, FL_SRC, FL_MODE, FL_N };

static bool file_fields(struct rparse *c, yaml_node_t *n, const char *field, struct recipe_file *fl)
{
	struct yfield f[FL_N] = {
		[FL_PATH] = { .key = "path" },
		[FL_TEXT] = { .key = "text" },
		[FL_SRC] = { .key = "src" },
		[FL_MODE] = { .key = "mode" },
	};
	char p[YF_PATHLEN], s[YF_SHOWLEN];
	const char *t;
	size_t len;

	if (!yf_map(c->y, n, field, "a mapping such as { path: /etc/motd, text: \"hello\" }", f,
		    FL_N))
		return false;
	if (!f[FL_PATH].val) {
		yf_missing(c->y, n, field, "path", "/etc/motd");
		return false;
	}
	if (!f[FL_TEXT].val == !f[FL_SRC].val) {
		yf_err(c->y, n->start_mark, field,
		       "give either 'text:' (the contents) or 'src:' "
		       "(a host file), not %s",
		       f[FL_TEXT].val ? "both" : "neither");
		return false;
	}
	fl->path = guest_path(c->y, f[FL_PATH].val, yf_pkey(p, field, "path"));
	if (fl->path && reserved(fl->path)) {
		yf_err(c->y, f[FL_PATH].val->start_mark, yf_pkey(p, field, "path"),
		       "'/%s' is "
		       "the lab's own (the agent, the workloads, the plan); choose another path",
		       yf_shown(s, fl->path));
		return false;
	}
	if (f[FL_TEXT].val) {
		t = yf_text(c->y, f[FL_TEXT].val, yf_pkey(p, field, "text"), RECIPE_TEXT_MAX, &len);
		fl->text = t ? xstrndup(t, len) : NULL;
	} else {
		fl->src = file_src(c, f[FL_SRC].val, yf_pkey(p, field, "src"));
	}
	fl->mode = 0644;
	if (f[FL_MODE].val && !get_mode(c->y, f[FL_MODE].val, yf_pkey(p, field, "mode"), &fl->mode))
		return false;
	return fl->path && (fl->text || fl->src);
}

static void parse_files(struct rparse *c, yaml_node_t *n)
{
	char p[YF_PATHLEN], s[YF_SHOWLEN];

	if (!yf_seq(c->y, n, "files", "[{ path: /etc/motd, text: \"hello\\n\" }]",
		    RECIPE_MAX_FILES))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		yaml_node_t *it = yf_seq_item(c->y, n, i);
		struct recipe_file fl = { 0 };
		bool dup = false;

		if (!file_fields(c, it, yf_pidx(p, "files", i), &fl)) {
			free(fl.path);
			free(fl.text);
			free(fl.src);
			continue;
		}
		for (size_t k = 0; k < c->r->nfiles && !dup; k++)
			dup = !strcmp(c->r->files[k].path, fl.path);
		if (dup) {
			yf_err(c->y, it->start_mark, p,
			       "'/%s' is listed twice; give each file once", yf_shown(s, fl.path));
			free(fl.path);
			free(fl.text);
			free(fl.src);
			continue;
		}
		c->r->files = xrealloc(c->r->files, (c->r->nfiles + 1) * sizeof(fl));
		c->r->files[c->r->nfiles++] = fl;
	}
}

static void parse_packages(struct rparse *c, yaml_node_t *n)
{
	const char *want = "a Debian package name such as numactl";
	char p[YF_PATHLEN], s[YF_SHOWLEN];

	if (!yf_seq(c->y, n, "packages", "[numactl, linux-perf]", RECIPE_MAX_PACKAGES))
		return;
	for (size_t i = 0; i < yf_seq_len(n); i++) {
		yaml_node_t *it = yf_seq_item(c->y, n, i);
		const char *v = yf_scalar(c->y, it, yf_pidx(p, "packages", i), want);

		if (v && !image_debian_name_ok(v, true))
			yf_err(c->y, it->start_mark, p,
			       "'%s' is not a Debian package name; expected "
			       "%s (lowercase letters, digits, '+', '-', '.')",
			       yf_shown(s, v), want);
		else if (v)
			strlist_push(&c->r->packages, v);
	}
}

static void parse_suite(struct rparse *c, yaml_node_t *n)
{
	const char *want = "a Debian suite such as bookworm";
	const char *v = yf_scalar(c->y, n, "suite", want);
	char s[YF_SHOWLEN];

	if (v && !image_debian_name_ok(v, false))
		yf_err(c->y, n->start_mark, "suite", "'%s' is not a suite name; expected %s",
		       yf_shown(s, v), want);
	else if (v)
		c->r->suite = xstrdup(v);
}

static void parse_disk_size(struct rparse *c, yaml_node_t *n)
{
	const char *want = "a size such as 4G";
	const char *v = yf_scalar(c->y, n, "size", want);
	char s[YF_SHOWLEN];
	uint64_t b;

	if (!v)
		return;
	if (parse_size(v, &b) || b < (512ULL << 20) || b > (1ULL << 40) || b % (1ULL << 20))
		yf_err(c->y, n->start_mark, "size",
		       "'%s' is not a usable size; expected a whole "
		       "number of MiB from 512M to 1T, such as 4G",
		       yf_shown(s, v));
	else
		c->r->size_bytes = b;
}

static void parse_mirror(struct rparse *c, yaml_node_t *n)
{
	const char *want = "a Debian mirror URL such as http://deb.debian.org/debian";
	const char *v = yf_scalar(c->y, n, "mirror", want);
	char s[YF_SHOWLEN];

	if (!v)
		return;
	if ((strncmp(v, "http://", 7) && strncmp(v, "https://", 8) && strncmp(v, "file:/", 6)) ||
	    strlen(v) > 512 || strpbrk(v, " \t"))
		yf_err(c->y, n->start_mark, "mirror", "'%s' is not a mirror URL; expected %s",
		       yf_shown(s, v), want);
	else
		c->r->mirror = xstrdup(v);
}

/* ---- the recipe ---- */

enum {
	R_KIND,
	R_DESCRIPTION,
	R_DIRS,
	R_DEVICES,
	R_FILES,
	R_SUITE,
	R_VARIANT,
	R_PACKAGES,
	R_SIZE,
	R_MIRROR,
	R_N
};

/* the keys of one kind only: an error for the other kind */
static void kind_keys(struct rparse *c, struct yfield *f)
{
	bool deb = c->r->kind == RECIPE_DEBOOTSTRAP;

	for (int i = R_DEVICES; i < R_N; i++) {
		bool deb_only = i >= R_SUITE;

		if (!f[i].val || i == R_FILES || deb_only == deb)
			continue;
		yf_err(c->y, f[i].key_node->start_mark, f[i].key,
		       "applies to 'kind: %s' only; "
		       "remove it",
		       deb_only ? "debootstrap" : "initramfs");
		f[i].val = NULL;
	}
	if (!deb)
		return;
	if (!f[R_SUITE].val)
		yf_missing(c->y, f[R_KIND].key_node, "", "suite", "bookworm");
	if (!f[R_VARIANT].val)
		yf_missing(c->y, f[R_KIND].key_node, "", "variant", "minbase");
	if (!f[R_SIZE].val)
		yf_missing(c->y, f[R_KIND].key_node, "", "size", "4G");
}

static void parse_recipe(struct rparse *c, yaml_node_t *root)
{
	struct yfield f[R_N] = {
		[R_KIND] = { .key = "kind" },	    [R_DESCRIPTION] = { .key = "description" },
		[R_DIRS] = { .key = "dirs" },	    [R_DEVICES] = { .key = "devices" },
		[R_FILES] = { .key = "files" },	    [R_SUITE] = { .key = "suite" },
		[R_VARIANT] = { .key = "variant" }, [R_PACKAGES] = { .key = "packages" },
		[R_SIZE] = { .key = "size" },	    [R_MIRROR] = { .key = "mirror" },
	};
	const char *v;
	int k;

	if (!yf_map(c->y, root, "", "a mapping such as 'kind: initramfs'", f, R_N))
		return;
	if (!f[R_KIND].val) {
		yf_missing(c->y, root, "", "kind", "debootstrap");
		return;
	}
	k = yf_enum(c->y, f[R_KIND].val, "kind", kind_choices);
	if (k < 0)
		return;
	c->r->kind = (enum recipe_kind)k;
	kind_keys(c, f);
	if (f[R_DESCRIPTION].val) {
		v = yf_scalar(c->y, f[R_DESCRIPTION].val, "description", "one line of text");
		c->r->description = v ? xstrdup(v) : NULL;
	}
	if (f[R_DIRS].val)
		parse_dirs(c, f[R_DIRS].val);
	if (f[R_DEVICES].val)
		parse_devices(c, f[R_DEVICES].val);
	if (f[R_FILES].val)
		parse_files(c, f[R_FILES].val);
	if (f[R_SUITE].val)
		parse_suite(c, f[R_SUITE].val);
	if (f[R_VARIANT].val &&
	    (k = yf_enum(c->y, f[R_VARIANT].val, "variant", variant_choices)) >= 0)
		c->r->variant = xstrdup(variant_choices[k]);
	if (f[R_PACKAGES].val)
		parse_packages(c, f[R_PACKAGES].val);
	if (f[R_SIZE].val)
		parse_disk_size(c, f[R_SIZE].val);
	if (f[R_MIRROR].val)
		parse_mirror(c, f[R_MIRROR].val);
}

/* "images/x.yaml" -> "x" */
static char *name_of(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);

	if (n > 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	return xstrndup(base, n);
}

int image_recipe_parse(const char *name, const char *buf, size_t len, const char *dir,
		       struct image_recipe *r)
{
	struct yfile y;
	struct rparse c = { .y = &y, .dir = dir ? dir : ".", .r = r };
	yaml_node_t *root;

	memset(r, 0, sizeof(*r));
	r->path = path_abs(name);
	r->name = name_of(name);
	if (len > RECIPE_FILE_MAX) {
		lab_err("%s: the recipe is %zu bytes; at most %u allowed", name, len,
			RECIPE_FILE_MAX);
		image_recipe_release(r);
		return -1;
	}
	root = yf_load(&y, name, buf, len);
	if (root)
		parse_recipe(&c, root);
	yf_close(&y);
	if (!y.nerr)
		return 0;
	lab_err("%s: %u error%s in the image recipe; fix %s and try again (format: "
		"docs/image.md)",
		name, y.nerr, y.nerr == 1 ? "" : "s", y.nerr == 1 ? "it" : "them");
	image_recipe_release(r);
	return -1;
}

int image_recipe_load(const char *path, struct image_recipe *r)
{
	char *abs = path_abs(path), *dir = xstrdup(abs), *slash = strrchr(dir, '/');
	size_t len;
	char *buf;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (slash)
		*slash = '\0';
	buf = read_file(path, &len, RECIPE_FILE_MAX);
	if (buf)
		ret = image_recipe_parse(path, buf, len, dir, r);
	free(buf);
	free(dir);
	free(abs);
	return ret;
}

int image_recipe_load_default(enum recipe_kind k, struct image_recipe *r)
{
	char *p = xasprintf("%s/%s.yaml", image_recipe_dir(), image_recipe_kind_name(k));
	int ret;

	memset(r, 0, sizeof(*r));
	if (access(p, R_OK)) {
		lab_err("the default %s image recipe %s is missing; run mmlab from its checkout "
			"or install it ('make install'), or set MMLAB_IMAGES_DIR",
			image_recipe_kind_name(k), p);
		free(p);
		return -1;
	}
	ret = image_recipe_load(p, r);
	free(p);
	return ret;
}

void image_recipe_release(struct image_recipe *r)
{
	for (size_t i = 0; i < r->ndevices; i++)
		free(r->devices[i].path);
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].src);
		free(r->files[i].text);
	}
	free(r->devices);
	free(r->files);
	strlist_free(&r->dirs);
	strlist_free(&r->packages);
	free(r->path);
	free(r->name);
	free(r->description);
	free(r->suite);
	free(r->variant);
	free(r->mirror);
	memset(r, 0, sizeof(*r));
}

char *image_recipe_layout(const struct image_recipe *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < r->dirs.n; i++)
		strbuf_addf(&sb, "dir %s\n", r->dirs.v[i]);
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct recipe_device *d = &r->devices[i];

		strbuf_addf(&sb, "%s %s %u %u %04o\n", d->block ? "block" : "char", d->path,
			    d->major, d->minor, d->mode);
	}
	for (size_t i = 0; i < r->nfiles; i++) {
		const struct recipe_file *f = &r->files[i];
		char h[65];

		if (f->src && sha256_file(f->src, h)) {
			strbuf_release(&sb);
			return NULL;
		}
		if (!f->src)
			sha256_buf(f->text, strlen(f->text), h);
		strbuf_addf(&sb, "file %s %04o %s\n", f->path, f->mode, h);
	}
	return strbuf_detach(&sb);
}
