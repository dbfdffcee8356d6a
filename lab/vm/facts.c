// SPDX-License-Identifier: GPL-2.0
/*
 * facts.c - libvirt's and QEMU's versions for a run's record, without a
 * QEMU probe per run (see vm_host_facts_cached() in vm.h).
 *
 * virConnectGetVersion() looks up libvirt's QEMU capabilities cache. Where
 * that cache never stays valid (measured on this project's hosts: the
 * cache was probed with KVM, but the QEMU user cannot open /dev/kvm, so
 * libvirt drops it at every lookup), each call runs QEMU to probe it again:
 * 1-3 s on a loaded 2-core host, on every run. The answer changes only
 * when libvirt or QEMU does, and that is what the key here checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "lib/util.h"
#include "vm/facts_json.h"
#include "vm/vm.h"

#define FACTS_FILE "host-facts.json"

/* where libvirt finds QEMU for x86_64 guests (PATH, then the RHEL name) */
static const char *const emulators[] = {
	"/usr/bin/qemu-system-x86_64",
	"/usr/local/bin/qemu-system-x86_64",
	"/usr/libexec/qemu-kvm",
	"/usr/bin/qemu-kvm",
};

/* what the facts depend on: libvirt (its version) and QEMU's binaries */
static json_t *facts_key(struct vm_host *h)
{
	json_t *key = vm_host_id(h), *emu;
	struct stat st;
	char buf[96];

	if (!key)
		return NULL;
	emu = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(emulators); i++) {
		if (stat(emulators[i], &st))
			continue;
		snprintf(buf, sizeof(buf), "%lld.%09ld %lld %llu", (long long)st.st_ctim.tv_sec,
			 st.st_ctim.tv_nsec, (long long)st.st_size, (unsigned long long)st.st_ino);
		json_object_set_new(emu, emulators[i], json_string(buf));
	}
	json_object_set_new(key, "emulators", emu);
	return key;
}

/* the cached facts when the file holds them for key, else NULL (a new reference) */
static json_t *facts_load(const char *path, const json_t *key)
{
	struct facts_cache c;
	json_t *facts = NULL;
	size_t len;
	char *text;

	if (!path_exists(path))
		return NULL;
	text = read_file(path, &len, FACTS_CACHE_MAX);
	if (text && !facts_cache_parse(text, len, &c) && json_equal(c.key, key))
		facts = json_deep_copy(c.facts);
	if (text)
		facts_cache_free(&c);
	free(text);
	return facts;
}

static void facts_store(const char *cache_dir, const char *path, json_t *key, json_t *facts)
{
	struct facts_cache c = { .key = key, .facts = facts }; /* borrowed: not freed */
	char *text = facts_cache_dump(&c);

	/* a cache: when it cannot be written, the next run asks libvirt again */
	if (text && !mkdir_p(cache_dir, 0755))
		write_file_atomic(path, text, strlen(text), 0644);
	free(text);
}

json_t *vm_host_facts_cached(struct vm_host *h, const char *cache_dir)
{
	json_t *key, *facts;
	char *path;

	if (!cache_dir || !vm_is_local(h))
		return vm_host_facts(h);
	key = facts_key(h);
	if (!key)
		return NULL;
	path = xasprintf("%s/%s", cache_dir, FACTS_FILE);
	facts = facts_load(path, key);
	if (!facts) {
		facts = vm_host_facts(h);
		if (facts)
			facts_store(cache_dir, path, key, facts);
	}
	free(path);
	json_decref(key);
	return facts;
}
