// SPDX-License-Identifier: GPL-2.0
/*
 * recipe.c - load a bug-reproduction recipe (docs/repro.md).
 *
 * A recipe is a job file with three more top-level keys (bug, expect,
 * good), "runs" in place of "iterations" and an optional name. job.c
 * parses the job keys and calls back here for the others (job_yaml.h), so
 * a recipe is validated exactly like a job and every problem is printed as
 * FILE:LINE:COLUMN in the same run.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_yaml.h"
#include "repro/recipe.h"
#include "lib/strbuf.h"
#include "lib/regex_safe.h"
#include "lib/util.h"
#include "job/workload.h"

#define PATHLEN 96

static const char *const recipe_keys[] = { "bug", "expect", "good", NULL };

static const char *const op_words[] = {
	">", ">=", "<", "<=", "==", "!=", "gt", "ge", "lt", "le", "eq", "ne", NULL,
};

/* what the callbacks share */
struct rstate {
	struct recipe *r;
	yaml_mark_t *k_marks; /* per expectation, where k was given (or the entry) */
	yaml_mark_t *metric_marks; /* per expectation, where its metric was given */
	yaml_mark_t good_mark;
	yaml_mark_t root_mark;
};

static bool name_ok(const char *s)
{
	size_t len = strlen(s);

	return len >= 1 && len <= JOB_NAME_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == len;
}

/* "path.key" into buf; a path too long is cut: it only labels a message */
static const char *sub(char buf[PATHLEN], const char *path, const char *key)
{
	if (snprintf(buf, PATHLEN, "%s.%s", path, key) >= PATHLEN)
		memcpy(buf + PATHLEN - 4, "...", 4);
	return buf;
}

/* ---- bug ---- */

enum { B_ID, B_TITLE, B_URL, B_N };

static void parse_bug(struct job_yaml *y, struct rstate *st, yaml_node_t *n)
{
	struct job_field f[B_N] = {
		[B_ID] = { .key = "id" },
		[B_TITLE] = { .key = "title" },
		[B_URL] = { .key = "url" },
	};
	const char *v;

	if (!job_yaml_map(y, n, "bug", "a mapping such as { id: \"bsc#1206848\", title: \"...\" }",
			  f, B_N))
		return;
	if (!f[B_ID].val)
		job_yaml_missing(y, n, "bug", "id", "\"bsc#1206848\"");
	else if ((v = job_yaml_scalar(y, f[B_ID].val, "bug.id",
				      "the report's id (\"bsc#1206848\", \"bz 217011\")")))
		st->r->bug_id = xstrdup(v);
	if (!f[B_TITLE].val)
		job_yaml_missing(y, n, "bug", "title", "\"kcompactd uses 100% CPU\"");
	else if ((v = job_yaml_scalar(y, f[B_TITLE].val, "bug.title",
				      "the report's title on one line")))
		st->r->bug_title = xstrdup(v);
	if (f[B_URL].val &&
	    (v = job_yaml_scalar(y, f[B_URL].val, "bug.url", "the report's address")))
		st->r->bug_url = xstrdup(v);
}

/* ---- expect ---- */

enum { E_METRIC, E_OP, E_VALUE, E_DMESG, E_CRASH, E_HANG, E_K, E_N };

static bool get_true(struct job_yaml *y, yaml_node_t *n, const char *path)
{
	const char *v = job_yaml_scalar(y, n, path, "true");

	if (!v)
		return false;
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
		return true;
	if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
		job_yaml_err(y, n->start_mark, path,
			     "'%s' expects nothing; expected true (leave the entry out otherwise)",
			     v);
	else
		job_yaml_err(y, n->start_mark, path, "'%.40s' is not a boolean; expected true", v);
	return false;
}

static bool get_number(struct job_yaml *y, yaml_node_t *n, const char *path, double *out)
{
	const char *v = job_yaml_scalar(y, n, path, "a number such as 0.5 or 100");
	char *end;

	if (!v)
		return false;
	errno = 0;
	*out = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(*out)) {
		job_yaml_err(y, n->start_mark, path,
			     "'%.40s' is not a number; expected a number such as 0.5, 100 or 1e6",
			     v);
		return false;
	}
	return true;
}

static void parse_metric(struct job_yaml *y, struct job_field *f, yaml_node_t *n, const char *path,
			 struct expectation *e)
{
	char p[PATHLEN], err[256];
	const char *v;
	int op;

