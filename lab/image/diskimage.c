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
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/strbuf.h"

#define DISK_FORMAT "mmlab-debootstrap-1"
#define DEBOOTSTRAP_TIMEOUT_S 3600.0
#define TAR_TIMEOUT_S 1800.0

static bool tcg;

void disk_set_tcg(bool t)
{
	tcg = t;
}

static guestfs_h *gfs_open(const char *what)
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
			"(scripts/install-deps)?", what);
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

static const char *suite_of(const struct disk_recipe *r)
{
	return r->suite ? r->suite : DISK_DEFAULT_SUITE;
}

static uint64_t size_of(const struct disk_recipe *r)
{
	return r->size_bytes ? r->size_bytes : DISK_DEFAULT_SIZE;
}

static char *recipe_text(const struct disk_recipe *r, const char *guest_hash)
{
	char *pk = package_list(r->packages);
	char *t = xasprintf(DISK_FORMAT "\nsuite=%s\npackages=%s\nsize=%llu\nguest=%s\n",
			    suite_of(r), pk, (unsigned long long)size_of(r), guest_hash);

	free(pk);
	return t;
}

int disk_recipe_hash(const struct disk_recipe *r, char out[65])
{
	char gh[65], *t;

	if (image_guest_hash(gh))
		return -1;
	t = recipe_text(r, gh);
	sha256_buf(t, strlen(t), out);
	free(t);
	return 0;
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
			if (tok[0] == '[') {	/* one-line options: [arch=amd64 ...] */
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

static char *host_mirror(void)
{
	const char *env = getenv("MMLAB_DEBIAN_MIRROR");
	const char *dir = "/etc/apt/sources.list.d";
	struct strlist names = { 0 };
	struct dirent *e;
	char *m;
	DIR *d;

	if (env && *env)
		return xstrdup(env);
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
			"names in image.packages / --packages (apt-cache policy NAME)", m, pk);
	} else if (strstr(out, "No space left on device") || nearly_full(work)) {
		const char *slash = strrchr(work, '/');

		lab_err("image build: the disk is full under %.*s; free some space or point "
			"MMLAB_CACHE at a larger filesystem",
			slash ? (int)(slash - work) : (int)strlen(work), work);
	} else if (strstr(out, "Failed getting release file") ||
		   strstr(out, "Temporary failure resolving") ||
		   strstr(out, "Could not resolve") || strstr(out, "Connection refused") ||
		   strstr(out, "Failed to connect") || strstr(out, "Couldn't download")) {
		lab_err("image build: cannot download from the package archive %s (no network?); "
			"check the connection or set MMLAB_DEBIAN_MIRROR to a reachable mirror", m);
	} else if (strstr(out, "Invalid Release file") || strstr(out, "No such script")) {
		lab_err("image build: debootstrap does not know this suite at %s; "
			"give an existing Debian suite such as bookworm", m);
	} else {
		lab_err("image build: debootstrap failed; see its output above");
	}
}

static int run_debootstrap(const struct disk_recipe *r, const char *root,
			   const char *work)
{
	char *pk = package_list(r->packages), *inc = NULL, *mirror = host_mirror();
	const char *argv[8];
	struct spawn_opts o = { .timeout_s = DEBOOTSTRAP_TIMEOUT_S, .capture_max = 16384 };
	struct spawn_result res;
	int n = 0, ret;

	argv[n++] = "debootstrap";
	argv[n++] = "--variant=minbase";
	if (*pk) {
		inc = xasprintf("--include=%s", pk);
		argv[n++] = inc;
	}
	argv[n++] = suite_of(r);
	argv[n++] = root;
	if (mirror)
		argv[n++] = mirror;
	argv[n] = NULL;
	lab_info("image build: debootstrap --variant=minbase %s%s%s from %s (a few minutes)",
		 suite_of(r), *pk ? " with " : "", pk, mirror ? mirror : "the default mirror");
	ret = spawn_run(argv, &o, &res);
	if (ret) {
		const char *nl = res.out ? res.out : "";

		/* the last lines of debootstrap's own log say what went wrong */
		if (res.out_len > 2000)
			nl = res.out + res.out_len - 2000;
		if (*nl)
			fprintf(stderr, "%s\n", nl);
		if (res.timed_out)
			lab_err("image build: debootstrap did not finish within %u s; check the "
				"network", o.timeout_s);
		else if (res.exit_code == 127)
			lab_err("image build: debootstrap is not installed; run scripts/install-deps");
		else if (res.exit_code >= 0 || res.term_signal)
			explain_debootstrap(res.out ? res.out : "", mirror, work);
	}
	spawn_result_free(&res);
	free(pk);
	free(inc);
	free(mirror);
	return ret;
}

