// SPDX-License-Identifier: GPL-2.0
/*
 * initramfs.c - the initramfs guest image (libarchive: cpio newc + gzip).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <archive_entry.h>

#include "image/cpio.h"
#include "image/initramfs.h"
#include "image/recipe.h"
#include "proto.h"
#include "lib/timefmt.h"
#include "lib/strbuf.h"

#define IMAGE_FORMAT "mmlab-initramfs-1"
/*
 * sha256 of the layout (image_recipe_layout()) that format 1 hard-wired
 * and images/initramfs.yaml lists: an image with it hashes as before the
 * recipes, so the images cached then stay valid.
 */
#define IMAGE_FORMAT1_LAYOUT "a4a33edc1b5c54e5c54b96a51afab3bf59775e5da78bc1782303ea68c4732546"
#define GUEST_FILE_MAX (256u << 20)

const char *image_guest_dir(void)
{
	static char *dir;

	if (!dir)
		dir = resource_dir("MMLAB_GUEST_DIR", "build/guest", "../lib/mmlab/guest");
	return dir;
}

struct guest_file {
	char *src; /* host path */
	char *dst; /* path in the image, no leading slash */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the agent and every workload program, in a stable order */
static int guest_files(struct guest_file **out, size_t *n)
{
	const char *gd = image_guest_dir();
	char *agent = xasprintf("%s/agent", gd);
	char *wdir = xasprintf("%s/workloads", gd);
	struct strlist names = { 0 };
	struct guest_file *f;
	struct dirent *e;
	DIR *d;

	if (access(agent, R_OK)) {
		lab_err("the guest agent %s is missing; run 'make' in the mmlab checkout "
			"(or set MMLAB_GUEST_DIR)",
			agent);
		goto fail;
	}
	d = opendir(wdir);
	if (!d) {
		lab_err("cannot read the guest workloads in %s: %s; run 'make'", wdir,
			strerror(errno));
		goto fail;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *p;

		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue;
		p = xasprintf("%s/%s", wdir, e->d_name);
		/* programs only: not directories, not object files */
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			strlist_push(&names, e->d_name);
		free(p);
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_name);
	f = xcalloc(names.n + 1, sizeof(*f));
	f[0].src = agent;
	f[0].dst = xstrdup("init");
	for (size_t i = 0; i < names.n; i++) {
		f[i + 1].src = xasprintf("%s/%s", wdir, names.v[i]);
		f[i + 1].dst = xasprintf("mmlab/workloads/%s", names.v[i]);
	}
	*n = names.n + 1;
	*out = f;
	strlist_free(&names);
	free(wdir);
	return 0;
fail:
	free(agent);
	free(wdir);
	return -1;
}

static void free_files(struct guest_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].src);
		free(f[i].dst);
	}
	free(f);
}

/* a regular file from the host file src, or with the contents text */
static int cpio_guest_file(struct cpio *c, const char *dst, const char *src, const char *text,
			   unsigned int mode)
{
	size_t len = text ? strlen(text) : 0;
	char *data = src ? read_file(src, &len, GUEST_FILE_MAX) : NULL;
	int ret;

	if (src && !data)
		return -1;
	ret = cpio_parents(c, dst) || cpio_file(c, dst, mode, src ? data : text, len);
	free(data);
	return ret ? -1 : 0;
}

/* the recipe's dirs and devices, the guest programs, the recipe's files */
static int write_entries(struct cpio *c, const struct image_recipe *r,
			 const struct guest_file *files, size_t n)
{
	for (size_t i = 0; i < r->dirs.n; i++)
		if (cpio_parents(c, r->dirs.v[i]) || cpio_dir(c, r->dirs.v[i]))
			return -1;
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct recipe_device *d = &r->devices[i];

		if (cpio_parents(c, d->path) ||
		    cpio_header(c, d->path, d->block ? AE_IFBLK : AE_IFCHR, d->mode, 0,
				makedev(d->major, d->minor)))
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (cpio_guest_file(c, files[i].dst, files[i].src, NULL, 0755))
			return -1;
	for (size_t i = 0; i < r->nfiles; i++)
		if (cpio_guest_file(c, r->files[i].path, r->files[i].src, r->files[i].text,
				    r->files[i].mode))
			return -1;
	return 0;
}

