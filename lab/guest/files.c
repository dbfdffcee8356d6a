// SPDX-License-Identifier: GPL-2.0
/*
 * files.c - collect_files from the agent's FILE records (files.h); those
 * with iter= are a command workload's read-back files (outputs.c), which
 * the kept stream keeps.
 *
 * Each asked path goes WAIT -> OPEN -> DONE, or to FAILED with a reason:
 * the first piece (offset 0) opens dir/files/<asked path>, each next piece
 * must start where the last ended and give the same size, and the file is
 * done when min(size, MMFILE_MAX) bytes are in. Nothing the guest sends
 * decides where a byte goes but the asked path it matched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/files.h"
#include "proto.h"

/* no file is larger: a size beyond it is a lie */
#define SIZE_MAX_BELIEVED (1ULL << 50)

enum fstate { F_WAIT, F_OPEN, F_DONE, F_FAILED };

struct fcol {
	const char *path; /* the asked path */
	enum fstate st;
	int fd;
	uint64_t size; /* the guest's size of the file */
	uint64_t want; /* min(size, MMFILE_MAX): what is stored */
	uint64_t got;
	char *local; /* dir/files/<path> */
	char error[192];
};

/* the stream without its FILE records, written from the first one on */
struct kept {
	const char *buf, *path; /* path NULL: not asked for */
	int fd; /* -1: not opened (yet) */
	size_t from; /* buf[from..) not written yet */
	int err; /* errno of the first failure, or 0 */
	bool always; /* written without FILE records too (a copy of the stream) */
};

struct fctx {
	struct fcol *f;
	size_t n;
	struct guest_files_stats st;
	struct kept kept;
};

static const struct {
	const char *code, *text;
} guest_errors[] = {
	{ "missing", "not in the guest" },
	{ "notfile", "not a regular file in the guest" },
	{ "unreadable", "cannot be read in the guest" },
	{ "changed", "changed while the guest read it" },
};

static void fail(struct fcol *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct fcol *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->error, sizeof(f->error), fmt, ap);
	va_end(ap);
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
		unlink(f->local);
	}
	f->st = F_FAILED;
}

static void done(struct fcol *f)
{
	if (close(f->fd)) {
		f->fd = -1;
		fail(f, "cannot store it on the host: %s", strerror(errno));
		unlink(f->local);
		return;
	}
	f->fd = -1;
	f->st = F_DONE;
}

/* dir/files/<path>, its directories made; the file created, never an existing one */
static int open_local(struct fcol *f)
{
	char *slash = strrchr(f->local, '/');
	int ret;

	*slash = '\0';
	ret = mkdir_p(f->local, 0755);
	*slash = '/';
	if (ret) {
		fail(f, "cannot store it on the host (a directory of it)");
		return -1;
	}
	f->fd = open(f->local, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		fail(f, "cannot store it on the host: %s", strerror(errno));
		return -1;
	}
	f->st = F_OPEN;
	return 0;
}

/* the asked path that p names and that is still to come, or NULL */
static struct fcol *find(struct fctx *c, const char *p)
{
	struct fcol *seen = NULL;

	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->f[i].path, p))
			continue;
		if (c->f[i].st == F_WAIT || c->f[i].st == F_OPEN)
			return &c->f[i];
		seen = &c->f[i];
	}
	if (seen)
		c->st.late++;
	else
		c->st.ignored++;
	return NULL;
}

static int hdr_u64(const char *p, uint32_t len, const char *key, uint64_t *v)
{
	char s[24];

	return mmrec_hdr_get(p, len, key, s, sizeof(s)) || parse_uint(s, v) ? -1 : 0;
}

static void on_error_record(struct fcol *f, const char *code)
{
	const char *text = "the guest could not send it";

	for (size_t i = 0; i < ARRAY_SIZE(guest_errors); i++)
		if (!strcmp(code, guest_errors[i].code))
			text = guest_errors[i].text;
	fail(f, "%s", text);
}

