/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A planted header for scripts/check-json-owner (tests/lint/run): the
 * last declaration says nothing of who owns what it returns.
 */
#ifndef MMLAB_LINT_OWNER_PLANTED_H
#define MMLAB_LINT_OWNER_PLANTED_H

#include <jansson.h>

/* the list; a new reference */
json_t *planted_list(void);
/* a member of o, borrowed */
json_t *planted_member(json_t *o);
json_t *planted_silent(void);

#endif