static int write_base(const char *path, const struct image_recipe *r,
		      const struct guest_file *files, size_t n)
{
	struct cpio c;
	int ret = -1;

	if (!cpio_open_file(&c, path, 1) && !write_entries(&c, r, files, n) && cpio_close(&c) >= 0)
		ret = 0;
	cpio_free(&c);
	return ret;
}

/*
 * The image hash: the format, each guest program, and the recipe's layout
 * unless it is the one format 1 hard-wired (layout NULL: the guest
 * programs only, image_guest_hash()).
 */
static int inputs_hash(struct guest_file *files, size_t n, const char *layout, char out[65])
{
	struct strbuf text = STRBUF_INIT;
	char lh[65];

	strbuf_addstr(&text, IMAGE_FORMAT "\n");
	for (size_t i = 0; i < n; i++) {
		char h[65];

		if (sha256_file(files[i].src, h)) {
			strbuf_release(&text);
			return -1;
		}
		strbuf_addf(&text, "%s %s\n", files[i].dst, h);
	}
	if (layout) {
		sha256_buf(layout, strlen(layout), lh);
		if (strcmp(lh, IMAGE_FORMAT1_LAYOUT))
			strbuf_addf(&text, "layout %s\n", lh);
	}
	sha256_buf(text.buf, text.len, out);
	strbuf_release(&text);
	return 0;
}

/* the recipe next to the image: which recipe, which guest programs (image gc) */
static char *meta_text(const struct image_recipe *r, struct guest_file *files, size_t n)
{
	char gh[65];

	if (inputs_hash(files, n, NULL, gh))
		return NULL;
	return xasprintf(IMAGE_FORMAT "\nrecipe=%s\nguest=%s\n", r->name, gh);
}

static int store(const struct image_recipe *r, struct guest_file *files, size_t n, const char *dir,
		 struct image *img)
{
	char *tmp = xasprintf("%s.tmp.%ld", img->path, (long)getpid());
	char *mp = xasprintf("%s/initramfs-%.16s.json", dir, img->hash);
	char *meta = meta_text(r, files, n);
	int ret = -1;

	if (!meta || mkdir_p(dir, 0755) || write_base(tmp, r, files, n) ||
	    write_file_atomic(mp, meta, strlen(meta), 0644))
		goto out;
	if (rename(tmp, img->path)) {
		lab_err("cannot store the image %s: %s", img->path, strerror(errno));
		unlink(mp);
		goto out;
	}
	ret = 0;
out:
	unlink(tmp);
	free(tmp);
	free(mp);
	free(meta);
	return ret;
}

int image_initramfs_make(const char *cache_dir, const struct image_recipe *r, bool dry_run,
			 struct image *img)
{
	struct guest_file *files;
	char *dir = xasprintf("%s/images", cache_dir), *layout = NULL;
	size_t n;
	int ret = -1;

	memset(img, 0, sizeof(*img));
	if (guest_files(&files, &n)) {
		free(dir);
		return -1;
	}
	layout = image_recipe_layout(r);
	if (!layout || inputs_hash(files, n, layout, img->hash))
		goto out;
	img->path = xasprintf("%s/initramfs-%.16s.cpio.gz", dir, img->hash);
	if (dry_run || path_exists(img->path)) {
		ret = 0;
		goto out;
	}
	ret = store(r, files, n, dir, img);
	img->built = !ret;
out:
	free_files(files, n);
	free(layout);
	free(dir);
	if (ret)
		image_release(img);
	return ret;
}

