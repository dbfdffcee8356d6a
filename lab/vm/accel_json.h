/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accel_json.h - the accelerator verdict cached in <cache_dir> (accel.c)
 * as a typed struct and back. The cache outlives mmlab's version and may
 * be edited: it is read bounded, and what is not a verdict is refused.
 */
#ifndef MMLAB_VM_ACCEL_JSON_H
#define MMLAB_VM_ACCEL_JSON_H

#include <stddef.h>
#include <jansson.h>

#include "lib/timefmt.h"
#include "vm/domain_xml.h"

#define ACCEL_CACHE_MAX (64u << 10) /* bytes of the file */

struct accel_cache {
	json_t *key; /* what the verdict depends on; owned (a reference) */
	enum dom_accel accel; /* KVM or TCG */
	char reason[512]; /* why, one line */
	char probed_at[TIME_STR_LEN]; /* when, ISO 8601 UTC */
	double probe_s; /* how long the probe took */
};

/*
 * Parse the file's len bytes (at most ACCEL_CACHE_MAX): 0 and c filled
 * for a verdict; 1 when it is JSON but no verdict (no key, an accel other
 * than "kvm" or "tcg", a reason that is not a string or does not fit);
 * -1 when it is not JSON, with what is wrong in err (errlen bytes). Then
 * accel_cache_free(c) either way.
 */
int accel_cache_parse(const char *text, size_t len, struct accel_cache *c, char *err,
		      size_t errlen);
void accel_cache_free(struct accel_cache *c);
/*
 * The key of a verdict, what it depends on: the host facts' (borrowed,
 * vm_host_facts()) "hostname", "qemu", "libvirt" and "uri" (null when
 * facts lacks one) and kernel_release. A new reference.
 */
json_t *accel_cache_key(json_t *facts, const char *kernel_release);
/* the file's text (malloc'd), or NULL when it cannot be encoded */
char *accel_cache_dump(const struct accel_cache *c);

#endif
