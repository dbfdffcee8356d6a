// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_json.c - "mmlab doctor --json" from struct doctor_report, and the
 * kernels and libvirt facts it is given as JSON read into it (doctor.h).
 * The keys keep the order the document always had.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin/doctor.h"

void doctor_set_kernels(struct doctor_report *d, json_t *list)
{
	json_t *k;
	size_t i;

	json_decref(d->kernels);
	d->kernels = json_is_array(list) ? list : json_array();
	if (d->kernels != list)
		json_decref(list);
	strlist_free(&d->kernel_paths);
	json_array_foreach(d->kernels, i, k)
		strlist_push(&d->kernel_paths,
			     json_string_value(json_object_get(k, "path")) ?: "?");
}

static char *dup_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? xstrdup(s) : NULL;
}

void doctor_set_facts(struct doctor_report *d, json_t *facts)
{
	json_decref(d->facts);
	free(d->libvirt);
	free(d->uri);
	free(d->qemu);
	d->reachable = facts != NULL;
	d->facts = json_is_object(facts) ? facts : json_object();
	if (d->facts != facts)
		json_decref(facts);
	d->libvirt = dup_str(d->facts, "libvirt");
	d->uri = dup_str(d->facts, "uri");
	d->qemu = dup_str(d->facts, "qemu");
}

static json_t *accel_json(const struct doctor_report *d)
{
	if (!d->accel_known)
		return json_string(d->accel_note);
	return json_pack("{s:s, s:s, s:b, s:b}", "accel",
			 d->accel.accel == DOM_ACCEL_KVM ? "kvm" : "tcg", "reason", d->accel.reason,
			 "probed", d->accel.probed, "cached", d->accel.cached);
}

json_t *doctor_json(const struct doctor_report *d)
{
	json_t *j = json_pack("{s:s, s:s?, s:s?}", "version", MMLAB_VERSION, "results", d->results,
			      "cache", d->cache);
	json_t *tools = json_object(), *lv = json_deep_copy(d->facts);

	json_object_set_new(j, "guest",
			    json_pack("{s:s, s:b}", "dir", d->guest_dir, "agent", d->agent));
	json_object_set_new(j, "kvm",
			    json_pack("{s:b, s:b}", "present", d->kvm_present, "usable",
				      d->kvm_present && d->kvm_usable));
	json_object_set(j, "kernels", d->kernels);
	for (size_t i = 0; i < DOCTOR_NTOOLS; i++)
		json_object_set_new(tools, d->tools[i],
				    d->tool_paths[i] ? json_string(d->tool_paths[i]) : json_null());
	json_object_set_new(j, "tools", tools);
	json_object_set_new(lv, "reachable", json_boolean(d->reachable));
	json_object_set_new(j, "libvirt", lv);
	json_object_set_new(j, "accel", accel_json(d));
	json_object_set_new(j, "ok", json_boolean(d->ok));
	return j;
}

void doctor_release(struct doctor_report *d)
{
	json_decref(d->kernels);
	strlist_free(&d->kernel_paths);
	for (size_t i = 0; i < DOCTOR_NTOOLS; i++)
		free(d->tool_paths[i]);
	json_decref(d->facts);
	free(d->libvirt);
	free(d->uri);
	free(d->qemu);
	memset(d, 0, sizeof(*d));
}
