// SPDX-License-Identifier: GPL-2.0
/*
 * package_json.c - a cached package's meta.json into the typed
 * struct pkg_meta (package.h). The cache writes meta.json itself, but a
 * file on disk may be damaged: strings are bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/package.h"
#include "lib/util.h"

/* o[name] copied into *out (NULL when absent or not a string): 0, or -1 over the bound */
static int str_field(json_t *o, const char *name, char **out)
{
	json_t *v = json_object_get(o, name);

	*out = NULL;
	if (!json_is_string(v))
		return 0;
	if (json_string_length(v) > PKG_META_MAX_STR)
		return -1;
	*out = xstrdup(json_string_value(v));
	return 0;
}

int pkg_meta_from_json(json_t *doc, struct pkg_meta *m)
{
	json_t *mods = json_object_get(doc, "modules_package");

	memset(m, 0, sizeof(*m));
	if (!json_is_object(doc))
		return -1;
	m->has_modules = json_is_object(mods);
	if (str_field(doc, "package", &m->package) || str_field(doc, "version", &m->version) ||
	    str_field(doc, "architecture", &m->architecture) ||
	    str_field(doc, "format", &m->format) || str_field(doc, "fetched", &m->fetched) ||
	    str_field(mods, "package", &m->modules_package) ||
	    str_field(mods, "version", &m->modules_version)) {
		pkg_meta_release(m);
		return -1;
	}
	return 0;
}

void pkg_meta_release(struct pkg_meta *m)
{
	free(m->package);
	free(m->version);
	free(m->architecture);
	free(m->format);
	free(m->fetched);
	free(m->modules_package);
	free(m->modules_version);
	memset(m, 0, sizeof(*m));
}
