// SPDX-License-Identifier: GPL-2.0
/* a stand-in module source (tests/unit/job/test_job_own.c) */
