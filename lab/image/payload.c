// SPDX-License-Identifier: GPL-2.0
/*
 * payload.c - the per-boot file list and its cpio (payload.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive_entry.h>

#include "image/cpio.h"
#include "image/payload.h"
#include "proto.h"

#define GUEST_PATH_MAX 4095
#define COPY_CHUNK (1u << 20)
#define TREE_DEPTH_MAX 32
/* inode numbers of the payload: apart from the base image's (1, 2, ...) */
#define PAYLOAD_INO0 900001ul

static struct payload_file *payload_new(struct payload *p, const char *guest, unsigned int mode)
{
	struct payload_file *f;

	if (p->n == p->alloc) {
		p->alloc = p->alloc ? p->alloc * 2 : 16;
		p->v = xrealloc(p->v, p->alloc * sizeof(*p->v));
	}
	f = &p->v[p->n++];
	memset(f, 0, sizeof(*f));
	while (*guest == '/')
		guest++;
	f->guest = xstrdup(guest);
	f->mode = mode;
	return f;
}

void payload_add_file(struct payload *p, const char *guest, const char *host, unsigned int mode)
{
	payload_new(p, guest, mode)->host = xstrdup(host);
}

void payload_add_data(struct payload *p, const char *guest, const void *data, size_t len,
		      unsigned int mode)
{
	struct payload_file *f = payload_new(p, guest, mode);

	f->data = xmalloc(len + 1);
	memcpy(f->data, data, len);
	f->data[len] = '\0';
	f->len = len;
}

char *payload_plan_text(const struct kvlist *plan)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("# mmlab guest plan (written by the host; key=value)\n", f);
	for (size_t i = 0; i < plan->n; i++)
		fprintf(f, "%s=%s\n", plan->v[i].key, plan->v[i].value);
	fclose(f);
	return buf;
}

int payload_add_plan(struct payload *p, const struct kvlist *plan)
{
	char *text = payload_plan_text(plan);
	size_t n;

	if (!text) {
		lab_err("cannot render the guest plan (out of memory?)");
		return -1;
	}
	n = strlen(text);
	if (n > MMPLAN_MAX_SIZE) {
		lab_err("the guest plan is %zu bytes, more than the agent reads (%u); "
			"shorten the job's lists (collect_files, parameters)",
			n, MMPLAN_MAX_SIZE);
		free(text);
		return -1;
	}
	payload_add_data(p, MMPLAN_PATH, text, n, 0644);
	free(text);
	return 0;
}

struct tree_walk {
	struct payload *p;
	const struct payload_tree_opts *o;
	char *root; /* host_dir resolved, for links_inside */
};

/* a symbolic link at hp to a regular file inside the tree: its target (malloc'd), else NULL */
static char *link_inside(const struct tree_walk *w, const char *hp, struct stat *st)
{
	char *real;
	size_t n;

	if (!w->o->links_inside || !w->root)
		return NULL;
	n = strlen(w->root);
	real = realpath(hp, NULL);
	if (!real || strncmp(real, w->root, n) || real[n] != '/' || stat(real, st) ||
	    !S_ISREG(st->st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}

static bool skipped_top(const struct tree_walk *w, const char *name, int depth)
{
	for (const char *const *s = w->o->skip_top; depth == 0 && s && *s; s++)
		if (!strcmp(*s, name))
			return true;
	return false;
}

/* one directory level of payload_add_tree() */
static int add_tree_dir(const struct tree_walk *w, const char *guest, const char *host, int depth)
{
	DIR *d = opendir(host);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		lab_err("cannot read %s: %s", host, strerror(errno));
		return -1;
	}
	while (!ret && (e = readdir(d))) {
		char *hp, *gp, *target = NULL;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    skipped_top(w, e->d_name, depth))
			continue;
		hp = xasprintf("%s/%s", host, e->d_name);
		gp = xasprintf("%s/%s", guest, e->d_name);
		if (lstat(hp, &st)) {
			lab_err("cannot stat %s: %s", hp, strerror(errno));
			ret = -1;
		} else if (S_ISDIR(st.st_mode) && depth >= TREE_DEPTH_MAX) {
			lab_err("%s: more than %d directory levels", hp, TREE_DEPTH_MAX);
			ret = -1;
		} else if (S_ISDIR(st.st_mode)) {
			ret = add_tree_dir(w, gp, hp, depth + 1);
		} else if ((S_ISREG(st.st_mode) ||
			    (S_ISLNK(st.st_mode) && (target = link_inside(w, hp, &st)))) &&
			   w->p->n >= PAYLOAD_MAX_FILES) {
			lab_err("%s: more than %d files for one boot", host, PAYLOAD_MAX_FILES);
			ret = -1;
		} else if (S_ISREG(st.st_mode)) {
			payload_add_file(w->p, gp, target ? target : hp, st.st_mode & 07777);
		}
		free(target);
		free(hp);
		free(gp);
	}
	closedir(d);
	return ret;
}

