// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - allocation, messages, files, sizes, hashing.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "lib/util.h"

bool lab_quiet;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "mmlab: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void lab_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void lab_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void lab_info(const char *fmt, ...)
{
	va_list ap;

	if (lab_quiet)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void oom(size_t n)
{
	fprintf(stderr, "mmlab: error: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom(n + 1);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	va_end(ap);
	return s;
}

void strlist_push(struct strlist *l, const char *s)
{
	if (l->n + 1 >= l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 8;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

void strlist_pushf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	va_end(ap);
	strlist_push(l, s);
	free(s);
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void kvlist_set(struct kvlist *l, const char *key, const char *value)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].value);
			l->v[i].value = xstrdup(value);
			return;
		}
	}
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 8;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n].key = xstrdup(key);
	l->v[l->n].value = xstrdup(value);
	l->n++;
}

const char *kvlist_get(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].value;
	return NULL;
}

void kvlist_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

char *read_file(const char *path, size_t *len, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, alloc = 4096;
	char *buf;

	if (fd < 0) {
		lab_err("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(alloc);
	for (;;) {
		ssize_t r;

		if (n + 1 >= alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		r = read(fd, buf + n, alloc - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			lab_err("cannot read %s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			lab_err("%s is larger than %zu bytes", path, max);
			goto fail;
		}
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

int fd_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned int mode)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0) {
		lab_err("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fd_write_all(fd, data, len) || fsync(fd)) {
		lab_err("cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path)) {
		lab_err("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int mkdir_p(const char *path, unsigned int mode)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			lab_err("cannot create directory %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST) {
		lab_err("cannot create directory %s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	/* gone already: another process removes the same tree */
	return remove(path) && errno != ENOENT ? -1 : 0;
}

char *host_boot_id(void)
{
	char *s = read_file("/proc/sys/kernel/random/boot_id", NULL, 128);

	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s ? s : xstrdup("");
}

/*
 * A dead process its parent has not reaped yet: kill(pid, 0) still
 * succeeds. An orphan waits for PID 1 (or a subreaper), which in a
 * container may take seconds.
 */
static bool process_is_zombie(long long pid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return p && (p[1] == ' ') && (p[2] == 'Z' || p[2] == 'X');
}

bool process_alive(long long pid, const char *boot_id)
{
	char *cur;
	bool rebooted;

	if (pid <= 0)
		return false;
	if (boot_id && *boot_id) {
		cur = host_boot_id();
		rebooted = *cur && strcmp(boot_id, cur);
		free(cur);
		if (rebooted)
			return false;
	}
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return false;
	return !process_is_zombie(pid);
}

int rm_rf(const char *path)
{
	if (!path_exists(path))
		return 0;
	if (nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT) {
		lab_err("cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int copy_file(const char *src, const char *dst, unsigned int mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	int ret = -1;

	if (in < 0) {
		lab_err("cannot open %s: %s", src, strerror(errno));
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		lab_err("cannot create %s: %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			lab_err("cannot read %s: %s", src, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		if (fd_write_all(out, buf, (size_t)r)) {
			lab_err("cannot write %s: %s", dst, strerror(errno));
			goto out;
		}
	}
	if (fchmod(out, mode) == 0)
		ret = 0;
out:
	close(in);
	if (close(out) && ret == 0) {
		lab_err("cannot write %s: %s", dst, strerror(errno));
		ret = -1;
	}
	return ret;
}

char *path_abs(const char *p)
{
	char *cwd, *r;

	if (p[0] == '/')
		return xstrdup(p);
	cwd = getcwd(NULL, 0);
	r = xasprintf("%s/%s", cwd ? cwd : ".", p);
	free(cwd);
	return r;
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void hex(const unsigned char *md, unsigned int n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned int i = 0; i < n; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[2 * n] = '\0';
}

void sha256_buf(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL)) {
		fprintf(stderr, "mmlab: error: sha256 failed\n");
		abort();
	}
	hex(md, n, out);
}

int sha256_file(const char *path, char out[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int n = 0;
	int fd, ret = -1;

	if (!ctx)
		oom(sizeof(buf));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		lab_err("cannot open %s: %s", path, strerror(errno));
		EVP_MD_CTX_free(ctx);
		return -1;
	}
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			lab_err("cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		EVP_DigestUpdate(ctx, buf, (size_t)r);
	}
	EVP_DigestFinal_ex(ctx, md, &n);
	hex(md, n, out);
	ret = 0;
out:
	close(fd);
	EVP_MD_CTX_free(ctx);
	return ret;
}

double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int parse_uint(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	const char *p = s;
	uint64_t x = 0, mult = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		p++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		p++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		p++;
		break;
	case 't':
	case 'T':
		mult = 1ULL << 40;
		p++;
		break;
	default:
		break;
	}
	if (mult > 1 && (!strcmp(p, "iB") || !strcmp(p, "B")))
		p += strlen(p);
	else if (mult == 1 && !strcmp(p, "B"))
		p++;
	if (*p)
		return -1;
	if (x && mult > UINT64_MAX / x)
		return -1;
	*bytes = x * mult;
	return 0;
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[33], prev, tmp;

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *nearest_name(const char *word, const char *const *names)
{
	size_t best = 3, d;
	const char *hit = NULL;

	for (size_t i = 0; names[i]; i++) {
		d = edit_distance(word, names[i]);
		if (d < best) {
			best = d;
			hit = names[i];
		}
	}
	return hit;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	double v = (double)bytes;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
	return buf;
}

const char *exe_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	char *slash = strrchr(dir, '/');

	if (slash && slash != dir)
		*slash = '\0';
	return dir;
}

char *resource_dir(const char *env, const char *checkout_rel, const char *installed_rel)
{
	const char *e = getenv(env);
	char *p;

	if (e && *e)
		return xstrdup(e);
	p = xasprintf("%s/%s", exe_dir(), checkout_rel);
	if (is_dir(p))
		return p;
	free(p);
	return xasprintf("%s/%s", exe_dir(), installed_rel);
}
