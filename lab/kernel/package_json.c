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
	    str_field(doc, "format", &m->format) || str_field(doc, "sha256", &m->sha256) ||
	    str_field(doc, "release", &m->release) || str_field(doc, "file", &m->file) ||
	    str_field(doc, "fetched", &m->fetched) ||
	    str_field(mods, "package", &m->modules_package) ||
	    str_field(mods, "version", &m->modules_version)) {
		pkg_meta_release(m);
		return -1;
	}
	m->files = json_integer_value(json_object_get(doc, "files"));
	m->unpacked_bytes = json_integer_value(json_object_get(doc, "unpacked_bytes"));
	return 0;
}

json_t *pkg_meta_json(const struct pkg_meta *m)
{
	json_t *o = json_pack("{s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:I, s:I}",
			      "package", m->package, "version", m->version, "architecture",
			      m->architecture, "format", m->format, "sha256", m->sha256, "release",
			      m->release, "file", m->file, "fetched", m->fetched, "files",
			      (json_int_t)m->files, "unpacked_bytes",
			      (json_int_t)m->unpacked_bytes);

	if (m->has_modules)
		json_object_set_new(o, "modules_package",
				    json_pack("{s:s*, s:s*}", "package", m->modules_package,
					      "version", m->modules_version));
	return o;
}

void pkg_meta_release(struct pkg_meta *m)
{
	free(m->package);
	free(m->version);
	free(m->architecture);
	free(m->format);
	free(m->sha256);
	free(m->release);
	free(m->file);
	free(m->fetched);
	free(m->modules_package);
	free(m->modules_version);
	memset(m, 0, sizeof(*m));
}
