// SPDX-License-Identifier: GPL-2.0
/*
 * diskimage.c - the Debian disk image: debootstrap, libguestfs, overlays.
 *
 * No loop mounts and no root-only tricks on the host: debootstrap fills a
 * staging directory, tar packs it, and a libguestfs appliance partitions,
 * formats and fills the qcow2. The image appears in the cache under its
 * final name only when it is complete (built as *.tmp.<pid>, renamed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <guestfs.h>

#include "image/diskimage.h"
#include "image/initramfs.h"
#include "image/recipe.h"
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/strbuf.h"

#define DISK_FORMAT "mmlab-debootstrap-1"
/*
 * sha256 of the layout (image_recipe_layout(): /var/log/mmlab, /etc/hostname,
 * /etc/fstab) that format 1 hard-wired and images/debootstrap.yaml lists:
 * an image with it and variant minbase hashes as before the recipes, so the
 * images cached then stay valid.
 */
#define DISK_FORMAT1_LAYOUT "c9eb651604d85475865ce22cad9d0c2b41c729454d1425cf9a7e17efe14cd4bb"
#define DISK_FORMAT1_VARIANT "minbase"
#define DEBOOTSTRAP_TIMEOUT_S 3600.0
#define TAR_TIMEOUT_S 1800.0
#define OVERLAY_TIMEOUT_S 60
#define PAYLOAD_DISK_MIN (1 << 20)

/*
 * tcg: the lab's accel verdict is TCG. Unless the user set them,
 * LIBGUESTFS_BACKEND becomes "direct" and, under TCG,
 * LIBGUESTFS_BACKEND_SETTINGS "force_tcg".
 */
static guestfs_h *gfs_open(const char *what, bool tcg)
{
	guestfs_h *g = guestfs_create();
	const char *settings[] = { "force_tcg", NULL };

	/*
	 * libguestfs talks to its appliance over sockets and pipes; when the
	 * appliance goes away a write would kill us with SIGPIPE instead of
	 * failing with EPIPE (the lab handles write errors everywhere).
	 */
	signal(SIGPIPE, SIG_IGN);
	if (!g) {
		lab_err("%s: cannot create a libguestfs handle; is libguestfs0 installed "
			"(scripts/install-deps)?",
			what);
		return NULL;
	}
	guestfs_set_error_handler(g, NULL, NULL);
	if (!getenv("LIBGUESTFS_BACKEND"))
		guestfs_set_backend(g, "direct");
	if (tcg && !getenv("LIBGUESTFS_BACKEND_SETTINGS"))
		guestfs_set_backend_settings(g, (char *const *)settings);
	return g;
}

static int gfs_fail(guestfs_h *g, const char *what, const char *hint)
{
	const char *e = guestfs_last_error(g);

	lab_err("%s: %s%s%s", what, e ? e : "libguestfs failed", hint ? "; " : "",
		hint ? hint : "");
	return -1;
}

static void gfs_close(guestfs_h *g)
{
	if (!g)
		return;
	guestfs_shutdown(g);
	guestfs_close(g);
}

/* ---- the recipe ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* packages sorted, duplicates dropped, comma-separated ("" when none) */
static char *package_list(const struct strlist *p)
{
	struct strlist s = { 0 };
	struct strbuf out = STRBUF_INIT;

	for (size_t i = 0; p && i < p->n; i++)
		strlist_push(&s, p->v[i]);
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_str);
	for (size_t i = 0; i < s.n; i++)
		if (!i || strcmp(s.v[i], s.v[i - 1]))
			strbuf_addsep(&out, ",", s.v[i]);
	strlist_free(&s);
	return strbuf_detach(&out);
}

void disk_recipe_apply(const struct disk_recipe *r, struct image_recipe *rec)
{
	if (r->suite) {
		free(rec->suite);
		rec->suite = xstrdup(r->suite);
	}
	for (size_t i = 0; r->packages && i < r->packages->n; i++)
		strlist_push(&rec->packages, r->packages->v[i]);
	if (r->size_bytes)
		rec->size_bytes = r->size_bytes;
}

