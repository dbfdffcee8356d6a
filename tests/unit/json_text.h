/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_text(): a JSON text of a suite's fixture parsed, or the suite fails
 * naming where the text does not parse (a broken fixture, not the code).
 * Needs <cmocka.h> (and what it needs) included first.
 */
#ifndef MMLAB_TESTS_JSON_TEXT_H
#define MMLAB_TESTS_JSON_TEXT_H

#include <jansson.h>

/* a new reference */
static inline json_t *json_text(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &e);

	if (!j)
		fail_msg("%d:%d: %s", e.line, e.column, e.text);
	return j;
}

#endif
