// SPDX-License-Identifier: GPL-2.0
/*
 * dbopen.c - an LD_PRELOAD guard for the Slurm tests: inside a Slurm task
 * (SLURM_JOB_ID set), any open of a file under $MMLAB_GUARD_DIR whose name
 * ends in ".db", "-wal", "-shm" or "-journal" is appended to
 * $MMLAB_GUARD_LOG (pid, path) and goes on. A process on another host
 * than the store's must never open SQLite there (docs/queue.md); the test
 * fails when the log is not empty. Built as build/tests/guard-dbopen.so.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int real_open(const char *path, int flags, mode_t mode)
{
	static open_fn fn;

	if (!fn)
		fn = (open_fn)dlsym(RTLD_NEXT, "open");
	return fn(path, flags, mode);
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

static void check(int dirfd, const char *path)
{
	const char *dir = getenv("MMLAB_GUARD_DIR"), *log = getenv("MMLAB_GUARD_LOG");
	char abs[PATH_MAX + 8], cwd[PATH_MAX / 2], line[PATH_MAX + 64];
	int fd, n;

	if (!path || !dir || !*dir || !log || !getenv("SLURM_JOB_ID"))
		return;
	if (!ends_with(path, ".db") && !ends_with(path, "-wal") && !ends_with(path, "-shm") &&
	    !ends_with(path, "-journal"))
		return;
	if (path[0] != '/' && dirfd == AT_FDCWD && getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s/%.*s", cwd, PATH_MAX / 2 - 8, path);
	else
		snprintf(abs, sizeof(abs), "%.*s", PATH_MAX, path);
	if (strncmp(abs, dir, strlen(dir)))
		return;
	n = snprintf(line, sizeof(line), "%ld %.*s\n", (long)getpid(), PATH_MAX, abs);
	fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			line[0] = '\0';
		close(fd);
	}
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	check(AT_FDCWD, path);
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	check(AT_FDCWD, path);
	return real_open(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static openat_fn fn;
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	check(dirfd, path);
	if (!fn)
		fn = (openat_fn)dlsym(RTLD_NEXT, "openat");
	return fn(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	static openat_fn fn;
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	check(dirfd, path);
	if (!fn)
		fn = (openat_fn)dlsym(RTLD_NEXT, "openat64");
	return fn(dirfd, path, flags, mode);
}

/* proof that the guard ran: one line per guarded process in $MMLAB_GUARD_LOG.loaded */
__attribute__((constructor)) static void loaded(void)
{
	const char *log = getenv("MMLAB_GUARD_LOG");
	char path[PATH_MAX], line[64];
	int fd, n;

	if (!log || !getenv("SLURM_JOB_ID"))
		return;
	snprintf(path, sizeof(path), "%.*s.loaded", PATH_MAX - 8, log);
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	fd = real_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			line[0] = '\0';
		close(fd);
	}
}