int image_initramfs_get(const char *cache_dir, const char *recipe, struct image *img)
{
	struct image_recipe r;
	int ret;

	memset(img, 0, sizeof(*img));
	if (recipe ? image_recipe_load(recipe, &r) :
		     image_recipe_load_default(RECIPE_INITRAMFS, &r))
		return -1;
	if (r.kind != RECIPE_INITRAMFS) {
		lab_err("the image recipe %s is a %s recipe, not an initramfs; give an "
			"initramfs recipe (kind: initramfs)",
			r.path, image_recipe_kind_name(r.kind));
		image_recipe_release(&r);
		return -1;
	}
	ret = image_initramfs_make(cache_dir, &r, false, img);
	image_recipe_release(&r);
	return ret;
}

int image_initramfs(const char *cache_dir, struct image *img)
{
	return image_initramfs_get(cache_dir, NULL, img);
}

int image_guest_hash(char out[65])
{
	struct guest_file *files;
	size_t n;
	int ret;

	if (guest_files(&files, &n))
		return -1;
	ret = inputs_hash(files, n, NULL, out);
	free_files(files, n);
	return ret;
}

int image_guest_install(const char *root, const char *agent_path)
{
	struct guest_file *files;
	size_t n;
	int ret = 0;

	if (guest_files(&files, &n))
		return -1;
	for (size_t i = 0; i < n && !ret; i++) {
		/* files[0] is the agent ("init"), the rest mmlab/workloads/<name> */
		char *dst = i ? xasprintf("%s/%s", root, files[i].dst) :
				xasprintf("%s/%s", root, agent_path);
		char *slash = strrchr(dst, '/');

		*slash = '\0';
		ret = mkdir_p(dst, 0755);
		*slash = '/';
		if (!ret)
			ret = copy_file(files[i].src, dst, 0755);
		free(dst);
	}
	free_files(files, n);
	return ret;
}

void image_release(struct image *img)
{
	free(img->path);
	img->path = NULL;
}

/* the base image's bytes from in to out; their count, or -1 after a message */
static int64_t copy_base(int in, int out, const char *base, const char *out_path)
{
	char *buf = xmalloc(1u << 20);
	int64_t total = 0;

	for (;;) {
		ssize_t n = read(in, buf, 1u << 20);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lab_err("cannot read the image %s: %s", base, strerror(errno));
			total = -1;
			break;
		}
		if (!n)
			break;
		if (fd_write_all(out, buf, (size_t)n)) {
			lab_err("cannot write %s: %s; check the free space", out_path,
				strerror(errno));
			total = -1;
			break;
		}
		total += n;
	}
	free(buf);
	return total;
}

int image_boot_initrd(const char *base, const struct kvlist *plan, const char *out_path)
{
	struct payload p = { 0 };
	int ret = payload_add_plan(&p, plan);

	if (!ret)
		ret = image_boot_initrd_files(base, &p, out_path);
	payload_release(&p);
	return ret;
}

int image_boot_initrd_files(const char *base, const struct payload *files, const char *out_path)
{
	static const char zeros[4];
	char *tmp = xasprintf("%s.tmp.%ld", out_path, (long)getpid());
	int in = open(base, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	int64_t blen;

	if (in < 0) {
		lab_err("cannot read the image %s: %s; run 'mmlab image build'", base,
			strerror(errno));
		goto out;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		lab_err("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	blen = copy_base(in, out, base, out_path);
	/* the kernel wants each appended archive to start 4-byte aligned */
	if (blen < 0 || fd_write_all(out, zeros, (size_t)((4 - blen % 4) % 4)) ||
	    payload_write_cpio(files, out, out_path) < 0)
		goto out;
	if (close(out)) {
		out = -1;
		lab_err("cannot write %s: %s; check the free space", tmp, strerror(errno));
		goto out;
	}
	out = -1;
	if (rename(tmp, out_path)) {
		lab_err("cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}