/* the first piece: the size it gives is the file's, offset 0 opens the file */
static int first_piece(struct fcol *f, uint64_t size, uint64_t off)
{
	if (off) {
		fail(f, "the guest's first piece of it starts at byte %llu, not 0",
		     (unsigned long long)off);
		return -1;
	}
	if (size > SIZE_MAX_BELIEVED) {
		fail(f, "the guest gave an impossible size for it (%llu bytes)",
		     (unsigned long long)size);
		return -1;
	}
	f->size = size;
	f->want = size < MMFILE_MAX ? size : MMFILE_MAX;
	return open_local(f);
}

static void on_piece(struct fcol *f, uint64_t size, uint64_t off, const char *body, uint32_t blen)
{
	uint64_t room;

	if (f->st == F_WAIT && first_piece(f, size, off))
		return;
	if (size != f->size) {
		fail(f, "the guest gave two sizes for it (%llu, then %llu bytes)",
		     (unsigned long long)f->size, (unsigned long long)size);
		return;
	}
	if (off != f->got) {
		fail(f,
		     "a piece of it at byte %llu where %llu was next: pieces were lost or "
		     "out of order",
		     (unsigned long long)off, (unsigned long long)f->got);
		return;
	}
	room = f->want - f->got;
	if (blen > room && f->want < f->size)
		blen = (uint32_t)room; /* beyond MMFILE_MAX: not stored */
	if (blen > room) {
		fail(f, "the guest sent more of it than the %llu bytes it said it has",
		     (unsigned long long)f->size);
		return;
	}
	if (fd_write_all(f->fd, body, blen)) {
		fail(f, "cannot store it on the host: %s", strerror(errno));
		return;
	}
	f->got += blen;
	if (f->got == f->want)
		done(f);
}

static void on_file(struct fctx *c, const char *p, uint32_t len)
{
	char enc[MMPATH_ENC_MAX + 1], path[MMPATH_MAX + 1], code[32];
	uint64_t size, off;
	uint32_t blen;
	const char *body = mmrec_body(p, len, &blen);
	struct fcol *f;

	c->st.records++;
	if (mmrec_hdr_get(p, len, "path", enc, sizeof(enc)) ||
	    mmpath_decode(enc, path, sizeof(path))) {
		c->st.ignored++;
		return;
	}
	f = find(c, path);
	if (!f)
		return;
	if (!mmrec_hdr_get(p, len, "error", code, sizeof(code))) {
		on_error_record(f, code);
		return;
	}
	if (hdr_u64(p, len, "size", &size) || hdr_u64(p, len, "offset", &off)) {
		fail(f, "the guest sent a piece of it without a size or an offset");
		return;
	}
	on_piece(f, size, off, body, blen);
}

static void result(const struct fcol *f, struct guest_file *out)
{
	*out = (struct guest_file){ .path = xstrdup(f->path), .stored = f->st == F_DONE };
	if (!out->stored) {
		snprintf(out->error, sizeof(out->error), "%s", f->error);
		return;
	}
	out->size = f->size;
	out->stored_size = f->want;
}