static int write_text(const char *root, const char *path, const char *text)
{
	char *p = xasprintf("%s/%s", root, path);
	int ret = write_file_atomic(p, text, strlen(text), 0644);

	free(p);
	return ret;
}

/* the agent as init, the workloads, and a few files that make it a lab guest */
static int customise(const char *root, const char *recipe)
{
	char *d = xasprintf("%s/var/log/mmlab", root);
	int ret = mkdir_p(d, 0755);

	free(d);
	if (ret || image_guest_install(root, DISK_AGENT_PATH) ||
	    write_text(root, "etc/hostname", "mmlab\n") ||
	    write_text(root, "etc/fstab", "/dev/vda1 / ext4 rw,errors=remount-ro 0 1\n") ||
	    write_text(root, "etc/mmlab-image", recipe))
		return -1;
	return 0;
}

static int make_qcow2(const char *tar, const char *qcow2, uint64_t size)
{
	guestfs_h *g = gfs_open("image build");
	char sz[32];
	int ret = -1;

	if (!g)
		return -1;
	fmt_size(size, sz, sizeof(sz));
	lab_info("image build: making a %s qcow2 with libguestfs (the first appliance takes "
		 "a while%s)", sz, tcg ? " under TCG" : "");
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
	if (guestfs_part_disk(g, "/dev/sda", "mbr") ||
	    guestfs_mkfs(g, "ext4", "/dev/sda1") ||
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

static int build(const char *work, const struct disk_recipe *r, const char *recipe,
		 const char *tmp_qcow2)
{
	char *root = xasprintf("%s/root", work), *tar = xasprintf("%s/root.tar", work);
	const char *argv[] = { "tar", "--numeric-owner", "--xattrs", "-C", root, "-cf", tar,
			       ".", NULL };
	struct spawn_opts o = { .timeout_s = TAR_TIMEOUT_S };
	int ret = -1;

	if (mkdir_p(root, 0755) || run_debootstrap(r, root, work))
		goto out;
	if (customise(root, recipe))
		goto out;
	if (spawn_run(argv, &o, NULL))
		goto out;
	/* the tree is in the tar now: free its space before the qcow2 grows */
	rm_rf(root);
	ret = make_qcow2(tar, tmp_qcow2, size_of(r));
out:
	free(root);
	free(tar);
	return ret;
}

int disk_image_get(const char *cache_dir, const struct disk_recipe *r,
		   struct disk_image *out)
{
	char gh[65], *dir, *recipe, *work = NULL, *tmp = NULL, *meta = NULL;
	double t0 = now_monotonic();
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (image_guest_hash(gh))
		return -1;
	recipe = recipe_text(r, gh);
	sha256_buf(recipe, strlen(recipe), out->hash);
	dir = xasprintf("%s/images", cache_dir);
	out->path = xasprintf("%s/debootstrap-%.16s.qcow2", dir, out->hash);
	if (path_exists(out->path)) {
		ret = 0;
		goto done;
	}
	if (mkdir_p(dir, 0755))
		goto done;
	work = xasprintf("%s/debootstrap-%.16s.tmp.%ld", dir, out->hash, (long)getpid());
	tmp = xasprintf("%s/image.qcow2", work);
	meta = xasprintf("%s/debootstrap-%.16s.json", dir, out->hash);
	/*
	 * Everything happens in work (*.tmp.<pid>); only a complete image is
	 * renamed into place. A build killed outright leaves work behind, which
	 * no lookup or listing takes for an image and "image gc" removes.
	 */
	rm_rf(work);
	if (mkdir_p(work, 0755) || build(work, r, recipe, tmp))
		goto clean;
	chmod(tmp, 0644);
	if (write_file_atomic(meta, recipe, strlen(recipe), 0644) || rename(tmp, out->path)) {
		lab_err("image build: cannot store %s: %s", out->path, strerror(errno));
		unlink(meta);
		goto clean;
	}
	out->built = true;
	ret = 0;
	lab_info("image build: %s done in %.0f s", out->path, now_monotonic() - t0);
clean:
	rm_rf(work);
done:
	free(dir);
	free(recipe);
	free(work);
	free(tmp);
	free(meta);
	if (ret)
		disk_image_release(out);
	return ret;
}

void disk_image_release(struct disk_image *d)
{
	free(d->path);
	d->path = NULL;
}

/* ---- list and gc ---- */

static char *meta_value(const char *meta, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = meta; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == '=')
			return xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
	return NULL;
}

json_t *disk_image_list(const char *cache_dir)
{
	char *dir = xasprintf("%s/images", cache_dir);
	json_t *out = json_array();
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char *p, *mp, *meta, when[TIME_STR_LEN], hash[17];
		struct stat st;

		if (strncmp(e->d_name, "debootstrap-", 12) || n < 6 ||
		    strcmp(e->d_name + n - 6, ".qcow2"))
			continue;
		snprintf(hash, sizeof(hash), "%.16s", e->d_name + 12);
		p = xasprintf("%s/%s", dir, e->d_name);
		mp = xasprintf("%s/debootstrap-%s.json", dir, hash);
		meta = read_file(mp, NULL, 1u << 16);
		if (stat(p, &st) == 0) {
			char *suite = meta ? meta_value(meta, "suite") : NULL;
			char *pk = meta ? meta_value(meta, "packages") : NULL;

			time_iso(st.st_mtime, when);
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:I, s:s, s:s?, s:s?}",
				"kind", "debootstrap", "path", p, "hash", hash,
				"size", (json_int_t)st.st_blocks * 512, "created", when,
				"suite", suite, "packages", pk));
			free(suite);
			free(pk);
		}
		free(meta);
		free(mp);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return out;
}

