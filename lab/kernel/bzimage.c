// SPDX-License-Identifier: GPL-2.0
/*
 * bzimage.c - locate prebuilt kernels and read their release from the x86
 * boot protocol header (Documentation/arch/x86/boot.rst): "HdrS" at 0x202,
 * the kernel_version pointer at 0x20e (offset from 0x200).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/bzimage.h"
#include "lib/util.h"

static const char *boot_dir(void)
{
	const char *e = getenv("MMLAB_BOOT_DIR");

	return e && *e ? e : "/boot";
}

int kernel_read_info(const char *path, struct kernel_info *ki)
{
	unsigned char hdr[0x210];
	char ver[256];
	unsigned int off;
	ssize_t n;
	int fd;

	memset(ki, 0, sizeof(*ki));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		lab_err("cannot open the kernel %s: %s", path, strerror(errno));
		return -1;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		lab_err("%s is not an x86 bzImage (no 'HdrS' boot header); give a "
			"bzImage such as arch/x86/boot/bzImage or /boot/vmlinuz-*",
			path);
		close(fd);
		return -1;
	}
	off = (unsigned int)hdr[0x20e] | (unsigned int)hdr[0x20f] << 8;
	n = off ? pread(fd, ver, sizeof(ver) - 1, 0x200 + off) : -1;
	close(fd);
	if (n <= 0) {
		lab_err("%s: the boot header has no kernel version string", path);
		return -1;
	}
	ver[n] = '\0';
	ver[strcspn(ver, "\n")] = '\0';
	for (char *p = ver; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	ki->version = xstrdup(ver);
	ki->release = xstrndup(ver, strcspn(ver, " "));
	ki->path = realpath(path, NULL);
	if (!ki->path)
		ki->path = xstrdup(path);
	if (sha256_file(path, ki->sha256)) {
		kernel_info_release(ki);
		return -1;
	}
	return 0;
}

static int cmp_ver_desc(const void *a, const void *b)
{
	return strverscmp(*(char *const *)b, *(char *const *)a);
}

static void distro_names(struct strlist *out)
{
	DIR *d = opendir(boot_dir());
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vmlinuz-", 8) && !strstr(e->d_name, ".old"))
			strlist_push(out, e->d_name);
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_ver_desc);
}

char *kernel_find_distro(void)
{
	struct strlist names = { 0 };
	char *path = NULL;

	distro_names(&names);
	for (size_t i = 0; i < names.n && !path; i++) {
		char *p = xasprintf("%s/%s", boot_dir(), names.v[i]);

		if (access(p, R_OK) == 0)
			path = p;
		else
			free(p);
	}
	if (!path)
		lab_err("no kernel found in %s (no readable vmlinuz-*); install one with "
			"'apt-get install linux-image-amd64' or give 'kernel: PATH' in the job",
			boot_dir());
	strlist_free(&names);
	return path;
}

json_t *kernel_list_distro(void)
{
	struct strlist names = { 0 };
	json_t *out = json_array();

	distro_names(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s", boot_dir(), names.v[i]);

		json_array_append_new(out,
				      json_pack("{s:s, s:s, s:b}", "path", p, "release",
						names.v[i] + 8, "readable", access(p, R_OK) == 0));
		free(p);
	}
	strlist_free(&names);
	return out;
}

char *kernel_distro_config(void)
{
	struct kernel_info ki;
	char *vmlinuz = kernel_find_distro(), *config;

	if (!vmlinuz || kernel_read_info(vmlinuz, &ki)) {
		free(vmlinuz);
		return NULL;
	}
	config = xasprintf("%s/config-%s", boot_dir(), ki.release);
	kernel_info_release(&ki);
	free(vmlinuz);
	return config;
}

void kernel_info_release(struct kernel_info *ki)
{
	free(ki->path);
	free(ki->release);
	free(ki->version);
	free(ki->cache_key);
	free(ki->base_commit);
	free(ki->config_hash);
	free(ki->build_log);
	free(ki->request);
	json_decref(ki->operations);
	json_decref(ki->package);
	memset(ki, 0, sizeof(*ki));
}
