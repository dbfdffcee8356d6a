// SPDX-License-Identifier: GPL-2.0
/*
 * hostile.c - a program that misbehaves in a different way in each
 * iteration (tests/integration/t-own-hostile.sh): "hostile FIRST" runs
 * mode FIRST + $MMLAB_ITERATION:
 *
 *   0  prints a metric, complains on stderr, exits with status 3
 *   1  dies of SIGSEGV
 *   2  writes 1 GB of binary garbage (NULs, newlines, anything) to stdout,
 *      then a metric line, and exits 0
 *   3  forks a child into a session of its own that forks a grandchild
 *      writing alive.txt forever, and never exits itself: the agent's
 *      timeout must fire and every one of them must die
 *   4  prints "survivor 1" when alive.txt still changes (someone of mode 3
 *      is alive), else "survivor 0"
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void forever(void)
{
	for (;;) {
		int fd = open("alive.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			(void)!write(fd, "alive\n", 6);
			close(fd);
		}
		usleep(100000);
	}
}

/* 1 when alive.txt changed in the last 2 s (someone still writes it) */
static int survivor(void)
{
	struct stat a, b;

	if (stat("alive.txt", &a))
		return 0;
	sleep(2);
	return stat("alive.txt", &b) == 0 &&
	       (a.st_mtim.tv_sec != b.st_mtim.tv_sec || a.st_mtim.tv_nsec != b.st_mtim.tv_nsec);
}

static void garbage(unsigned long long total)
{
	static unsigned char buf[65536];
	unsigned int x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16); /* NULs, newlines, anything */
	}
	for (unsigned long long done = 0; done < total; done += sizeof(buf))
		if (write(1, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			exit(4);
}

int main(int argc, char **argv)
{
	const char *it = getenv("MMLAB_ITERATION");
	int mode = (argc > 1 ? atoi(argv[1]) : 0) + (it ? atoi(it) : 0);

	switch (mode) {
	case 0:
		printf("value 3\n");
		fflush(stdout);
		fprintf(stderr, "hostile: giving up with status 3\n");
		return 3;
	case 1:
		printf("value 11\n");
		fflush(stdout);
		fprintf(stderr, "hostile: about to crash\n");
		raise(SIGSEGV);
		return 0;
	case 2:
		garbage(1ULL << 30);
		printf("\nvalue 42\n");
		return 0;
	case 3:
		if (fork() == 0) {
			setsid();
			if (fork() == 0)
				forever();
			_exit(0);
		}
		fprintf(stderr, "hostile: hanging\n");
		for (;;)
			pause();
	default:
		printf("survivor %d\n", survivor());
		return 0;
	}
}