int payload_add_tree(struct payload *p, const char *guest_dir, const char *host_dir,
		     const struct payload_tree_opts *o)
{
	static const struct payload_tree_opts none;
	struct tree_walk w = { .p = p, .o = o ? o : &none };
	int ret;

	if (w.o->links_inside)
		w.root = realpath(host_dir, NULL);
	ret = add_tree_dir(&w, guest_dir, host_dir, 0);
	free(w.root);
	return ret;
}

void payload_release(struct payload *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].guest);
		free(p->v[i].host);
		free(p->v[i].data);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

bool payload_guest_path_ok(const char *rel)
{
	size_t n = strlen(rel);

	if (!n || n > GUEST_PATH_MAX || rel[0] == '/' || rel[n - 1] == '/')
		return false;
	for (const char *s = rel; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	for (const char *c = rel; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/* ---- the cpio ---- */

/* a host file, streamed */
static int cpio_host_file(struct cpio *c, const struct payload_file *f)
{
	int fd = open(f->host, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint64_t left;
	char *buf;
	int ret = -1;

	if (fd < 0 || fstat(fd, &st)) {
		lab_err("%s: cannot read %s for the guest's /%s: %s", c->what, f->host, f->guest,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		lab_err("%s: %s (for the guest's /%s) is not a regular file", c->what, f->host,
			f->guest);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > PAYLOAD_FILE_MAX) {
		lab_err("%s: %s is larger than %llu MiB; the guest does not get files that large",
			c->what, f->host, PAYLOAD_FILE_MAX >> 20);
		close(fd);
		return -1;
	}
	if (cpio_header(c, f->guest, AE_IFREG,
			f->mode ? f->mode : (st.st_mode & 0111 ? 0755 : 0644), (uint64_t)st.st_size,
			0)) {
		close(fd);
		return -1;
	}
	buf = xmalloc(COPY_CHUNK);
	for (left = (uint64_t)st.st_size; left;) {
		ssize_t n = read(fd, buf, left < COPY_CHUNK ? (size_t)left : COPY_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lab_err("%s: %s changed while it was read (%s); run again", c->what,
				f->host, n < 0 ? strerror(errno) : "shorter than it was");
			goto out;
		}
		if (cpio_data(c, f->guest, buf, (size_t)n))
			goto out;
		left -= (uint64_t)n;
	}
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

static int cpio_payload_file(struct cpio *c, const struct payload_file *f)
{
	if (!payload_guest_path_ok(f->guest)) {
		lab_err("%s: '/%s' is not a usable guest path (for %s); expected printable "
			"characters without '.' or '..' components",
			c->what, f->guest, f->host ? f->host : "the lab's own data");
		return -1;
	}
	if (cpio_parents(c, f->guest))
		return -1;
	if (f->host)
		return cpio_host_file(c, f);
	return cpio_file(c, f->guest, f->mode ? f->mode : 0644, f->data, f->len);
}

int64_t payload_write_cpio(const struct payload *p, int fd, const char *what)
{
	struct cpio c;
	int64_t ret = -1;

	if (!cpio_open_fd(&c, fd, what, PAYLOAD_INO0)) {
		size_t i;

		for (i = 0; i < p->n && !cpio_payload_file(&c, &p->v[i]); i++)
			;
		if (i == p->n)
			ret = cpio_close(&c);
	}
	cpio_free(&c);
	return ret;
}
