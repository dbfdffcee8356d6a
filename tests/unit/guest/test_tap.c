// SPDX-License-Identifier: GPL-2.0
/*
 * test_tap.c - the data channel's host end (lab/guest/tap.c): what a
 * writer puts into PATH.out (QEMU, here the test) ends up in PATH, in
 * order, at most cap bytes, whether the writer comes late, goes away or
 * writes more than the FIFO holds; stopping leaves no FIFO behind.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "guest/tap.h"
#include "lib/util.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-tap-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void write_fifo(const char *path, const char *data, size_t len)
{
	char *fifo = xasprintf("%s.out", path);
	int fd = open(fifo, O_WRONLY); /* the tap holds the read end: no wait */

	assert_true(fd >= 0);
	while (len) {
		ssize_t n = write(fd, data, len);

		assert_true(n > 0);
		data += n;
		len -= (size_t)n;
	}
	close(fd);
	free(fifo);
}

static void test_copy(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/agent.bin", dir), *got, *fifo;
	size_t big = 1u << 20, len;
	char *data = xmalloc(big);
	struct data_tap *t;
	struct stat st;

	(void)state;
	for (size_t i = 0; i < big; i++)
		data[i] = (char)(i * 7 + i / 251);
	t = data_tap_start(path, 1u << 30);
	assert_non_null(t);
	fifo = xasprintf("%s.out", path);
	assert_int_equal(stat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* a writer that opens, writes more than a FIFO holds, closes; then another */
	write_fifo(path, data, big / 2);
	write_fifo(path, data + big / 2, big - big / 2);
	assert_int_equal(data_tap_stop(t), 0);
	got = read_file(path, &len, 2u << 20);
	assert_non_null(got);
	assert_int_equal(len, big);
	assert_memory_equal(got, data, big);
	assert_int_equal(stat(fifo, &st), -1);
	free(got);
	free(fifo);
	free(data);
	rm_rf(dir);
	free(path);
	free(dir);
}

/* beyond cap: read and counted, not kept */
static void test_cap(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/agent.bin", dir), *got;
	struct data_tap *t = data_tap_start(path, 1000);
	char data[5000];
	size_t len;

	(void)state;
	assert_non_null(t);
	memset(data, 'x', sizeof(data));
	data[999] = 'y';
	write_fifo(path, data, sizeof(data));
	assert_int_equal(data_tap_stop(t), 4000);
	got = read_file(path, &len, 1 << 20);
	assert_int_equal(len, 1000);
	assert_int_equal(got[999], 'y');
	free(got);
	rm_rf(dir);
	free(path);
	free(dir);
}

/* no writer ever came (the domain did not start): an empty file */
static void test_no_writer(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/agent.bin", dir);
	struct data_tap *t = data_tap_start(path, 1000);
	struct stat st;

	(void)state;
	assert_non_null(t);
	assert_int_equal(data_tap_stop(t), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	rm_rf(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_no_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