	sub(p, path, "metric");
	v = job_yaml_scalar(y, f[E_METRIC].val, p, "an expression over metric names");
	if (v) {
		e->text = xstrdup(v);
		e->expr = expr_parse(v, err, sizeof(err));
		if (!e->expr)
			job_yaml_err(y, f[E_METRIC].val->start_mark, p,
				     "%s; expected an expression "
				     "such as \"kthread.kcompactd0.cpu_s / time.elapsed_s\"",
				     err);
	}
	if (!f[E_OP].val) {
		job_yaml_missing(y, n, path, "op", "\">\"");
	} else {
		sub(p, path, "op");
		op = job_yaml_enum(y, f[E_OP].val, p, op_words);
		if (op >= 0)
			e->op = (enum expect_op)(op % 6);
	}
	if (!f[E_VALUE].val) {
		job_yaml_missing(y, n, path, "value", "0.5");
	} else {
		sub(p, path, "value");
		get_number(y, f[E_VALUE].val, p, &e->value);
	}
}

static void parse_dmesg(struct job_yaml *y, yaml_node_t *v_node, const char *path,
			struct expectation *e)
{
	char p[PATHLEN], why[256];
	const char *v;

	sub(p, path, "dmesg");
	v = job_yaml_scalar(y, v_node, p, "an extended regular expression");
	if (!v)
		return;
	e->text = xstrdup(v);
	if (regex_compile_safe(&e->re, v, REG_EXTENDED | REG_NOSUB, why, sizeof(why))) {
		job_yaml_err(y, v_node->start_mark, p,
			     "'%.40s' %s; expected a POSIX extended regex such as "
			     "\"WARNING: .* at mm/compaction.c\"",
			     v, why);
		return;
	}
	e->has_re = true;
}

static void parse_expect_entry(struct job_yaml *y, struct rstate *st, yaml_node_t *n, size_t idx)
{
	struct job_field f[E_N] = {
		[E_METRIC] = { .key = "metric" }, [E_OP] = { .key = "op" },
		[E_VALUE] = { .key = "value" },	  [E_DMESG] = { .key = "dmesg" },
		[E_CRASH] = { .key = "crash" },	  [E_HANG] = { .key = "hang" },
		[E_K] = { .key = "k" },
	};
	static const int kinds[] = { E_METRIC, E_DMESG, E_CRASH, E_HANG };
	struct expectation *e = &st->r->expect[idx];
	char path[PATHLEN], p[PATHLEN];
	int first = -1;

	snprintf(path, sizeof(path), "expect[%zu]", idx);
	e->k = 1;
	e->line = (unsigned int)n->start_mark.line + 1;
	st->k_marks[idx] = n->start_mark;
	if (!job_yaml_map(
		    y, n, path,
		    "a mapping such as { metric: \"time.elapsed_s\", op: \">\", value: 10 } or { crash: true }",
		    f, E_N))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct job_field *kf = &f[kinds[i]];

		if (!kf->val)
			continue;
		if (first >= 0) {
			sub(p, path, kf->key);
			job_yaml_err(
				y, kf->key_node->start_mark, p,
				"cannot be combined with '%s'; give one expectation per entry of expect",
				f[first].key);
			return;
		}
		first = kinds[i];
	}
	if (first < 0) {
		job_yaml_err(
			y, n->start_mark, path,
			"says nothing to expect; expected one of the keys metric (with op and value), dmesg, crash, hang");
		return;
	}
	if (first != E_METRIC) {
		for (int i = E_OP; i <= E_VALUE; i++) {
			if (!f[i].val)
				continue;
			sub(p, path, f[i].key);
			job_yaml_err(
				y, f[i].key_node->start_mark, p,
				"only goes with 'metric'; remove it from this '%s' expectation",
				f[first].key);
		}
	}
	switch (first) {
	case E_METRIC:
		e->kind = EXPECT_METRIC;
		st->metric_marks[idx] = f[E_METRIC].val->start_mark;
		parse_metric(y, f, n, path, e);
		break;
	case E_DMESG:
		e->kind = EXPECT_DMESG;
		parse_dmesg(y, f[E_DMESG].val, path, e);
		break;
	case E_CRASH:
		e->kind = EXPECT_CRASH;
		sub(p, path, "crash");
		get_true(y, f[E_CRASH].val, p);
		e->text = xstrdup("crash");
		break;
	case E_HANG:
		e->kind = EXPECT_HANG;
		sub(p, path, "hang");
		get_true(y, f[E_HANG].val, p);
		e->text = xstrdup("hang");
		break;
	}
	if (f[E_K].val) {
		sub(p, path, "k");
		st->k_marks[idx] = f[E_K].val->start_mark;
		job_yaml_uint(y, f[E_K].val, p, 1, 1000, &e->k);
	}
}