int disk_recipe_resolve(const struct disk_recipe *r, struct image_recipe *out)
{
	if (r->recipe ? image_recipe_load(r->recipe, out) :
			image_recipe_load_default(RECIPE_DEBOOTSTRAP, out))
		return -1;
	if (out->kind != RECIPE_DEBOOTSTRAP) {
		lab_err("the image recipe %s is of kind %s, not a disk image; give a recipe "
			"with 'kind: debootstrap'",
			out->path, image_recipe_kind_name(out->kind));
		image_recipe_release(out);
		return -1;
	}
	disk_recipe_apply(r, out);
	return 0;
}

/*
 * What the image hash covers, also kept next to the image and in it as
 * /etc/mmlab-image. The variant and the layout appear only when they are
 * not what format 1 hard-wired, so the images cached then keep their hash.
 */
static char *recipe_text(const struct image_recipe *r, const char *guest_hash)
{
	char *pk = package_list(&r->packages), *layout = image_recipe_layout(r), lh[65];
	struct strbuf t = STRBUF_INIT;

	if (!layout) {
		free(pk);
		return NULL;
	}
	strbuf_addf(&t, DISK_FORMAT "\nsuite=%s\npackages=%s\nsize=%llu\nguest=%s\n", r->suite, pk,
		    (unsigned long long)r->size_bytes, guest_hash);
	if (strcmp(r->variant, DISK_FORMAT1_VARIANT))
		strbuf_addf(&t, "variant=%s\n", r->variant);
	sha256_buf(layout, strlen(layout), lh);
	if (strcmp(lh, DISK_FORMAT1_LAYOUT))
		strbuf_addf(&t, "layout=%s\n", lh);
	free(pk);
	free(layout);
	return strbuf_detach(&t);
}

/* ---- the mirror: the host's apt sources, else debootstrap's default ---- */

/* a ".../debian" URI (not debian-security, not a third-party archive) */
static bool mirror_uri(const char *u)
{
	size_t n = strlen(u);

	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8))
		return false;
	while (n && u[n - 1] == '/')
		n--;
	return n >= 7 && !strncmp(u + n - 7, "/debian", 7);
}

static char *mirror_in_file(const char *path, bool deb822)
{
	FILE *f = fopen(path, "r");
	char line[1024], *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL;

		line[strcspn(line, "#\n")] = '\0';
		tok = strtok_r(line, " \t", &save);
		if (!tok)
			continue;
		if (deb822 ? strcasecmp(tok, "URIs:") : strcmp(tok, "deb"))
			continue;
		while ((tok = strtok_r(NULL, " \t", &save))) {
			if (tok[0] == '[') { /* one-line options: [arch=amd64 ...] */
				while (tok && !strchr(tok, ']'))
					tok = strtok_r(NULL, " \t", &save);
				continue;
			}
			if (mirror_uri(tok)) {
				found = xstrdup(tok);
				break;
			}
			if (!deb822)
				break;
		}
	}
	fclose(f);
	return found;
}

/* $MMLAB_DEBIAN_MIRROR, the recipe's, the host's, or NULL: debootstrap's default */
static char *host_mirror(const char *recipe_mirror)
{
	const char *env = getenv("MMLAB_DEBIAN_MIRROR");
	const char *dir = "/etc/apt/sources.list.d";
	struct strlist names = { 0 };
	struct dirent *e;
	char *m;
	DIR *d;

	if (env && *env)
		return xstrdup(env);
	if (recipe_mirror)
		return xstrdup(recipe_mirror);
	m = mirror_in_file("/etc/apt/sources.list", false);
	if (m)
		return m;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if ((n > 5 && !strcmp(e->d_name + n - 5, ".list")) ||
		    (n > 8 && !strcmp(e->d_name + n - 8, ".sources")))
			strlist_push(&names, e->d_name);
	}
	if (d)
		closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && !m; i++) {
		char *p = xasprintf("%s/%s", dir, names.v[i]);

		m = mirror_in_file(p, strstr(names.v[i], ".sources") != NULL);
		free(p);
	}
	strlist_free(&names);
	return m;
}

