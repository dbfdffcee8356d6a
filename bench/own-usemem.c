// SPDX-License-Identifier: GPL-2.0
/*
 * own-usemem.c - the work of the built-in usemem with one thread, as a
 * user's own program (bench/run own): map SIZE bytes of anonymous memory,
 * write one byte of every page LOOPS times, unmap. Prints its own wall
 * time of that as "elapsed_s".
 *
 *	own-usemem SIZE_MB LOOPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 96) << 20;
	long loops = argc > 2 ? atol(argv[2]) : 4;
	struct timespec a, b;
	volatile char *p;

	clock_gettime(CLOCK_MONOTONIC, &a);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long l = 0; l < loops; l++)
		for (size_t off = 0; off < size; off += 4096)
			p[off] = (char)(l + 1);
	munmap((void *)p, size);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("elapsed_s %.6f\n",
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
