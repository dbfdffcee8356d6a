// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_json.c - a kernel_info as the JSON record a run keeps of its
 * variants' kernels (run.json "variants"[].kernel), and back (kernel.h).
 * The record is trusted only as far as the file it names: it is loaded
 * when the file is still there with the recorded sha256.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "lib/util.h"

int kernel_info_from_json(json_t *rec, struct kernel_info *ki)
{
	const char *path = json_string_value(json_object_get(rec, "path"));
	const char *sha = json_string_value(json_object_get(rec, "sha256"));
	const char *s;

	memset(ki, 0, sizeof(*ki));
	if (!path || !sha || access(path, R_OK) || kernel_read_info(path, ki))
		return -1;
	if (strcmp(ki->sha256, sha)) {
		kernel_info_release(ki);
		return -1;
	}
	if ((s = json_string_value(json_object_get(rec, "cache_key"))))
		ki->cache_key = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "base_commit"))))
		ki->base_commit = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "config_hash"))))
		ki->config_hash = xstrdup(s);
	if ((s = json_string_value(json_object_get(rec, "build_log"))))
		ki->build_log = xstrdup(s);
	ki->cache_hit = json_is_true(json_object_get(rec, "cache_hit"));
	if (json_is_object(json_object_get(rec, "package")))
		ki->package = json_deep_copy(json_object_get(rec, "package"));
	if (json_is_array(json_object_get(rec, "operations")))
		ki->operations = json_deep_copy(json_object_get(rec, "operations"));
	return 0;
}

json_t *kernel_info_json(const struct kernel_info *ki)
{
	json_t *o;

	if (ki->build_failed)
		return json_pack("{s:s, s:b, s:s?, s:O?}", "source", "build", "build_failed", 1,
				 "build_log", ki->build_log, "operations", ki->operations);
	if (ki->build_pending)
		return json_pack("{s:s, s:b, s:s, s:s, s:O?}", "source", "build", "build_pending",
				 1, "request", ki->request, "base_commit", ki->base_commit,
				 "operations", ki->operations);
	o = json_pack("{s:s, s:s, s:s, s:s}", "path", ki->path, "release", ki->release, "version",
		      ki->version, "sha256", ki->sha256);
	if (ki->package) {
		json_object_set_new(o, "source", json_string("package"));
		json_object_set(o, "package", ki->package);
	}
	if (ki->cache_key) {
		json_object_set_new(o, "source", json_string("build"));
		json_object_set_new(o, "cache_key", json_string(ki->cache_key));
		json_object_set_new(o, "cache_hit", json_boolean(ki->cache_hit));
		json_object_set_new(o, "base_commit", json_string(ki->base_commit));
		json_object_set_new(o, "config_hash", json_string(ki->config_hash));
		json_object_set_new(o, "operations",
				    ki->operations ? json_incref(ki->operations) : json_array());
		if (ki->build_log)
			json_object_set_new(o, "build_log", json_string(ki->build_log));
	}
	return o;
}