static void parse_expect(struct job_yaml *y, struct rstate *st, yaml_node_t *n)
{
	size_t len;

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, "expect",
			     "got %s; expected a list of expectations such as [ { crash: true } ]",
			     job_yaml_kind(n));
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > RECIPE_MAX_EXPECT) {
		job_yaml_err(y, n->start_mark, "expect",
			     "has %zu entries; expected 1..%d expectations", len,
			     RECIPE_MAX_EXPECT);
		return;
	}
	st->r->expect = xcalloc(len, sizeof(*st->r->expect));
	st->k_marks = xcalloc(len, sizeof(*st->k_marks));
	st->metric_marks = xcalloc(len, sizeof(*st->metric_marks));
	st->r->nexpect = len;
	for (size_t i = 0; i < len; i++)
		parse_expect_entry(y, st, job_yaml_seq_item(y, n, i), i);
}

static void on_key(struct job_yaml *y, const char *key, void *root_v, void *key_node, void *val_v,
		   void *arg)
{
	struct rstate *st = arg;
	yaml_node_t *root = root_v, *val = val_v;
	const char *v;

	(void)key_node;
	st->root_mark = root->start_mark;
	if (!strcmp(key, "bug")) {
		if (!val)
			job_yaml_missing(y, root, "", "bug",
					 "{ id: \"bsc#1206848\", title: \"...\" }");
		else
			parse_bug(y, st, val);
	} else if (!strcmp(key, "expect")) {
		if (!val)
			job_yaml_missing(y, root, "", "expect", "[ { crash: true } ]");
		else
			parse_expect(y, st, val);
	} else if (!strcmp(key, "good") && val) {
		st->good_mark = val->start_mark;
		v = job_yaml_scalar(y, val, "good", "the name of the known-good variant");
		if (v && !name_ok(v))
			job_yaml_err(
				y, val->start_mark, "good",
				"'%.40s' is not a variant name; expected the name of one of the variants",
				v);
		else if (v)
			st->r->good = xstrdup(v);
	}
}

/*
 * A name of the recipe's workload's own family ("thpfault.huge_pct") that
 * the workload never reports can never be met: every run would be
 * INCONCLUSIVE. Say so, with the names it does report.
 */
static void check_workload_names(struct job_yaml *y, const struct job *job, struct rstate *st,
				 size_t idx)
{
	const struct workload_def *w = workload_find(job->workload.name);
	const struct expectation *e = &st->r->expect[idx];
	struct strlist names = { 0 };
	size_t plen;

	if (!w || !w->metrics || !e->expr)
		return;
	plen = strlen(w->name);
	expr_names(e->expr, &names);
	for (size_t i = 0; i < names.n; i++) {
		const char *nm = names.v[i];
		char p[PATHLEN], *list;
		struct strbuf sb = STRBUF_INIT;
		bool known = false;

		if (strncmp(nm, w->name, plen) || nm[plen] != '.')
			continue;
		for (const struct wl_metric *m = w->metrics; m->name && !known; m++)
			known = !fnmatch(m->name, nm, 0);
		if (known)
			continue;
		for (const struct wl_metric *m = w->metrics; m->name; m++)
			strbuf_addsep(&sb, ", ", m->name);
		list = sb.len ? strbuf_detach(&sb) : NULL;
		snprintf(p, sizeof(p), "expect[%zu].metric", idx);
		job_yaml_err(y, st->metric_marks[idx], p,
			     "%s reports no metric '%s' (its "
			     "metrics: %s%s)",
			     w->name, nm, list ? list : "none",
			     list && strstr(list, ".T*") ? "; T* is a thread count, as in .T1" :
							   "");
		free(list);
	}
	strlist_free(&names);
}