static bool pid_alive(const char *name)
{
	const char *t = strstr(name, ".tmp.");
	long pid = t ? strtol(t + 5, NULL, 10) : 0;

	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

json_t *disk_image_gc(const char *cache_dir, bool all)
{
	char *dir = xasprintf("%s/images", cache_dir), gh[65];
	json_t *removed = json_array();
	struct image cur = { 0 };
	struct dirent *e;
	DIR *d;

	if (!all && image_guest_hash(gh)) {
		free(dir);
		json_decref(removed);
		return NULL;
	}
	if (!all)
		snprintf(cur.hash, sizeof(cur.hash), "%s", gh);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char *p, *meta = NULL, *g = NULL;
		bool drop = false;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "."))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (strstr(e->d_name, ".tmp.")) {
			drop = !pid_alive(e->d_name);
		} else if (!strncmp(e->d_name, "initramfs-", 10)) {
			drop = all || strncmp(e->d_name + 10, cur.hash, 16);
		} else if (!strncmp(e->d_name, "debootstrap-", 12)) {
			char *mp = xasprintf("%s/debootstrap-%.16s.json", dir, e->d_name + 12);

			meta = read_file(mp, NULL, 1u << 16);
			g = meta ? meta_value(meta, "guest") : NULL;
			drop = all || !g || strcmp(g, cur.hash);
			free(mp);
		}
		if (drop && !rm_rf(p))
			json_array_append_new(removed, json_string(p));
		free(meta);
		free(g);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return removed;
}

/* ---- per boot ---- */

