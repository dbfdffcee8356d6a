/* SPDX-License-Identifier: GPL-2.0 */
/*
 * facts_json.h - libvirt's and QEMU's facts cached in
 * <cache_dir>/host-facts.json (facts.c) as a typed struct and back. Read
 * bounded; what does not hold facts is refused.
 */
#ifndef MMLAB_VM_FACTS_JSON_H
#define MMLAB_VM_FACTS_JSON_H

#include <stddef.h>
#include <jansson.h>

#define FACTS_CACHE_MAX (64u << 10) /* bytes of the file */

struct facts_cache {
	json_t *key; /* what the facts depend on; owned (a reference) */
	json_t *facts; /* vm_host_facts()'s object, with "qemu"; owned (a reference) */
};

/*
 * Parse the file's len bytes (at most FACTS_CACHE_MAX): 0 and c filled,
 * or -1 when it is not a cache of facts. Then facts_cache_free(c) either
 * way.
 */
int facts_cache_parse(const char *text, size_t len, struct facts_cache *c);
void facts_cache_free(struct facts_cache *c);
/* the file's text (malloc'd), or NULL when it cannot be encoded */
char *facts_cache_dump(const struct facts_cache *c);

#endif
