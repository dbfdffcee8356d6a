// SPDX-License-Identifier: GPL-2.0
/*
 * tiermods.c - the dax drivers of a kmem topology, found in a kernel's
 * modules.builtin and modules.dep (tiermods.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tiermods.h"

#define MODFILE_MAX (16u << 20)
#define DEPTH_MAX 8

static const char *const drivers[] = { "device_dax", "dax_hmem", "kmem" };

char *tiermods_dir(const char *kernel_path, const char *release)
{
	char *dir = xstrdup(kernel_path ? kernel_path : ""), *slash = strrchr(dir, '/'), *p;

	if (slash)
		*slash = '\0';
	p = xasprintf("%s/lib/modules/%s", slash ? dir : ".", release);
	free(dir);
	if (is_dir(p))
		return p;
	free(p);
	p = xasprintf("/lib/modules/%s", release);
	if (is_dir(p))
		return p;
	free(p);
	return NULL;
}

/* the module name of a path in modules.dep: ".../dax_hmem.ko" -> "dax_hmem" */
static void mod_name(const char *path, size_t len, char *out, size_t outlen)
{
	const char *s = path, *e = path + len;
	size_t n;

	for (const char *p = path; p < e; p++)
		if (*p == '/')
			s = p + 1;
	n = (size_t)(e - s);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
	if (strchr(out, '.'))
		*strchr(out, '.') = '\0';
	for (char *c = out; *c; c++)
		if (*c == '-')
			*c = '_';
}

/* the line of modules.dep (in text) whose module is name, or NULL */
static const char *dep_line(const char *text, const char *name, size_t *len)
{
	char got[128];

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n'), *colon = strchr(l, ':');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);

		if (colon && colon < l + ll) {
			mod_name(l, (size_t)(colon - l), got, sizeof(got));
			if (!strcmp(got, name)) {
				*len = ll;
				return l;
			}
		}
		l += ll + (nl ? 1 : 0);
	}
	return NULL;
}

static bool listed(const struct strbuf *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names->buf; (p = strstr(p, name)); p += n)
		if ((p == names->buf || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int add_module(const char *variant, const char *mdir, const char *dep, const char *name,
		      struct kvlist *files, struct strbuf *names, int depth);

/* the dependencies after the colon, each added before the module */
static int add_deps(const char *variant, const char *mdir, const char *dep, const char *deps,
		    size_t len, struct kvlist *files, struct strbuf *names, int depth)
{
	char *copy = xstrndup(deps, len), *save = NULL, dname[128];
	int ret = 0;

	for (char *t = strtok_r(copy, " \t", &save); t && !ret; t = strtok_r(NULL, " \t", &save)) {
		mod_name(t, strlen(t), dname, sizeof(dname));
		ret = add_module(variant, mdir, dep, dname, files, names, depth + 1);
	}
	free(copy);
	return ret;
}

static int add_module(const char *variant, const char *mdir, const char *dep, const char *name,
		      struct kvlist *files, struct strbuf *names, int depth)
{
	size_t len = 0;
	const char *l = dep_line(dep, name, &len), *colon;
	char *rel, *gp, *hp;

	if (listed(names, name))
		return 0;
	if (!l || depth > DEPTH_MAX) {
		lab_err("variant '%s': the kernel of %s has no module %s (modules.dep) and does not build it in; a lab kernel needs the dax options of kernels/lab.config in its fragments",
			variant, mdir, name);
		return -1;
	}
	colon = strchr(l, ':');
	if (add_deps(variant, mdir, dep, colon + 1, len - (size_t)(colon + 1 - l), files, names,
		     depth))
		return -1;
	rel = xstrndup(l, (size_t)(colon - l));
	if (strlen(rel) < 3 || strcmp(rel + strlen(rel) - 3, ".ko")) {
		lab_err("variant '%s': the module %s/%s is compressed, which the guest agent cannot load; use a kernel with uncompressed modules or build the dax drivers in (kernels/lab.config)",
			variant, mdir, rel);
		free(rel);
		return -1;
	}
	hp = xasprintf("%s/%s", mdir, rel);
	if (!path_exists(hp)) {
		lab_err("variant '%s': %s is in modules.dep but missing; reinstall the kernel's modules (Debian: linux-image-<release>)",
			variant, hp);
		free(hp);
		free(rel);
		return -1;
	}
	gp = xasprintf("mmlab/modules/%s.ko", name);
	kvlist_set(files, gp, hp);
	strbuf_addsep(names, ",", name);
	free(gp);
	free(hp);
	free(rel);
	return 0;
}

/* modules.builtin lists the module: one path a line */
static bool builtin(const char *text, const char *name)
{
	char got[128];

	for (const char *l = text; text && *l;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);

		mod_name(l, ll, got, sizeof(got));
		if (ll && !strcmp(got, name))
			return true;
		l += ll + (nl ? 1 : 0);
	}
	return false;
}

static char *read_mod_file(const char *mdir, const char *file)
{
	char *p = xasprintf("%s/%s", mdir, file), *text = NULL;

	if (path_exists(p))
		text = read_file(p, NULL, MODFILE_MAX);
	free(p);
	return text;
}

int tiermods_find(const char *variant, const char *mdir, struct kvlist *files, struct strbuf *names)
{
	char *dep, *bi;
	int ret = 0;

	if (!mdir)
		return 0;
	dep = read_mod_file(mdir, "modules.dep");
	if (!dep)
		return 0;
	bi = read_mod_file(mdir, "modules.builtin");
	for (size_t i = 0; i < ARRAY_SIZE(drivers) && !ret; i++)
		if (!builtin(bi, drivers[i]))
			ret = add_module(variant, mdir, dep, drivers[i], files, names, 0);
	free(dep);
	free(bi);
	return ret;
}
