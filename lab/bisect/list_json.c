// SPDX-License-Identifier: GPL-2.0
/*
 * list_json.c - the list file of a list bisection (bisect start --kernels
 * FILE; docs/bisect.md, "A list of kernels") read into the entries' rewrite
 * sets (job/rewrite.h) that the parameters keep (params.h "kernels"), and
 * what the rest of lab/bisect/ reads of an entry. See bisect_list.h.
 */
#include <string.h>

#include "bisect/bisect_list.h"
#include "guest/extract.h"
#include "lib/pkgname.h"
#include "lib/util.h"

#define LIST_FILE_MAX (1u << 20)
#define TAG_MAX 200
#define TAG_CHARS                    \
	"abcdefghijklmnopqrstuvwxyz" \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
	"0123456789._-/+~^"

static char *abs_in(const char *dir, const char *path)
{
	return path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* a word of the list as a job's kernel: (NULL + err) when it is none */
static json_t *kernel_word(const char *w, const char *dir, char *err, size_t len)
{
	const char *eq = strchr(w, '=');
	char *name;
	json_t *k;

	if (!strcmp(w, "distro"))
		return json_string(w);
	if (ends(w, ".deb") || ends(w, ".rpm")) {
		char *p = abs_in(dir, w);

		k = json_pack("{s:s}", ends(w, ".deb") ? "deb" : "rpm", p);
		free(p);
		return k;
	}
	if (strchr(w, '/')) {
		char *p = abs_in(dir, w);

		k = json_string(p);
		free(p);
		return k;
	}
	name = eq ? xstrndup(w, (size_t)(eq - w)) : xstrdup(w);
	if (!pkg_name_ok(name) || (eq && !pkg_version_ok(eq + 1))) {
		snprintf(err, len,
			 "'%.64s' is neither distro, a path (with a /), a .deb or .rpm file, nor a "
			 "Debian package NAME or NAME=VERSION",
			 w);
		free(name);
		return NULL;
	}
	k = eq ? json_pack("{s:s, s:s}", "package", name, "version", eq + 1) :
		 json_pack("{s:s}", "package", name);
	free(name);
	return k;
}

/* a kernel mapping's file paths made absolute against dir */
static void abs_files(json_t *k, const char *dir)
{
	static const char *const keys[] = { "deb", "rpm", "modules" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = json_string_value(json_object_get(k, keys[i]));

		if (v && v[0] != '/') {
			char *p = abs_in(dir, v);

			json_object_set_new(k, keys[i], json_string(p));
			free(p);
		}
	}
}

/* an entry's tag: absent, or a git ref as a word (not an option, no spaces) */
static bool tag_ok(const json_t *tag, char *err, size_t len)
{
	const char *t = json_string_value(tag);

	if (!tag)
		return true;
	if (!t || !*t || strlen(t) > TAG_MAX || t[0] == '-' || strspn(t, TAG_CHARS) != strlen(t)) {
		snprintf(err, len,
			 "'tag' is the release's git ref (a tag, branch or commit id of at most "
			 "%d characters: letters, digits and ._-/+~^), not %s",
			 TAG_MAX, t ? "that" : "a list, mapping or number");
		return false;
	}
	return true;
}

/* one entry as a rewrite "set" (job/rewrite.h), NULL + err */
static json_t *entry_set(json_t *v, const char *dir, char *err, size_t len)
{
	static const char *const keys[] = { "kernel", "cmdline", "sysctl", "thp", "tag" };
	json_t *set, *k, *tag = NULL;
	const char *key;

	if (json_is_string(v)) {
		k = kernel_word(json_string_value(v), dir, err, len);
		return k ? json_pack("{s:o}", "kernel", k) : NULL;
	}
	if (!json_is_object(v)) {
		snprintf(err, len, "an entry is a kernel or a mapping, not %s",
			 json_is_array(v) ? "a list" : "a number or null");
		return NULL;
	}
	if (!json_object_get(v, "kernel")) { /* { package: ..., version: ..., tag: ... } alone */
		tag = json_object_get(v, "tag");
		v = json_deep_copy(v);
		json_object_del(v, "tag");
		v = json_pack("{s:o}", "kernel", v);
		if (tag)
			json_object_set(v, "tag", tag);
	} else {
		json_incref(v);
	}
	set = json_deep_copy(v);
	json_decref(v);
	json_object_foreach(set, key, k) {
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			known |= !strcmp(key, keys[i]);
		if (!known) {
			snprintf(
				err, len,
				"unknown key '%.32s' (an entry has kernel, cmdline, sysctl, thp, tag; "
				"or is a kernel mapping: package, version, deb, rpm, modules)",
				key);
			json_decref(set);
			return NULL;
		}
	}
	if (!tag_ok(json_object_get(set, "tag"), err, len)) {
		json_decref(set);
		return NULL;
	}
	k = json_object_get(set, "kernel");
	if (json_is_string(k)) {
		json_t *w = kernel_word(json_string_value(k), dir, err, len);

		if (!w) {
			json_decref(set);
			return NULL;
		}
		json_object_set_new(set, "kernel", w);
	} else if (json_is_object(k)) {
		abs_files(k, dir);
	}
	return set;
}

json_t *bisect_list_read(const char *file)
{
	size_t len;
	char *text = read_file(file, &len, LIST_FILE_MAX), err[256], *dir, *slash;
	json_t *doc = NULL, *out = NULL, *v;
	size_t i;

	if (!text)
		return NULL;
	doc = extract_yaml_to_json(text, len, err, sizeof(err));
	free(text);
	if (!json_is_array(doc) || json_array_size(doc) < 2 ||
	    json_array_size(doc) > BISECT_LIST_MAX) {
		lab_err("--kernels %s: %s", file,
			!doc ? err : "it is not a YAML list of 2 to 1000 kernels, oldest first");
		json_decref(doc);
		return NULL;
	}
	dir = path_abs(file);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	out = json_array();
	json_array_foreach(doc, i, v) {
		json_t *set = entry_set(v, dir, err, sizeof(err));

		if (!set) {
			lab_err("--kernels %s: entry %zu: %s", file, i + 1, err);
			json_decref(out);
			out = NULL;
			break;
		}
		json_array_append_new(out, set);
	}
	free(dir);
	json_decref(doc);
	return out;
}

const char *bisect_list_tag(const struct bisect_params *p, size_t i)
{
	return json_string_value(json_object_get(json_array_get(p->kernels, i), "tag"));
}
