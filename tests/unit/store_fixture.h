/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_json_write(): a suite's fixture run.json written through its record,
 * the store's only way in (store_record_write()); the suite fails when
 * the fixture does not read as a record. Needs <cmocka.h> (and what it
 * needs) included first.
 */
#ifndef MMLAB_TESTS_STORE_FIXTURE_H
#define MMLAB_TESTS_STORE_FIXTURE_H

#include <jansson.h>

#include "store/run_record.h"
#include "store/store.h"

static inline int run_json_write(struct store *st, const char *run, json_t *rj)
{
	struct run_record rec;
	int ret;

	assert_int_equal(run_record_from_json(rj, &rec), 0);
	ret = store_record_write(st, run, &rec);
	run_record_release(&rec);
	return ret;
}

#endif
