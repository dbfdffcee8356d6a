/* SPDX-License-Identifier: GPL-2.0 */
/*
 * package.h - kernels from distribution packages (docs/kernels.md,
 * "Distribution kernels"): a .deb or an .rpm unpacked with libarchive, and
 * the kernel cache's packages/ directory that holds them by the package
 * file's sha256 (package_cache.c), filled by apt (package_apt.c).
 *
 * A package is untrusted input. Of it only the kernel image
 * (boot/vmlinuz-REL, [usr/]lib/modules/REL/vmlinuz), its config and
 * System.map, and [usr/]lib/modules/REL/ are written, under an entry
 * directory laid out as the lab's own kernels are:
 *
 *   vmlinuz  config  System.map  lib/modules/REL/...  meta.json
 *
 * so the run finds the modules beside the image (tiermods_dir(),
 * disk_kernel_modules()). Compressed modules (.ko.xz, .ko.zst, .ko.gz) are
 * stored decompressed: the guest agent loads plain .ko files.
 */
#ifndef MMLAB_PACKAGE_H
#define MMLAB_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define PKG_ENTRIES_MAX 100000u /* archive entries, all of them */
#define PKG_PATH_MAX 512u /* an entry's path */
#define PKG_LINK_MAX 4096u /* a symbolic link's target (or a special file's data) in an rpm */
#define PKG_FILE_MAX (256u << 20) /* one file written (a kernel image is ~10 MB) */
#define PKG_TOTAL_MAX (4ull << 30) /* every file written */
#define PKG_META_MAX (32u << 20) /* a .deb's control.tar, an rpm's header */
#define PKG_CONTROL_MAX (64u << 10) /* a .deb's control file */

enum pkg_format { PKG_DEB, PKG_RPM };

struct pkg_info {
	enum pkg_format format;
	char *name, *version, *arch; /* the control file's, or the rpm header's */
	char *release; /* the kernel's, from the image's path; NULL: no image */
	uint64_t files, bytes; /* written */
	unsigned int links_skipped; /* symbolic and hard links never created */
};

/*
 * Unpack the package in buf (a .deb or an .rpm, told by its magic) into
 * dest, an existing empty directory. want names the kind the user gave
 * ("deb", "rpm", or NULL for either); need_image false for a modules-only
 * rpm. where starts every message ("jobs/a.yaml:4:13: variants[0].kernel").
 * 0 and pi filled, or -1 after one message (dest then holds a part).
 */
int pkg_unpack_mem(const void *buf, size_t len, const char *dest, const char *want, bool need_image,
		   const char *where, struct pkg_info *pi);
/* the same from a file */
int pkg_unpack_file(const char *path, const char *dest, const char *want, bool need_image,
		    const char *where, struct pkg_info *pi);
void pkg_info_release(struct pkg_info *pi);
const char *pkg_format_name(enum pkg_format f); /* "deb", "rpm" */

/* a package in the cache (package_cache.c) */
/*
 * A cached package's meta.json, typed (package_json.c). Read back, a
 * string is NULL when the document lacks it or holds another type there.
 */
struct pkg_meta {
	char *package;
	char *version;
	char *architecture;
	char *format; /* "deb" or "rpm" */
	char *sha256; /* the entry's key */
	char *release; /* the package's kernel release (its lib/modules/ name) */
	char *file; /* the package file's name */
	char *fetched; /* ISO time it was stored: the list sorts by it */
	int64_t files; /* written when unpacked */
	int64_t unpacked_bytes;
	bool has_modules; /* modules_package: the separate modules rpm */
	char *modules_package; /* modules_package.package */
	char *modules_version; /* modules_package.version */
};

/* bound of a meta.json string: the cache is the lab's, a file can be damaged */
#define PKG_META_MAX_STR 4096

/*
 * doc (borrowed) into m: 0, or -1 when doc is not an object or a string is
 * over the bound (m is then empty).
 */
int pkg_meta_from_json(json_t *doc, struct pkg_meta *m);
/* meta.json of m, keys in the stored order: a new reference (NULL strings left out) */
json_t *pkg_meta_json(const struct pkg_meta *m);
void pkg_meta_release(struct pkg_meta *m);

struct pkg_entry {
	char *dir; /* CACHE/kernels/packages/<sha256> */
	char *image; /* dir/vmlinuz */
	char *sha256; /* of the package file (with a modules rpm: of both) */
	json_t *meta; /* meta.json as stored (for output) */
	struct pkg_meta m; /* meta.json typed */
	bool hit; /* it was in the cache: nothing fetched or unpacked */
};
void pkg_entry_release(struct pkg_entry *e);

/*
 * A package file (deb: or rpm:, with the modules rpm or NULL): from the
 * cache, or unpacked into it. 0 and e, or -1 after one message.
 */
int pkg_get_file(const char *cache_dir, const char *path, const char *modules, const char *want,
		 const char *where, struct pkg_entry *e);
/*
 * A Debian package by name and version (NULL: apt's candidate): from the
 * cache when that version was fetched before (no download), else fetched
 * with apt-get download into a scratch directory and unpacked. Nothing is
 * installed. 0 and e, or -1 after one message naming the nearest packages
 * or versions, or the apt source that could not be reached.
 */
int pkg_get_apt(const char *cache_dir, const char *name, const char *version, const char *where,
		struct pkg_entry *e);

/* apt's side (package_apt.c): the candidate version, or NULL + message */
char *pkg_apt_candidate(const char *name, const char *where, char **source);
/*
 * The version exists for name: 0 and *source (malloc'd, NULL when apt does
 * not say) the apt source that has it, or -1 + a message listing the
 * versions there are.
 */
int pkg_apt_check_version(const char *name, const char *version, const char *where, char **source);
/* apt-get download name=version into dir: 0 and *file (malloc'd), or -1 + message */
int pkg_apt_download(const char *name, const char *version, const char *dir, const char *source,
		     const char *where, char **file);

/*
 * Every cached package, oldest first, typed: *v (n of them) for
 * pkg_listed_free(); runs from what the stored runs use (kcache.h: their
 * variants[].kernel.package.sha256; NULL: none).
 */
struct kernel_uses;
struct pkg_listed {
	struct pkg_entry e; /* e.m: its meta.json; e.meta: as pkg_listed_json() has it */
	uint64_t size_bytes; /* du of e.dir */
	json_t *runs; /* [run ids] that use it, borrowed from e.meta */
};
void pkg_list_entries(const char *cache_dir, const struct kernel_uses *uses, struct pkg_listed **v,
		      size_t *n);
void pkg_listed_free(struct pkg_listed *v, size_t n);
/* [meta.json + "dir", "size_bytes", "runs": [run ids]] of v: a new reference */
json_t *pkg_listed_json(const struct pkg_listed *v, size_t n);
/* pkg_listed_json() of pkg_list_entries(): a new reference */
json_t *pkg_list(const char *cache_dir, const struct kernel_uses *uses);
/* remove the packages no run uses (and their apt memos); the removed sha256s, a new reference */
json_t *pkg_gc(const char *cache_dir, const struct kernel_uses *uses, bool dry_run);

#endif
