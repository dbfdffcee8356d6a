// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_run_json - a stored run read back: `mmlab compare` and `report` on
 * the JSON of a run (run_data_from_json() and back, cmp_add_run, the job's
 * derived formulas, statistics, text, JSON and the HTML report), and
 * run.json into struct run_record (lab/store/run_record.c). A results
 * store is a directory anyone may have edited or damaged.
 * fuzz-options: -max_len=65536
 */
#include <jansson.h>

#include "analysis/compare.h"
#include "fuzz.h"
#include "store/run_data.h"
#include "store/run_record.h"

static void compare(const json_t *run)
{
	struct comparison *c = cmp_new();
	struct run_data d;
	const char *key;
	json_t *val, *back;
	int ok = run_data_from_json(run, &d) == 0 && cmp_add_run(c, &d) == 0;

	if (ok) {
		back = run_data_to_json(&d);
		if (!back)
			abort();
		json_decref(back);
	}
	json_object_foreach(ok ? c->runinfo[c->nruninfo - 1].derived : NULL, key, val)
		if (ok && json_is_string(val) && !kvlist_get(&c->derived, key))
			ok = cmp_add_derived(c, key, json_string_value(val)) == 0;
	if (ok && cmp_compute(c, NULL, 0.05, "*") == 0) {
		cmp_write(c, CMP_TEXT, fuzz_devnull());
		cmp_write(c, CMP_JSON, fuzz_devnull());
		cmp_write_html(c, fuzz_devnull());
	}
	run_data_release(&d);
	cmp_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *run = json_loadb((const char *)data, size, 0, NULL);
	struct run_record rec;

	if (!run)
		return 0;
	compare(run);
	memset(&rec, 0, sizeof(rec));
	if (run_record_from_json(run, &rec) == 0) {
		json_t *back = run_record_to_json(&rec);

		if (!back)
			abort();
		json_decref(back);
	}
	run_record_release(&rec);
	json_decref(run);
	return 0;
}