static void on_check(struct job_yaml *y, const struct job *job, void *arg)
{
	struct rstate *st = arg;
	struct recipe *r = st->r;
	size_t i;

	for (i = 0; i < r->nexpect; i++)
		if (r->expect[i].kind == EXPECT_METRIC && job->workload.name)
			check_workload_names(y, job, st, i);

	for (i = 0; i < r->nexpect; i++) {
		char p[PATHLEN];

		if (r->expect[i].k <= job->iterations)
			continue;
		snprintf(p, sizeof(p), "expect[%zu].k", i);
		job_yaml_err(y, st->k_marks[i], p, "%u is more than runs (%u); expected 1..%u",
			     r->expect[i].k, job->iterations, job->iterations);
	}
	if (!r->good || !job->nvariants)
		return;
	for (i = 0; i < job->nvariants; i++)
		if (job->variants[i].name && !strcmp(job->variants[i].name, r->good))
			break;
	if (i == job->nvariants)
		job_yaml_err(y, st->good_mark, "good",
			     "'%s' is not the name of a variant; "
			     "expected the name of the known-good one among the variants",
			     r->good);
	else if (job->nvariants < 2)
		job_yaml_err(
			y, st->good_mark, "good",
			"the only variant cannot be the known-good "
			"one; add the reported-bad kernel as another variant, or remove 'good'");
}

/* the recipe's default name: its file name without .yaml, made a valid name */
static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *s = xstrdup(base ? base + 1 : path);
	size_t len = strlen(s), j = 0;

	if (len > 5 && !strcmp(s + len - 5, ".yaml"))
		s[len - 5] = '\0';
	else if (len > 4 && !strcmp(s + len - 4, ".yml"))
		s[len - 4] = '\0';
	for (size_t i = 0; s[i] && j < JOB_NAME_MAX; i++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-",
			   s[i]))
			s[j++] = s[i];
	s[j] = '\0';
	if (!j) {
		free(s);
		s = xstrdup("repro");
	}
	return s;
}

int recipe_load_buffer(const char *name, const char *buf, size_t len, const char *dir,
		       struct recipe **out)
{
	struct recipe *r = xcalloc(1, sizeof(*r));
	struct rstate st = { .r = r };
	char *dname = default_name(name);
	struct job_ext ext = {
		.keys = recipe_keys,
		.parse = on_key,
		.check = on_check,
		.arg = &st,
		.iterations_key = "runs",
		.iterations_def = RECIPE_RUNS_DEFAULT,
		.default_name = dname,
		.what = "recipe",
		.doc = "docs/repro.md",
	};
	int ret;