int disk_overlay_prepare(const char *base, const char *overlay,
			 const struct kvlist *plan, const char *modules_dir,
			 const struct kvlist *extra)
{
	guestfs_h *g = gfs_open("guest disk");
	char *text = image_plan_text(plan);
	int ret = -1;

	if (!g || !text)
		goto out;
	if (guestfs_disk_create(g, overlay, "qcow2", -1,
				GUESTFS_DISK_CREATE_BACKINGFILE, base,
				GUESTFS_DISK_CREATE_BACKINGFORMAT, "qcow2", -1)) {
		gfs_fail(g, overlay, "check the free space in /tmp");
		goto out;
	}
	if (guestfs_add_drive_opts(g, overlay, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1) ||
	    guestfs_launch(g) || guestfs_mount(g, "/dev/sda1", "/")) {
		gfs_fail(g, "guest disk: opening the per-boot overlay",
			 "run 'libguestfs-test-tool' to see why");
		goto out;
	}
	if (guestfs_mkdir_p(g, "/mmlab") ||
	    guestfs_write(g, "/mmlab/plan", text, strlen(text))) {
		gfs_fail(g, "guest disk: writing /mmlab/plan", NULL);
		goto out;
	}
	if (modules_dir) {
		lab_info("copying the kernel modules %s into the guest disk", modules_dir);
		if (guestfs_mkdir_p(g, "/lib/modules") ||
		    guestfs_copy_in(g, modules_dir, "/lib/modules")) {
			gfs_fail(g, "guest disk: copying the kernel modules in",
				 "if the disk is full, raise image.size");
			goto out;
		}
	}
	for (size_t i = 0; extra && i < extra->n; i++) {
		char *gp = xasprintf("/%s", extra->v[i].key);
		int bad = guestfs_mkdir_p(g, "/mmlab/modules") ||
			  guestfs_upload(g, extra->v[i].value, gp);

		free(gp);
		if (bad) {
			gfs_fail(g, "guest disk: copying a workload module in",
				 "if the disk is full, raise image.size");
			goto out;
		}
	}
	if (guestfs_umount_all(g) || guestfs_shutdown(g)) {
		gfs_fail(g, "guest disk: closing the overlay", NULL);
		goto out;
	}
	ret = 0;
out:
	gfs_close(g);
	free(text);
	if (ret)
		unlink(overlay);
	return ret;
}

static json_t *collect_one(guestfs_h *g, const char *path, const char *dest_dir)
{
	char *stored = xasprintf("files%s", path);
	char *local = xasprintf("%s/%s", dest_dir, stored);
	char *slash = strrchr(local, '/');
	json_t *j = NULL;
	int64_t size;

	if (guestfs_is_file_opts(g, path, GUESTFS_IS_FILE_OPTS_FOLLOWSYMLINKS, 1, -1) != 1) {
		j = json_pack("{s:s, s:s}", "path", path, "error", "not a file in the guest");
		goto out;
	}
	size = guestfs_filesize(g, path);
	if (size < 0 || size > DISK_COLLECT_MAX) {
		j = json_pack("{s:s, s:s}", "path", path, "error",
			      size < 0 ? "cannot read its size" : "larger than 64 MiB");
		goto out;
	}
	*slash = '\0';
	if (mkdir_p(local, 0755)) {
		*slash = '/';
		goto out;
	}
	*slash = '/';
	if (guestfs_download(g, path, local)) {
		const char *e = guestfs_last_error(g);

		j = json_pack("{s:s, s:s}", "path", path, "error", e ? e : "download failed");
		goto out;
	}
	j = json_pack("{s:s, s:I, s:s}", "path", path, "size", (json_int_t)size,
		      "stored", stored);
out:
	if (!j)
		j = json_pack("{s:s, s:s}", "path", path, "error", "cannot store it on the host");
	free(stored);
	free(local);
	return j;
}

json_t *disk_collect(const char *overlay, const struct strlist *paths,
		     const char *dest_dir)
{
	guestfs_h *g;
	json_t *out;

	if (!paths->n)
		return json_array();
	g = gfs_open("collect_files");
	if (!g)
		return NULL;
	/* readonly: libguestfs puts a throwaway overlay on top, so the
	 * journal can be replayed without changing the file */
	if (guestfs_add_drive_opts(g, overlay, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2",
				   GUESTFS_ADD_DRIVE_OPTS_READONLY, 1, -1) ||
	    guestfs_launch(g) || guestfs_mount(g, "/dev/sda1", "/")) {
		gfs_fail(g, "collect_files: opening the guest disk after the boot", NULL);
		gfs_close(g);
		return NULL;
	}
	out = json_array();
	for (size_t i = 0; i < paths->n; i++)
		json_array_append_new(out, collect_one(g, paths->v[i], dest_dir));
	gfs_close(g);
	return out;
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

char *disk_kernel_initrd(const char *kernel_path, const char *release)
{
	char *p = kernel_sibling(kernel_path, "%sinitrd.img-%s", release);

	if (path_exists(p))
		return p;
	free(p);
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
