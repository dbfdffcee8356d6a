/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bzimage.h - prebuilt kernels: an x86 bzImage's release read from its boot
 * header, and the host's distro kernels in /boot (MMLAB_BOOT_DIR overrides
 * /boot). The reader the rest of lab/kernel/ builds on: it includes no
 * other module of lab/kernel/.
 */
#ifndef MMLAB_BZIMAGE_H
#define MMLAB_BZIMAGE_H

#include <stdbool.h>
#include <jansson.h>

struct kernel_info {
	char *path; /* absolute path of the bzImage */
	char *release; /* from the image's header, e.g. "6.1.0-57-amd64" */
	char *version; /* the whole version string of the header */
	char sha256[65];
	/* KERNEL_SOURCE variants (kernel.h, kcache.h); NULL/false otherwise */
	char *cache_key;
	char *base_commit;
	char *config_hash;
	char *build_log; /* also set when the build failed */
	json_t *operations; /* [{"op","arg","resolved"}] */
	bool cache_hit;
	bool build_failed; /* the source could not be prepared, configured or built */
	/* kernel_request_job(): known, not built yet (the queue builds it) */
	bool build_pending;
	char *request; /* kcache_request()'s hash */
	/*
	 * KERNEL_PACKAGE (package.h): {name, version, architecture, format,
	 * sha256, cache_hit, file?, modules_package?}; NULL otherwise
	 */
	json_t *package;
};

/* the release string a bzImage carries in its setup header; NULL + message */
int kernel_read_info(const char *path, struct kernel_info *ki);
/* newest /boot/vmlinuz-* by version order (MMLAB_BOOT_DIR overrides /boot) */
char *kernel_find_distro(void);
/* every bootable kernel in /boot: [{"path","release"}]; a new reference */
json_t *kernel_list_distro(void);
/*
 * The config the newest distro kernel was built with: /boot/config-RELEASE
 * (in MMLAB_BOOT_DIR when set), whether or not it exists; NULL + message
 * when there is no distro kernel to read the release from.
 */
char *kernel_distro_config(void);
/* frees every field, the resolver's too; ki is zeroed */
void kernel_info_release(struct kernel_info *ki);

#endif
