/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expr.h - arithmetic over metric names, for user-defined derived metrics
 * (`derived: { hit_ratio: "trace.a:b / trace.c:d" }`).
 *
 * Grammar:  expr   := term (('+' | '-') term)*
 *           term   := unary (('*' | '/') unary)*
 *           unary  := '-' unary | '+' unary | primary
 *           primary:= NUMBER | NAME | '(' expr ')'
 * NAME starts with a letter or '_' and goes on with letters, digits and
 * '_' '.' ':' (metric names such as "trace.compaction:mm_compaction_begin").
 * The UTF-8 signs − × ÷ are accepted for - * /.
 *
 * Errors are not printed: they are written to err (what and where) so the
 * caller can name the derived metric in its single message.
 *
 * Limits (the text may come from a job, a recipe, --derive or a stored
 * run): at most EXPR_MAX_LEN bytes, EXPR_MAX_NODES numbers, names and
 * operators, and EXPR_MAX_DEPTH levels of parentheses and unary signs.
 */
#define EXPR_MAX_LEN 4096
#define EXPR_MAX_NODES 1024
#define EXPR_MAX_DEPTH 64
#ifndef MMLAB_EXPR_H
#define MMLAB_EXPR_H

#include <stddef.h>

#include "lib/util.h"

struct expr;

/* look a name up: 0 and *val, or -1 when the name is unknown */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, double *val);

/* parse src; NULL and a message in err on a syntax error */
struct expr *expr_parse(const char *src, char *err, size_t errlen);

/*
 * Evaluate. -1 and a message in err for an unknown name or a division by
 * zero (naming the divisor's text); a NaN operand gives a NaN result.
 */
int expr_eval(const struct expr *e, expr_lookup_fn lookup, void *ctx, double *val, char *err,
	      size_t errlen);

/* append every distinct name the expression uses to out */
void expr_names(const struct expr *e, struct strlist *out);

void expr_free(struct expr *e);

#endif
