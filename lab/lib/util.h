/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - small helpers shared by every module of the host orchestrator.
 *
 * Error convention: a function that fails prints one message with
 * lab_err() (what failed, on what input, what to do next) and returns -1
 * (or NULL). Callers do not print a second message for the same failure.
 */
#ifndef MMLAB_UTIL_H
#define MMLAB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* exit codes, see docs/mmlab.md */
#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
/*
 * interrupted by SIGINT or SIGTERM: nothing stored, the run or boot can be
 * resumed; run/ returns it, batch/ reads it from a boot's or build's worker
 */
#define EXIT_INTERRUPTED 3

/* "mmlab: error: ..." on stderr */
void lab_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mmlab: warning: ..." on stderr */
void lab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mmlab: ..." on stderr, suppressed by lab_quiet */
void lab_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern bool lab_quiet;

/* allocation that aborts with a message on out-of-memory */
void oom(size_t n) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* a copy of s, or NULL when s is NULL */
char *xstrdup_or_null(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a growable array of owned strings */
struct strlist {
	char **v;
	size_t n, alloc;
};
void strlist_push(struct strlist *l, const char *s); /* copies s */
void strlist_pushf(struct strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool strlist_has(const struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

/* an ordered list of owned key/value string pairs */
struct kv {
	char *key;
	char *value;
};
struct kvlist {
	struct kv *v;
	size_t n, alloc;
};
void kvlist_set(struct kvlist *l, const char *key, const char *value);
const char *kvlist_get(const struct kvlist *l, const char *key);
void kvlist_free(struct kvlist *l);

/*
 * Files. read_file() reads at most max bytes (error if larger) and
 * NUL-terminates the buffer. write_file_atomic() writes to a temporary file
 * in the same directory, fsyncs it and renames it over path, so a reader
 * sees either the old or the new contents, never a half-written file.
 */
char *read_file(const char *path, size_t *len, size_t max);
/* all of data to fd, again after EINTR; 0, or -1 with errno */
int fd_write_all(int fd, const void *data, size_t len);
int write_file_atomic(const char *path, const void *data, size_t len, unsigned int mode);
int mkdir_p(const char *path, unsigned int mode);
int rm_rf(const char *path);
int copy_file(const char *src, const char *dst, unsigned int mode);
/* p made absolute against the current directory (not resolved; malloc'd) */
char *path_abs(const char *p);
bool path_exists(const char *path);
bool is_dir(const char *path);

/*
 * This host's boot id (/proc/sys/kernel/random/boot_id; "" if unreadable),
 * malloc'd. process_alive(): whether the process pid of the boot boot_id
 * (NULL or "": this boot) may still be running; false when it certainly
 * is not: pid <= 0, the host rebooted since, the pid is gone, or it is a
 * zombie that nobody reaped yet. The one "is the owner alive" test: the
 * queue, the stages and run.json's status ask it. It cannot see a
 * process on another host: callers check the host first.
 */
char *host_boot_id(void);
bool process_alive(long long pid, const char *boot_id);

/* sha256 of a buffer or a file, as 64 lowercase hex digits + NUL */
int sha256_file(const char *path, char out[65]);
void sha256_buf(const void *data, size_t len, char out[65]);

/* monotonic seconds */
double now_monotonic(void);

/*
 * Parse a size: a decimal integer with an optional K/M/G/T suffix (powers
 * of 1024, optional trailing "iB"/"B"). Returns 0 and the size in bytes, or
 * -1 on bad syntax or overflow (no message printed).
 */
int parse_size(const char *s, uint64_t *bytes);
/* parse an unsigned decimal integer fully (no sign, no junk); -1 if bad */
int parse_uint(const char *s, uint64_t *v);

/* human-readable size into buf ("512M", "1.5G") */
const char *fmt_size(uint64_t bytes, char *buf, size_t len);

/* edit distance of two short strings (over 32 bytes: SIZE_MAX, far apart) */
size_t edit_distance(const char *a, const char *b);
/*
 * The name of names (NULL-terminated) nearest to word, for a "did you
 * mean": within 2 edits, the first of the nearest; NULL when none is.
 */
const char *nearest_name(const char *word, const char *const *names);

/* directory of /proc/self/exe, without trailing slash (static storage) */
const char *exe_dir(void);
/*
 * A directory of mmlab's own files (malloc'd): $env when set and not
 * empty; else <exe_dir>/checkout_rel when it is a directory (run from the
 * checkout); else <exe_dir>/installed_rel (installed under PREFIX).
 */
char *resource_dir(const char *env, const char *checkout_rel, const char *installed_rel);

#endif