/* ---- building ---- */

/* less than 64 MiB free where the build ran: a download or unpack failed for space */
static bool nearly_full(const char *dir)
{
	struct statvfs v;

	return statvfs(dir, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < (64ULL << 20);
}

static void explain_debootstrap(const char *out, const char *mirror, const char *work)
{
	const char *m = mirror ? mirror : "debootstrap's default mirror";
	const char *miss = strstr(out, "Couldn't find these debs:");

	if (miss) {
		char pk[256];

		snprintf(pk, sizeof(pk), "%s", miss + 25);
		pk[strcspn(pk, "\n")] = '\0';
		lab_err("image build: the package archive %s has no package(s)%s; check the "
			"names in image.packages / --packages (apt-cache policy NAME)",
			m, pk);
	} else if (strstr(out, "No space left on device") || nearly_full(work)) {
		const char *slash = strrchr(work, '/');

		lab_err("image build: the disk is full under %.*s; free some space or point "
			"MMLAB_CACHE at a larger filesystem",
			slash ? (int)(slash - work) : (int)strlen(work), work);
	} else if (strstr(out, "Failed getting release file") ||
		   strstr(out, "Temporary failure resolving") || strstr(out, "Could not resolve") ||
		   strstr(out, "Connection refused") || strstr(out, "Failed to connect") ||
		   strstr(out, "Couldn't download")) {
		lab_err("image build: cannot download from the package archive %s (no network?); "
			"check the connection or set MMLAB_DEBIAN_MIRROR to a reachable mirror",
			m);
	} else if (strstr(out, "Invalid Release file") || strstr(out, "No such script")) {
		lab_err("image build: debootstrap does not know this suite at %s; "
			"give an existing Debian suite such as bookworm",
			m);
	} else {
		lab_err("image build: debootstrap failed; see its output above");
	}
}

/* the last lines of debootstrap's own log, then what they mean */
static void debootstrap_failed(const struct spawn_result *res, unsigned int timeout_s,
			       const char *mirror, const char *work)
{
	const char *nl = res->out ? res->out : "";

	if (res->out_len > 2000)
		nl = res->out + res->out_len - 2000;
	if (*nl)
		fprintf(stderr, "%s\n", nl);
	if (res->timed_out)
		lab_err("image build: debootstrap did not finish within %u s; check the "
			"network",
			timeout_s);
	else if (res->exit_code == 127)
		lab_err("image build: debootstrap is not installed; run scripts/install-deps");
	else if (res->exit_code >= 0 || res->term_signal)
		explain_debootstrap(res->out ? res->out : "", mirror, work);
}

static int run_debootstrap(const struct image_recipe *r, const char *root, const char *work)
{
	char *pk = package_list(&r->packages), *inc = NULL, *mirror = host_mirror(r->mirror);
	char *variant = xasprintf("--variant=%s", r->variant);
	const char *argv[8];
	struct spawn_opts o = { .timeout_s = DEBOOTSTRAP_TIMEOUT_S, .capture_max = 16384 };
	struct spawn_result res;
	int n = 0, ret;

	argv[n++] = "debootstrap";
	if (strcmp(r->variant, "standard")) /* debootstrap's default set has no name */
		argv[n++] = variant;
	if (*pk) {
		inc = xasprintf("--include=%s", pk);
		argv[n++] = inc;
	}
	argv[n++] = r->suite;
	argv[n++] = root;
	if (mirror)
		argv[n++] = mirror;
	argv[n] = NULL;
	lab_info("image build: debootstrap %s %s%s%s from %s (a few minutes)", variant, r->suite,
		 *pk ? " with " : "", pk, mirror ? mirror : "the default mirror");
	ret = spawn_run(argv, &o, &res);
	if (ret)
		debootstrap_failed(&res, o.timeout_s, mirror, work);
	free(variant);
	spawn_result_free(&res);
	free(pk);
	free(inc);
	free(mirror);
	return ret;
}

/*
 * What debootstrap leaves that no guest reads: the .deb files it installed
 * from, apt's package lists (the guest has no network), manuals, info
 * pages, message catalogues and documentation, except each package's
 * copyright file (Debian's "slim" images drop the same paths). About 40 %
 * of an image with a compiler; the tar and the appliance's copy of it
 * shrink with it. Directories stay, so apt and dpkg find theirs.
 */
static const char *const slim_dirs[] = { "var/cache/apt/archives", "var/lib/apt/lists",
					 "usr/share/man",	   "usr/share/info",
					 "usr/share/locale",	   "usr/share/doc" };
static _Thread_local uint64_t slim_bytes;

static int slim_cb(const char *path, const struct stat *st, int type, struct FTW *f)
{
	if (type == FTW_D || type == FTW_DP || type == FTW_DNR)
		return 0;
	if (!strcmp(path + f->base, "copyright") && strstr(path, "/usr/share/doc/"))
		return 0;
	if (!unlink(path) && type == FTW_F)
		slim_bytes += (uint64_t)st->st_size;
	return 0;
}

static void slim(const char *root)
{
	slim_bytes = 0;
	for (size_t i = 0; i < sizeof(slim_dirs) / sizeof(slim_dirs[0]); i++) {
		char *d = xasprintf("%s/%s", root, slim_dirs[i]);

		nftw(d, slim_cb, 16, FTW_PHYS);
		free(d);
	}
	lab_info("image build: %.0f MiB of packages, apt lists and documentation left out",
		 (double)slim_bytes / (1 << 20));
}

/* root/path with mode: the text, or a copy of the host file src */
static int put_file(const char *root, const char *path, const char *text, const char *src,
		    unsigned int mode)
{
	char *p = xasprintf("%s/%s", root, path), *slash = strrchr(p, '/');
	int ret;

	*slash = '\0';
	ret = mkdir_p(p, 0755);
	*slash = '/';
	if (!ret)
		ret = src ? copy_file(src, p, mode) :
			    write_file_atomic(p, text, strlen(text), mode);
	free(p);
	return ret;
}

/* the recipe's dirs, the agent as init, the workloads, the recipe's files */
static int customise(const char *root, const struct image_recipe *r, const char *text)
{
	for (size_t i = 0; i < r->dirs.n; i++) {
		char *d = xasprintf("%s/%s", root, r->dirs.v[i]);
		int ret = mkdir_p(d, 0755);

		free(d);
		if (ret)
			return -1;
	}
	if (image_guest_install(root, DISK_AGENT_PATH))
		return -1;
	for (size_t i = 0; i < r->nfiles; i++)
		if (put_file(root, r->files[i].path, r->files[i].text, r->files[i].src,
			     r->files[i].mode))
			return -1;
	return put_file(root, "etc/mmlab-image", text, NULL, 0644);
}

static int make_qcow2(const char *tar, const char *qcow2, uint64_t size, bool tcg)
{
	guestfs_h *g = gfs_open("image build", tcg);
	char sz[32];
	int ret = -1;

	if (!g)
		return -1;
	fmt_size(size, sz, sizeof(sz));
	lab_info("image build: making a %s qcow2 with libguestfs (the first appliance takes "
		 "a while%s)",
		 sz, tcg ? " under TCG" : "");
	if (guestfs_disk_create(g, qcow2, "qcow2", (int64_t)size, -1)) {
		gfs_fail(g, qcow2, "check the free space under MMLAB_CACHE");
		goto out;
	}
	if (guestfs_add_drive_opts(g, qcow2, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1) ||
	    guestfs_launch(g)) {
		gfs_fail(g, "image build: starting the libguestfs appliance",
			 "run 'libguestfs-test-tool' to see why");
		goto out;
	}
	if (guestfs_part_disk(g, "/dev/sda", "mbr") || guestfs_mkfs(g, "ext4", "/dev/sda1") ||
	    guestfs_mount(g, "/dev/sda1", "/")) {
		gfs_fail(g, "image build: partitioning and formatting the disk", NULL);
		goto out;
	}
	lab_info("image build: copying the root filesystem in");
	if (guestfs_tar_in(g, tar, "/")) {
		gfs_fail(g, "image build: copying the root filesystem into the disk",
			 "if the disk is full, raise image.size (--size)");
		goto out;
	}
	if (guestfs_umount_all(g) || guestfs_shutdown(g)) {
		gfs_fail(g, "image build: finishing the disk", NULL);
		goto out;
	}
	ret = 0;
out:
	gfs_close(g);
	return ret;
}

static int build(const char *work, const struct image_recipe *r, const char *recipe,
		 const char *tmp_qcow2, bool tcg)
{
	char *root = xasprintf("%s/root", work), *tar = xasprintf("%s/root.tar", work);
	const char *argv[] = { "tar", "--numeric-owner", "--xattrs", "-C", root, "-cf", tar, ".",
			       NULL };
	struct spawn_opts o = { .timeout_s = TAR_TIMEOUT_S };
	int ret = -1;

	if (mkdir_p(root, 0755) || run_debootstrap(r, root, work))
		goto out;
	slim(root);
	if (customise(root, r, recipe))
		goto out;
	if (spawn_run(argv, &o, NULL))
		goto out;
	/* the tree is in the tar now: free its space before the qcow2 grows */
	rm_rf(root);
	ret = make_qcow2(tar, tmp_qcow2, r->size_bytes, tcg);
out:
	free(root);
	free(tar);
	return ret;
}

/*
 * Build the image of r in dir/debootstrap-HASH.tmp.<pid> and rename it into
 * place only when complete: a build killed outright leaves the work
 * directory behind, which no lookup or listing takes for an image and
 * "image gc" removes.
 */
static int build_into(const char *dir, const struct image_recipe *r, const char *text,
		      struct disk_image *out, bool tcg)
{
	char *work = xasprintf("%s/debootstrap-%.16s.tmp.%ld", dir, out->hash, (long)getpid());
	char *tmp = xasprintf("%s/image.qcow2", work);
	char *mp = xasprintf("%s/debootstrap-%.16s.json", dir, out->hash);
	char *meta = xasprintf("%srecipe=%s\n", text, r->name);
	double t0 = now_monotonic();
	int ret = -1;

	rm_rf(work);
	if (mkdir_p(work, 0755) || build(work, r, text, tmp, tcg))
		goto out;
	chmod(tmp, 0644);
	if (write_file_atomic(mp, meta, strlen(meta), 0644))
		goto out;
	if (rename(tmp, out->path)) {
		lab_err("image build: cannot store %s: %s", out->path, strerror(errno));
		unlink(mp);
		goto out;
	}
	ret = 0;
	lab_info("image build: %s done in %.0f s", out->path, now_monotonic() - t0);
out:
	rm_rf(work);
	free(work);
	free(tmp);
	free(mp);
	free(meta);
	return ret;
}

int disk_image_make(const char *cache_dir, const struct image_recipe *r, bool dry_run, bool tcg,
		    struct disk_image *out)
{
	char gh[65], *dir, *text;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (image_guest_hash(gh))
		return -1;
	text = recipe_text(r, gh);
	if (!text)
		return -1;
	sha256_buf(text, strlen(text), out->hash);
	dir = xasprintf("%s/images", cache_dir);
	out->path = xasprintf("%s/debootstrap-%.16s.qcow2", dir, out->hash);
	if (dry_run || path_exists(out->path)) {
		ret = 0;
	} else if (!mkdir_p(dir, 0755) && !build_into(dir, r, text, out, tcg)) {
		out->built = true;
		ret = 0;
	}
	free(dir);
	free(text);
	if (ret)
		disk_image_release(out);
	return ret;
}

int disk_image_get(const char *cache_dir, const struct disk_recipe *r, bool tcg,
		   struct disk_image *out)
{
	struct image_recipe rec;
	int ret;

	memset(out, 0, sizeof(*out));
	if (disk_recipe_resolve(r, &rec))
		return -1;
	ret = disk_image_make(cache_dir, &rec, false, tcg, out);
	image_recipe_release(&rec);
	return ret;
}

void disk_image_release(struct disk_image *d)
{
	free(d->path);
	d->path = NULL;
}

/* ---- per boot: no libguestfs (docs/image.md, BOOTING IT) ---- */

int disk_overlay_create(const char *base, const char *overlay)
{
	/* -F: the backing file's format said, never probed */
	const char *argv[] = { "qemu-img", "create", "-q",    "-f",    "qcow2", "-b",
			       base,	   "-F",     "qcow2", overlay, NULL };
	struct spawn_opts o = { .timeout_s = OVERLAY_TIMEOUT_S, .capture_max = 4096 };
	struct spawn_result res;
	char how[128];
	int ret = spawn_run(argv, &o, &res);

	if (ret && res.exit_code == 127)
		lab_err("qemu-img is not installed; run scripts/install-deps");
	else if (ret)
		lab_err("creating the boot's disk overlay %s on %s: qemu-img %s: %s; check the "
			"free space in /tmp",
			overlay, base, spawn_describe(&res, o.timeout_s, how, sizeof(how)),
			spawn_tail(&res, 3));
	spawn_result_free(&res);
	if (ret)
		unlink(overlay);
	return ret ? -1 : 0;
}

int disk_payload_write(const struct payload *files, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int64_t n;
	int ret = -1;

	if (fd < 0) {
		lab_err("cannot create the boot's payload disk %s: %s", path, strerror(errno));
		return -1;
	}
	n = payload_write_cpio(files, fd, path);
	/*
	 * Whole sectors, since the guest reads a block device, and at least
	 * PAYLOAD_DISK_MIN (sparse zeros), so that the kernel's partition
	 * scan does not read beyond the end of a tiny disk and say so.
	 */
	if (n >= 0 &&
	    ftruncate(fd, (off_t)(n > PAYLOAD_DISK_MIN ? (n + 511) / 512 * 512 : PAYLOAD_DISK_MIN)))
		lab_err("cannot write the boot's payload disk %s: %s; check the free space", path,
			strerror(errno));
	else if (n >= 0)
		ret = 0;
	if (close(fd) && !ret) {
		lab_err("cannot write the boot's payload disk %s: %s; check the free space", path,
			strerror(errno));
		ret = -1;
	}
	if (ret)
		unlink(path);
	return ret;
}

static char *kernel_sibling(const char *kernel_path, const char *fmt, const char *release)
{
	char *dir = xstrdup(kernel_path), *slash = strrchr(dir, '/'), *p;

	if (slash)
		*slash = '\0';
	p = xasprintf("%s/", slash ? dir : ".");
	free(dir);
	dir = p;
	p = xasprintf(fmt, dir, release);
	free(dir);
	return p;
}

char *disk_kernel_moddir(const char *kernel_path, const char *release)
{
	char *p = disk_kernel_modules(kernel_path, release);
	size_t n = strlen(release);

	if (p)
		return p;
	/* the host's own kernels: /boot/vmlinuz-REL has /lib/modules/REL */
	if (!strncmp(kernel_path, "/boot/", 6) && strlen(kernel_path) > n &&
	    !strcmp(kernel_path + strlen(kernel_path) - n, release)) {
		p = xasprintf("/lib/modules/%s", release);
		if (is_dir(p))
			return p;
		free(p);
	}
	return NULL;
}

char *disk_kernel_modules(const char *kernel_path, const char *release)
{
	char *p = kernel_sibling(kernel_path, "%slib/modules/%s", release);

	if (is_dir(p))
		return p;
	free(p);
	return NULL;
}
