// SPDX-License-Identifier: GPL-2.0
/*
 * rootinitrd.c - the small initramfs a disk-image boot goes through
 * (rootinitrd.h; docs/image.md, "BOOTING IT").
 *
 * It holds /init (the guest's rootinit, collectors/rootinit/), the list
 * /modules and the modules themselves as /lib/modules/NAME.ko, stored
 * decompressed (the guest calls finit_module() without flags): those
 * that mount the root, with their dependencies from the kernel's own
 * modules.dep, in the order they load. A module the kernel has built in
 * (modules.builtin) is left out; when all are, there is no initramfs.
 *
 * It is cached as CACHE/initrd/SHA256.cpio, the hash covering rootinit
 * and every module's name and bytes, so every kernel with the same
 * modules shares one, and a rebuilt module is a new one.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/cpio.h"
#include "image/initramfs.h"
#include "image/rootinitrd.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define INITRD_FORMAT "mmlab-rootinitrd-1"
#define DEP_FILE_MAX (32u << 20) /* modules.dep: 0.5 MB for Debian's 4000 modules */
#define MODULE_MAX (64u << 20) /* one module, decompressed */
#define DEPTH_MAX 16

/* the modules that mount a virtio_blk ext4 root: name, needed */
static const struct {
	const char *name;
	bool needed;
} root_modules[] = {
	{ "virtio_pci", true },
	{ "virtio_blk", true },
	{ "crc32c_generic", false }, /* ext4's softdep ("crypto-crc32c"), not in modules.dep */
	{ "ext4", true },
};

/* the module name of a modules.dep path: basename, no .ko*, '-' as '_' */
static char *mod_name(const char *path, size_t len)
{
	const char *b = memrchr(path, '/', len);
	char *n, *ko;

	b = b ? b + 1 : path;
	n = xstrndup(b, len - (size_t)(b - path));
	ko = strstr(n, ".ko");
	if (ko)
		*ko = '\0';
	for (char *p = n; *p; p++)
		if (*p == '-')
			*p = '_';
	return n;
}

/* the line of modules.dep for module name, or NULL */
static const char *dep_line(const char *dep, const char *name)
{
	for (const char *l = dep; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t col = strcspn(l, ":\n");
		char *n;
		bool hit;

		if (l[col] != ':')
			continue;
		n = mod_name(l, col);
		hit = !strcmp(n, name);
		free(n);
		if (hit)
			return l;
	}
	return NULL;
}

/* the module at line l of dep, after its dependencies, into order (paths) */
static int add_module(const char *dep, const char *l, struct strlist *order, int depth)
{
	size_t col = strcspn(l, ":"), end = strcspn(l, "\n");
	char *self = xstrndup(l, col);
	int ret = 0;

	if (depth > DEPTH_MAX || strlist_has(order, self)) {
		free(self);
		return 0;
	}
	for (size_t i = col + 1; i < end && !ret;) {
		size_t wl;

		i += strspn(l + i, " \t");
		wl = strcspn(l + i, " \t\n");
		if (wl && i + wl <= end) {
			char *name = mod_name(l + i, wl);
			const char *dl = dep_line(dep, name);

			if (dl)
				ret = add_module(dep, dl, order, depth + 1);
			free(name);
		}
		i += wl;
	}
	if (!strlist_has(order, self))
		strlist_push(order, self);
	free(self);
	return ret;
}

static bool builtin(const char *list, const char *name)
{
	for (const char *l = list; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *n = mod_name(l, strcspn(l, "\n"));
		bool hit = !strcmp(n, name);

		free(n);
		if (hit)
			return true;
	}
	return false;
}

int rootinitrd_modules(const char *moddir, const char *release, struct strlist *order)
{
	char *p = xasprintf("%s/modules.dep", moddir), *dep = NULL, *bi = NULL;
	size_t len;
	int ret = 0;

	dep = path_exists(p) ? read_file(p, &len, DEP_FILE_MAX) : NULL;
	if (!dep) {
		lab_err("the kernel %s has modules in %s but no readable modules.dep; run depmod "
			"for it, or build virtio_pci, virtio_blk and ext4 in (=y)",
			release, moddir);
		free(p);
		return -1;
	}
	free(p);
	p = xasprintf("%s/modules.builtin", moddir);
	bi = path_exists(p) ? read_file(p, &len, DEP_FILE_MAX) : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(root_modules) && !ret; i++) {
		const char *l = dep_line(dep, root_modules[i].name);

		if (l)
			ret = add_module(dep, l, order, 0);
		else if (root_modules[i].needed && !builtin(bi, root_modules[i].name)) {
			lab_err("the kernel %s can not mount the disk image: %s is neither built in "
				"nor a module in %s; build it in (=y) or as a module",
				release, root_modules[i].name, moddir);
			ret = -1;
		}
	}
	free(p);
	free(dep);
	free(bi);
	return ret;
}

