// SPDX-License-Identifier: GPL-2.0
/*
 * rootinit - /init of the small initramfs a disk-image boot goes through
 * (docs/image.md, "BOOTING IT"; the host side is lab/image/rootfs_initrd.c).
 *
 * It loads the modules listed in /modules (one file name under /lib/
 * modules/ a line, in dependency order: the host resolved modules.dep),
 * waits for the root device, mounts it, and hands over to the image's
 * init, all as the kernel's own "root=" would if the drivers were built
 * in:
 *
 *   root=DEV      the root device (default /dev/vda1), waited for 10 s
 *   rootfstype=T  its filesystem (default ext4)
 *   ro | rw       the mount (default rw)
 *   init=PATH     the program run as PID 1 (default /sbin/mmlab-agent)
 *
 * Any failure prints "mmlab-rootinit: ..." on the console and powers the
 * guest off, so the host sees a boot that ended instead of a hang.
 * Static, no library but libc: no udev, no shell, no busybox.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CMDLINE_MAX 4096
#define LIST_MAX (64 << 10)
#define ROOT_WAIT_MS 10000
#define NAME_MAX_LEN 255

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (write(2, "mmlab-rootinit: ", 16) < 0 || write(2, buf, (size_t)n) < 0 ||
	    write(2, "\n", 1) < 0)
		return;
}

static __attribute__((noreturn)) void die(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

/* the whole of a small file, NUL-terminated; NULL when absent */
static char *slurp(const char *path, size_t max)
{
	char *buf = malloc(max + 1);
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < max && (n = read(fd, buf + len, max - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* the value of "key=" on the command line, into out; 0 when absent */
static int cmdline_arg(const char *cmdline, const char *key, char *out, size_t outsz)
{
	size_t kl = strlen(key);

	for (const char *p = cmdline; *p;) {
		size_t wl;

		p += strspn(p, " \t\n");
		wl = strcspn(p, " \t\n");
		if (wl > kl && !strncmp(p, key, kl) && wl - kl < outsz) {
			memcpy(out, p + kl, wl - kl);
			out[wl - kl] = '\0';
			return 1;
		}
		p += wl;
	}
	return 0;
}

static int cmdline_word(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = cmdline; (p = strstr(p, word)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

static void load_modules(void)
{
	char *list = slurp("/modules", LIST_MAX), *save = NULL;

	if (!list)
		return;
	for (char *name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		char path[NAME_MAX_LEN + 32];
		int fd;

		if (strlen(name) > NAME_MAX_LEN || strchr(name, '/'))
			continue;
		snprintf(path, sizeof(path), "/lib/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST))
			say("cannot load %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	free(list);
}

static void wait_root(const char *dev)
{
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
	struct stat st;

	for (int ms = 0; ms < ROOT_WAIT_MS; ms += 10) {
		if (!stat(dev, &st) && S_ISBLK(st.st_mode))
			return;
		nanosleep(&ten_ms, NULL);
	}
	say("the root device %s did not appear in %d s; the kernel lacks its driver", dev,
	    ROOT_WAIT_MS / 1000);
	die();
}

int main(void)
{
	char *cmdline, root[128] = "/dev/vda1", fstype[32] = "ext4";
	char init[256] = "/sbin/mmlab-agent";
	unsigned long flags = 0;

	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	mkdir("/root", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		say("cannot mount /dev or /proc: %s", strerror(errno));
	cmdline = slurp("/proc/cmdline", CMDLINE_MAX);
	if (cmdline) {
		cmdline_arg(cmdline, "root=", root, sizeof(root));
		cmdline_arg(cmdline, "rootfstype=", fstype, sizeof(fstype));
		cmdline_arg(cmdline, "init=", init, sizeof(init));
		if (cmdline_word(cmdline, "ro"))
			flags |= MS_RDONLY;
	}
	free(cmdline);
	load_modules();
	wait_root(root);
	if (mount(root, "/root", fstype, flags, NULL)) {
		say("cannot mount %s (%s) on /root: %s", root, fstype, strerror(errno));
		die();
	}
	umount2("/proc", MNT_DETACH);
	if (mount("/dev", "/root/dev", NULL, MS_MOVE, NULL))
		umount2("/dev", MNT_DETACH);
	unlink("/modules");
	if (chdir("/root") || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/")) {
		say("cannot switch to the root %s: %s", root, strerror(errno));
		die();
	}
	execl(init, init, (char *)NULL);
	say("cannot run %s on %s: %s", init, root, strerror(errno));
	die();
}
