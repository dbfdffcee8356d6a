// SPDX-License-Identifier: GPL-2.0
/*
 * expr.c - recursive-descent parser and evaluator for derived-metric
 * expressions. See expr.h for the grammar.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/expr.h"

enum expr_op { OP_NUM, OP_NAME, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV };

/*
 * A node keeps where its text is in the expression's one copy of the
 * source: a copy per node made "a+a+...+a" cost the square of its length
 * (64 KB took 1 GB).
 */
struct node {
	enum expr_op op;
	double num;
	char *name;
	size_t off, len; /* source text of this node, for messages */
	struct node *l, *r;
};

struct expr {
	char *src;
	struct node *root;
};

struct parser {
	const char *src, *p;
	char *err;
	size_t errlen;
	int depth;
	size_t nodes;
	bool failed;
};

static struct node *parse_expr(struct parser *ps);
static void node_free(struct node *e);

static void perr(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = true;
	snprintf(ps->err, ps->errlen, "%s at column %zu of \"%s\"", what,
		 (size_t)(ps->p - ps->src) + 1, ps->src);
}

/* a new node, or NULL (l and r freed) past EXPR_MAX_NODES */
static struct node *node(struct parser *ps, enum expr_op op, struct node *l, struct node *r,
			 const char *start, const char *end)
{
	struct node *e;

	if (++ps->nodes > EXPR_MAX_NODES) {
		_Static_assert(EXPR_MAX_NODES == 1024, "update the message");
		perr(ps, "more than 1024 numbers, names and operators");
		node_free(l);
		node_free(r);
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->op = op;
	e->l = l;
	e->r = r;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	e->off = (size_t)(start - ps->src);
	e->len = (size_t)(end - start);
	return e;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* the operator at p ('+', '-', '*', '/' or 0), and its length */
static char peek_op(struct parser *ps, size_t *len)
{
	static const struct {
		const char *s;
		char op;
	} utf[] = {
		{ "\xe2\x88\x92", '-' }, /* U+2212 minus */
		{ "\xc3\x97", '*' }, /* U+00D7 multiplication */
		{ "\xc3\xb7", '/' }, /* U+00F7 division */
	};

	skip_ws(ps);
	if (strchr("+-*/", *ps->p) && *ps->p) {
		*len = 1;
		return *ps->p;
	}
	for (size_t i = 0; i < ARRAY_SIZE(utf); i++) {
		if (!strncmp(ps->p, utf[i].s, strlen(utf[i].s))) {
			*len = strlen(utf[i].s);
			return utf[i].op;
		}
	}
	return 0;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':';
}

/*
 * "stress-ng.vm.bogo-ops": a metric name in double quotes, for the names
 * an unquoted name cannot spell (a '-' reads as a minus)
 */
static struct node *parse_quoted(struct parser *ps)
{
	const char *start = ps->p, *q = ps->p + 1;
	struct node *e;

	while (name_char(*q) || *q == '-')
		q++;
	if (*q != '"' || q == start + 1) {
		perr(ps, "expected a metric name and a closing '\"' (names: A-Z a-z 0-9 _ . : -)");
		return NULL;
	}
	ps->p = q + 1;
	e = node(ps, OP_NAME, NULL, NULL, start, ps->p);
	if (e)
		e->name = xstrndup(start + 1, (size_t)(q - start - 1));
	return e;
}

static struct node *parse_primary(struct parser *ps)
{
	const char *start;
	struct node *e;

	skip_ws(ps);
	start = ps->p;
	if (*ps->p == '(') {
		ps->p++;
		e = parse_expr(ps);
		skip_ws(ps);
		if (!e)
			return NULL;
		if (*ps->p != ')') {
			perr(ps, "expected ')'");
			node_free(e);
			return NULL;
		}
		ps->p++;
		return e;
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		char *end;
		double v = strtod(ps->p, &end);

		if (end == ps->p || !isfinite(v) || name_char(*end)) {
			perr(ps, "bad number");
			return NULL;
		}
		ps->p = end;
		e = node(ps, OP_NUM, NULL, NULL, start, end);
		if (e)
			e->num = v;
		return e;
	}
	if (name_start(*ps->p)) {
		while (name_char(*ps->p))
			ps->p++;
		e = node(ps, OP_NAME, NULL, NULL, start, ps->p);
		if (e)
			e->name = xstrndup(start, (size_t)(ps->p - start));
		return e;
	}
	if (*ps->p == '"')
		return parse_quoted(ps);
	perr(ps,
	     *ps->p ? "expected a number, a metric name or '('" : "unexpected end of expression");
	return NULL;
}

static struct node *parse_unary(struct parser *ps)
{
	const char *start;
	struct node *e;
	size_t len;
	char op;

	if (++ps->depth > EXPR_MAX_DEPTH) {
		perr(ps, "expression nested too deeply");
		return NULL;
	}
	op = peek_op(ps, &len);
	start = ps->p;
	if (op == '-' || op == '+') {
		ps->p += len;
		e = parse_unary(ps);
		if (e && op == '-')
			e = node(ps, OP_NEG, e, NULL, start, ps->p);
	} else {
		e = parse_primary(ps);
	}
	ps->depth--;
	return e;
}

static struct node *parse_binary(struct parser *ps, bool additive)
{
	const char *start;
	struct node *l, *r;
	size_t len;
	char op;

	skip_ws(ps);
	start = ps->p;
	l = additive ? parse_binary(ps, false) : parse_unary(ps);
	while (l) {
		op = peek_op(ps, &len);
		if (additive ? (op != '+' && op != '-') : (op != '*' && op != '/'))
			break;
		ps->p += len;
		r = additive ? parse_binary(ps, false) : parse_unary(ps);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = node(ps,
			 op == '+' ? OP_ADD :
			 op == '-' ? OP_SUB :
			 op == '*' ? OP_MUL :
				     OP_DIV,
			 l, r, start, ps->p);
	}
	return l;
}

static struct node *parse_expr(struct parser *ps)
{
	struct node *e;

	if (++ps->depth > EXPR_MAX_DEPTH) {
		perr(ps, "expression nested too deeply");
		return NULL;
	}
	e = parse_binary(ps, true);
	ps->depth--;
	return e;
}

struct expr *expr_parse(const char *src, char *err, size_t errlen)
{
	size_t len = strnlen(src, EXPR_MAX_LEN + 1);
	struct parser ps = { .err = err, .errlen = errlen };
	struct expr *x;
	struct node *e;

	if (len > EXPR_MAX_LEN) {
		snprintf(err, errlen, "the expression is longer than %d bytes", EXPR_MAX_LEN);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->src = xstrdup(src);
	ps.src = ps.p = x->src;
	e = parse_expr(&ps);
	if (e) {
		skip_ws(&ps);
		if (*ps.p) {
			perr(&ps, *ps.p == ')' ? "unbalanced ')'" : "expected an operator");
			node_free(e);
			e = NULL;
		}
	}
	if (!e) {
		free(x->src);
		free(x);
		return NULL;
	}
	x->root = e;
	return x;
}

/* recursion is bounded: at most EXPR_MAX_NODES nodes */
static int eval(const char *src, const struct node *e, expr_lookup_fn lookup, void *ctx,
		double *val, char *err, size_t errlen)
{
	double a, b = 0;

	switch (e->op) {
	case OP_NUM:
		*val = e->num;
		return 0;
	case OP_NAME:
		if (lookup(ctx, e->name, val) < 0) {
			snprintf(err, errlen, "unknown metric \"%s\"", e->name);
			return -1;
		}
		return 0;
	default:
		break;
	}
	if (eval(src, e->l, lookup, ctx, &a, err, errlen) < 0)
		return -1;
	if (e->r && eval(src, e->r, lookup, ctx, &b, err, errlen) < 0)
		return -1;
	switch (e->op) {
	case OP_NEG:
		*val = -a;
		break;
	case OP_ADD:
		*val = a + b;
		break;
	case OP_SUB:
		*val = a - b;
		break;
	case OP_MUL:
		*val = a * b;
		break;
	default:
		if (b == 0 && !isnan(a) && e->r) {
			snprintf(err, errlen, "division by zero: \"%.*s\" is 0", (int)e->r->len,
				 src + e->r->off);
			return -1;
		}
		*val = a / b;
		break;
	}
	return 0;
}

int expr_eval(const struct expr *x, expr_lookup_fn lookup, void *ctx, double *val, char *err,
	      size_t errlen)
{
	return eval(x->src, x->root, lookup, ctx, val, err, errlen);
}

static void names(const struct node *e, struct strlist *out)
{
	if (!e)
		return;
	if (e->op == OP_NAME) {
		if (!strlist_has(out, e->name))
			strlist_push(out, e->name);
		return;
	}
	names(e->l, out);
	names(e->r, out);
}

void expr_names(const struct expr *x, struct strlist *out)
{
	if (x)
		names(x->root, out);
}

static void node_free(struct node *e)
{
	if (!e)
		return;
	node_free(e->l);
	node_free(e->r);
	free(e->name);
	free(e);
}

void expr_free(struct expr *x)
{
	if (!x)
		return;
	node_free(x->root);
	free(x->src);
	free(x);
}