/* a module's bytes, decompressed when it is .ko.xz, .ko.zst or .ko.gz */
static char *module_bytes(const char *path, size_t *len)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t cap = 1u << 20;
	char *buf = NULL;
	la_ssize_t n = 0;

	archive_read_support_filter_gzip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_format_raw(a);
	*len = 0;
	if (archive_read_open_filename(a, path, 1u << 16) == ARCHIVE_OK &&
	    archive_read_next_header(a, &e) == ARCHIVE_OK) {
		buf = xmalloc(cap);
		while ((n = archive_read_data(a, buf + *len, cap - *len)) > 0) {
			*len += (size_t)n;
			if (*len == cap && cap >= MODULE_MAX)
				break;
			if (*len == cap)
				buf = xrealloc(buf, cap *= 2);
		}
	}
	if (!buf || n != 0) {
		lab_err("cannot read the module %s: %s", path,
			n > 0			? "larger than 64 MiB" :
			archive_error_string(a) ?:
						  "unreadable");
		free(buf);
		buf = NULL;
	}
	archive_read_free(a);
	return buf;
}

/* the module's file name in the initramfs: NAME.ko */
static char *module_file(const char *rel)
{
	char *n = mod_name(rel, strlen(rel)), *f = xasprintf("%s.ko", n);

	free(n);
	return f;
}

static int write_initrd(const char *path, const char *init, const char *moddir,
			const struct strlist *order)
{
	struct cpio c = { 0 };
	struct strbuf list = STRBUF_INIT;
	size_t len;
	char *data = read_file(init, &len, MODULE_MAX);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ret = data && fd >= 0 && !cpio_open_fd(&c, fd, path, 1) ? 0 : -1;

	if (fd < 0)
		lab_err("cannot create %s: %s", path, strerror(errno));
	if (!ret)
		ret = cpio_file(&c, "init", 0755, data, len) || cpio_dir(&c, "lib") ||
		      cpio_dir(&c, "lib/modules");
	free(data);
	for (size_t i = 0; i < order->n && !ret; i++) {
		char *src = xasprintf("%s/%s", moddir, order->v[i]), *f = module_file(order->v[i]);
		char *dst = xasprintf("lib/modules/%s", f);

		data = module_bytes(src, &len);
		ret = data ? cpio_file(&c, dst, 0644, data, len) : -1;
		strbuf_addf(&list, "%s\n", f);
		free(data);
		free(src);
		free(dst);
		free(f);
	}
	if (!ret)
		ret = cpio_file(&c, "modules", 0644, list.buf, list.len);
	if (!ret && cpio_close(&c) < 0)
		ret = -1;
	if (fd >= 0) {
		cpio_free(&c);
		if (close(fd) && !ret) {
			lab_err("cannot write %s: %s", path, strerror(errno));
			ret = -1;
		}
	}
	strbuf_release(&list);
	return ret;
}

/* sha256 of what the initramfs is made of */
static int initrd_key(const char *init, const char *moddir, const struct strlist *order,
		      char key[65])
{
	struct strbuf s = STRBUF_INIT;
	char h[65];
	int ret = sha256_file(init, h);

	strbuf_addf(&s, "%s\ninit %s\n", INITRD_FORMAT, h);
	for (size_t i = 0; i < order->n && !ret; i++) {
		char *p = xasprintf("%s/%s", moddir, order->v[i]);

		ret = sha256_file(p, h);
		strbuf_addf(&s, "%s %s\n", order->v[i], h);
		free(p);
	}
	if (ret)
		lab_err("cannot read %s or the modules in %s to hash them", init, moddir);
	else
		sha256_buf(s.buf, s.len, key);
	strbuf_release(&s);
	return ret;
}

int rootinitrd_get(const char *cache_dir, const char *moddir, const char *release, char **out)
{
	struct strlist order = { 0 };
	char *init = xasprintf("%s/rootinit", image_guest_dir()), *dir = NULL, *tmp = NULL;
	char key[65];
	int ret = rootinitrd_modules(moddir, release, &order);

	*out = NULL;
	if (ret || !order.n)
		goto done;
	if (access(init, R_OK)) {
		lab_err("the guest's rootinit %s is missing; run 'make' in the mmlab checkout",
			init);
		ret = -1;
		goto done;
	}
	ret = initrd_key(init, moddir, &order, key);
	dir = xasprintf("%s/initrd", cache_dir);
	*out = xasprintf("%s/%s.cpio", dir, key);
	if (ret || path_exists(*out))
		goto done;
	tmp = xasprintf("%s.tmp.%ld", *out, (long)getpid());
	ret = mkdir_p(dir, 0755) || write_initrd(tmp, init, moddir, &order) ? -1 : 0;
	if (!ret && rename(tmp, *out)) {
		lab_err("cannot store %s: %s", *out, strerror(errno));
		ret = -1;
	}
	if (ret)
		unlink(tmp);
	else
		lab_info("the disk image's initramfs for %s: %zu module(s), %s", release, order.n,
			 *out);
done:
	if (ret) {
		free(*out);
		*out = NULL;
	}
	strlist_free(&order);
	free(init);
	free(dir);
	free(tmp);
	return ret;
}