void guest_file_list_free(struct guest_file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* what is still open at the end of the stream */
static void finish(struct fcol *f)
{
	if (f->st == F_WAIT)
		fail(f, "the guest sent nothing for it (the agent sends files after its last "
			"iteration: did the guest get there? see console.log)");
	else if (f->st == F_OPEN)
		fail(f, "incomplete: %llu of its %llu bytes arrived", (unsigned long long)f->got,
		     (unsigned long long)f->want);
}

/* a FILE record at buf[start..end): what came before it, into the kept stream */
static void kept_open(struct kept *k)
{
	k->fd = open(k->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (k->fd < 0)
		k->err = errno;
}

static void kept_skip(struct kept *k, size_t start, size_t end)
{
	if (!k->path || k->err)
		return;
	if (k->fd < 0)
		kept_open(k);
	if (k->err)
		return;
	if (fd_write_all(k->fd, k->buf + k->from, start - k->from))
		k->err = errno ? errno : EIO;
	k->from = end;
}

/* the rest: 1 written, 0 nothing to write (no FILE record), -1 after a message */
static int kept_end(struct kept *k, size_t len)
{
	if (!k->path)
		return 0;
	if (k->always && k->fd < 0 && !k->err)
		kept_open(k);
	if (k->fd < 0 && !k->err)
		return 0;
	if (!k->err && fd_write_all(k->fd, k->buf + k->from, len - k->from))
		k->err = errno ? errno : EIO;
	if (k->fd >= 0 && close(k->fd) && !k->err)
		k->err = errno;
	if (!k->err)
		return 1;
	lab_err("cannot write %s: %s; check the free space", k->path, strerror(k->err));
	unlink(k->path);
	return -1;
}

static void fctx_init(struct fctx *c, const struct strlist *asked, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->n = asked ? asked->n : 0;
	c->f = xcalloc(c->n + 1, sizeof(*c->f));
	for (size_t i = 0; i < c->n; i++) {
		struct fcol *f = &c->f[i];

		f->path = asked->v[i];
		f->fd = -1;
		f->local = xasprintf("%s/files%s", dir, f->path);
		/* the job checks them too: a path that is not clean is never used */
		if (!mmpath_ok(f->path))
			fail(f, "not a usable path (absolute, without '.', '..' or '//')");
		for (size_t k = 0; k < i && f->st == F_WAIT; k++)
			if (!strcmp(c->f[k].path, f->path))
				fail(f, "listed twice in collect_files");
	}
}

struct guest_files *guest_files_begin(const void *buf, const struct strlist *asked, const char *dir,
				      const char *kept_path)
{
	struct fctx *c = xmalloc(sizeof(*c));

	fctx_init(c, asked, dir);
	c->kept = (struct kept){ .buf = buf, .path = kept_path, .fd = -1 };
	return (struct guest_files *)c;
}

void guest_files_record(void *ctx, const struct guest_record *rec)
{
	struct fctx *c = ctx;

	if (rec->type != MMREC_FILE || mmrec_file_iter(rec->p, rec->len))
		return;
	on_file(c, rec->p, rec->len);
	kept_skip(&c->kept, rec->start, rec->end);
}

void guest_files_end(struct guest_files *files, size_t len, struct guest_files_stats *st, int *kept,
		     struct guest_file_list *out)
{
	struct fctx *c = (struct fctx *)files;
	int k = kept_end(&c->kept, len);

	if (out)
		*out = (struct guest_file_list){ .v = xcalloc(c->n + 1, sizeof(*out->v)),
						 .n = c->n };
	for (size_t i = 0; i < c->n; i++) {
		finish(&c->f[i]);
		if (out)
			result(&c->f[i], &out->v[i]);
		free(c->f[i].local);
	}
	free(c->f);
	if (st)
		*st = c->st;
	if (kept)
		*kept = k;
	free(c);
}

json_t *guest_files_store(const void *buf, size_t len, const struct strlist *asked, const char *dir,
			  struct guest_files_stats *st)
{
	struct guest_files *f = guest_files_begin(buf, asked, dir, NULL);
	struct guest_record_handler h = { guest_files_record, f };
	struct guest_file_list l;
	json_t *j;

	guest_records_walk(buf, len, &h, 1, NULL);
	guest_files_end(f, len, st, NULL, &l);
	j = guest_file_list_json(&l);
	guest_file_list_free(&l);
	return j;
}

int guest_stream_drop_files(const void *buf, size_t len, const char *out_path)
{
	struct guest_files *f = guest_files_begin(buf, NULL, NULL, out_path);
	struct guest_record_handler h = { guest_files_record, f };
	int kept;

	((struct fctx *)f)->kept.always = true;
	guest_records_walk(buf, len, &h, 1, NULL);
	guest_files_end(f, len, NULL, &kept, NULL);
	return kept < 0 ? -1 : 0;
}