	*out = NULL;
	r->path = xstrdup(name);
	ret = job_load_buffer_ext(name, buf, len, dir, &ext, &r->job);
	free(dname);
	free(st.k_marks);
	free(st.metric_marks);
	if (ret) {
		recipe_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int recipe_load(const char *path, struct recipe **out)
{
	char *buf, *dir;
	size_t len;
	int ret;

	*out = NULL;
	buf = job_read_file(path, &len, &dir);
	if (!buf)
		return -1;
	ret = recipe_load_buffer(path, buf, len, dir, out);
	free(dir);
	free(buf);
	return ret;
}

void recipe_free(struct recipe *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nexpect; i++)
		expect_release(&r->expect[i]);
	free(r->expect);
	free(r->path);
	free(r->bug_id);
	free(r->bug_title);
	free(r->bug_url);
	free(r->good);
	job_free(r->job);
	free(r);
}

const char *expect_op_name(enum expect_op op)
{
	return op_words[op];
}

bool expect_op_holds(enum expect_op op, double a, double b)
{
	switch (op) {
	case EOP_GT:
		return a > b;
	case EOP_GE:
		return a >= b;
	case EOP_LT:
		return a < b;
	case EOP_LE:
		return a <= b;
	case EOP_EQ:
		return a == b;
	case EOP_NE:
		return a != b;
	}
	return false;
}

char *expect_describe(const struct expectation *e)
{
	switch (e->kind) {
	case EXPECT_METRIC:
		return xasprintf("%s %s %g", e->text, expect_op_name(e->op), e->value);
	case EXPECT_DMESG:
		return xasprintf("dmesg /%s/", e->text);
	case EXPECT_CRASH:
		return xstrdup("crash");
	case EXPECT_HANG:
		return xstrdup("hang");
	}
	return xstrdup("?");
}

static const char *kind_name(enum expect_kind k)
{
	static const char *const names[] = { "metric", "dmesg", "crash", "hang" };

	return names[k];
}

json_t *recipe_json(const struct recipe *r)
{
	json_t *ex = json_array();

	for (size_t i = 0; i < r->nexpect; i++) {
		const struct expectation *e = &r->expect[i];
		char *d = expect_describe(e);
		json_t *o = json_pack("{s:i, s:s, s:s, s:i}", "index", (int)i, "kind",
				      kind_name(e->kind), "describe", d, "k", (int)e->k);

		if (e->kind == EXPECT_METRIC) {
			json_object_set_new(o, "metric", json_string(e->text));
			json_object_set_new(o, "op", json_string(expect_op_name(e->op)));
			json_object_set_new(o, "value", json_real(e->value));
		} else if (e->kind == EXPECT_DMESG) {
			json_object_set_new(o, "dmesg", json_string(e->text));
		}
		json_array_append_new(ex, o);
		free(d);
	}
	return json_pack("{s:s, s:{s:s, s:s, s:s?}, s:s?, s:i, s:o}", "file", r->path, "bug", "id",
			 r->bug_id, "title", r->bug_title, "url", r->bug_url, "good", r->good,
			 "runs", (int)(r->job ? r->job->iterations : 0), "expect", ex);
}

void expect_release(struct expectation *e)
{
	free(e->text);
	expr_free(e->expr);
	if (e->has_re)
		regfree(&e->re);
	memset(e, 0, sizeof(*e));
}

/* "EXPR OP VALUE": the operator is the first of op_words[0..6) found */
static int parse_condition(const char *s, struct expectation *e, char *err, size_t len)
{
	const char *best = NULL;
	size_t blen = 0;
	char *lhs, *end, perr[256];
	int op = -1;

	for (int i = 0; i < 6; i++) {
		const char *at = strstr(s, op_words[i]);

		/* the longest operator at the leftmost place (">=" before ">") */
		if (at && (!best || at < best || (at == best && strlen(op_words[i]) > blen))) {
			best = at;
			blen = strlen(op_words[i]);
			op = i;
		}
	}
	if (!best) {
		snprintf(err, len,
			 "'%s' has no comparison; expected "
			 "\"metric:EXPR OP VALUE\" with OP one of > >= < <= == !=",
			 s);
		return -1;
	}
	e->value = strtod(best + blen, &end);
	while (*end == ' ')
		end++;
	if (end == best + blen || *end) {
		snprintf(err, len, "'%s' does not end in a number after '%s'", s, op_words[op]);
		return -1;
	}
	lhs = xstrndup(s, (size_t)(best - s));
	e->expr = expr_parse(lhs, perr, sizeof(perr));
	if (!e->expr) {
		snprintf(err, len, "'%s': %s", lhs, perr);
		free(lhs);
		return -1;
	}
	e->text = lhs;
	e->op = (enum expect_op)op;
	return 0;
}

int expect_from_signature(const char *sig, unsigned int k, struct expectation *e, char *err,
			  size_t len)
{
	memset(e, 0, sizeof(*e));
	e->k = k ? k : 1;
	if (!strcmp(sig, "crash")) {
		e->kind = EXPECT_CRASH;
		return 0;
	}
	if (!strcmp(sig, "hang")) {
		e->kind = EXPECT_HANG;
		return 0;
	}
	if (!strncmp(sig, "metric:", 7)) {
		e->kind = EXPECT_METRIC;
		return parse_condition(sig + 7, e, err, len);
	}
	if (!strncmp(sig, "dmesg:", 6) && sig[6]) {
		char why[256];

		e->kind = EXPECT_DMESG;
		if (regex_compile_safe(&e->re, sig + 6, REG_EXTENDED | REG_NOSUB, why,
				       sizeof(why))) {
			snprintf(err, len, "'%.64s' %s", sig + 6, why);
			return -1;
		}
		e->has_re = true;
		e->text = xstrdup(sig + 6);
		return 0;
	}
	snprintf(err, len,
		 "'%s' is not a signature; expected 'dmesg:REGEX', 'crash', "
		 "'hang' or 'metric:EXPR OP VALUE'",
		 sig);
	return -1;
}
