// SPDX-License-Identifier: GPL-2.0
/*
 * accel_json.c - the cached accelerator verdict <-> struct accel_cache
 * (accel_json.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/accel_json.h"

int accel_cache_parse(const char *text, size_t len, struct accel_cache *c, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root, *key;
	const char *accel, *reason;
	int ret = 1;

	memset(c, 0, sizeof(*c));
	if (len > ACCEL_CACHE_MAX) {
		snprintf(err, errlen, "larger than %u bytes", ACCEL_CACHE_MAX);
		return -1;
	}
	root = json_loadb(text, len, 0, &jerr);
	if (!root) {
		snprintf(err, errlen, "%s (line %d)", jerr.text, jerr.line);
		return -1;
	}
	key = json_object_get(root, "key");
	accel = json_string_value(json_object_get(root, "accel"));
	reason = json_string_value(json_object_get(root, "reason"));
	if (key && accel && reason && strlen(reason) < sizeof(c->reason) &&
	    (!strcmp(accel, "kvm") || !strcmp(accel, "tcg"))) {
		c->key = json_incref(key);
		c->accel = strcmp(accel, "kvm") ? DOM_ACCEL_TCG : DOM_ACCEL_KVM;
		memcpy(c->reason, reason, strlen(reason) + 1);
		snprintf(c->probed_at, sizeof(c->probed_at), "%s",
			 json_string_value(json_object_get(root, "probed_at")) ?: "");
		c->probe_s = json_number_value(json_object_get(root, "probe_s"));
		ret = 0;
	}
	json_decref(root);
	return ret;
}

void accel_cache_free(struct accel_cache *c)
{
	json_decref(c->key);
	memset(c, 0, sizeof(*c));
}

char *accel_cache_dump(const struct accel_cache *c)
{
	json_t *root = json_pack("{s:O, s:s, s:s, s:s, s:f}", "key", c->key, "accel",
				 dom_accel_name(c->accel), "reason", c->reason, "probed_at",
				 c->probed_at, "probe_s", c->probe_s);
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);

	json_decref(root);
	return text;
}

json_t *accel_cache_key(json_t *facts, const char *kernel_release)
{
	return json_pack("{s:O?, s:s, s:O?, s:O?, s:O?}", "hostname",
			 json_object_get(facts, "hostname"), "kernel_release", kernel_release,
			 "qemu", json_object_get(facts, "qemu"), "libvirt",
			 json_object_get(facts, "libvirt"), "uri", json_object_get(facts, "uri"));
}
