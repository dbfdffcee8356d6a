/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture.h - helpers shared by the unit tests that check messages: the
 * source tree, and stderr captured into a buffer while code under test
 * runs. Include after <cmocka.h>.
 */
#ifndef MMLAB_TEST_CAPTURE_H
#define MMLAB_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline const char *srcdir(void)
{
	const char *s = getenv("MMLAB_SRCDIR");

	return s ? s : ".";
}

/* stderr is redirected to a temporary file between start and end */
struct capture {
	int saved;
	FILE *tmp;
};

static inline void capture_start(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(2);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), 2) >= 0);
}

/* returns what was written to stderr (caller frees) */
static inline char *capture_end(struct capture *c)
{
	long len;
	char *buf;

	fflush(stderr);
	assert_true(dup2(c->saved, 2) >= 0);
	close(c->saved);
	len = ftell(c->tmp);
	assert_true(len >= 0);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	rewind(c->tmp);
	assert_int_equal(fread(buf, 1, (size_t)len, c->tmp), (size_t)len);
	fclose(c->tmp);
	return buf;
}

#endif
