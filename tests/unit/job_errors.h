/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job_errors.h - the errors job_load_buffer() prints for a job that must
 * fail, with relative paths resolved in dir (where its files exist).
 * Include after <cmocka.h>, capture.h and job/job.h.
 */
#ifndef MMLAB_TEST_JOB_ERRORS_H
#define MMLAB_TEST_JOB_ERRORS_H

#include <string.h>

/* returns what was printed (caller frees) */
static inline char *job_errors_in(const char *dir, const char *yaml)
{
	struct job *job = NULL;
	struct capture c;
	char *errs;

	capture_start(&c);
	assert_int_equal(job_load_buffer("t.yaml", yaml, strlen(yaml), dir, &job), -1);
	errs = capture_end(&c);
	assert_null(job);
	return errs;
}

#endif
