// SPDX-License-Identifier: GPL-2.0
/*
 * extract.c - a command workload's extractors over one iteration's
 * outputs (see extract.h): "name value" lines, a regex per line, and a
 * path into a JSON or YAML document.
 */
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "guest/extract.h"
#include "guest/stream.h"
#include "job/job_own.h"
#include "lib/jpath.h"
#include "lib/regex_safe.h"
#include "lib/strbuf.h"

struct ex {
	const struct job_workload *w;
	const struct own_metric *m;
	size_t idx; /* of m, for notes */
	json_t *metrics;
	struct strlist *notes;
	size_t added, bad;
};

static void note(struct ex *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ex *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strbuf_addf(&sb, "workload.metrics[%zu] (%s", x->idx, own_from_name(x->m->from));
	if (x->m->file)
		strbuf_addf(&sb, " %s", x->m->file);
	strbuf_addf(&sb, "): %s", msg);
	strlist_push(x->notes, sb.buf);
	strbuf_release(&sb);
}

/* a whole number, surrounding blanks allowed, finite */
static bool number(const char *s, size_t len, double *v)
{
	char buf[64], *end;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return end != buf && !*end && isfinite(*v);
}

/* "<workload>.<parts>" into metrics; false when the name or the room is not there */
static bool put(struct ex *x, const char *name, double v)
{
	char *full = xasprintf("%s.%s", x->w->name, name);
	bool ok = guest_stream_metric_name_ok(full) && x->added < EXTRACT_MAX_VALUES &&
		  json_object_size(x->metrics) < GUEST_STREAM_MAX_METRICS;

	if (ok) {
		json_object_set_new(x->metrics, full, json_real(v));
		x->added++;
	} else {
		x->bad++;
	}
	free(full);
	return ok;
}

/* ---- the text an extractor reads ---- */

static const struct guest_text *source(struct ex *x, const struct guest_iter_out *it)
{
	const struct own_metric *m = x->m;
	const struct guest_text *t;

	if (m->file_index >= 0) {
		t = &it->files[m->file_index];
		if (!t->present)
			note(x, "the guest sent no such file");
		else if (t->missing)
			note(x, "the file was not there after the iteration (%s)",
			     strerror(t->missing));
		return t->present && !t->missing ? t : NULL;
	}
	t = &it->stream[m->from == OWN_FROM_STDERR ? GUEST_STDERR :
			m->from == OWN_FROM_DMESG  ? GUEST_DMESG :
						     GUEST_STDOUT];
	if (!t->present)
		note(x, "the guest sent no %s",
		     m->from == OWN_FROM_DMESG ? "kernel log" : "output");
	return t->present ? t : NULL;
}

/* call fn on each line of t (cut to EXTRACT_LINE_MAX bytes, NULs as blanks) */
static void each_line(struct ex *x, const struct guest_text *t,
		      void (*fn)(struct ex *x, char *line, size_t len, void *arg), void *arg)
{
	static char line[EXTRACT_LINE_MAX + 1];
	const char *p = t->data, *end = t->data + t->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		/* the line cut by the dropped middle is two halves: skip both */
		if (!(t->head < t->len && p < t->data + t->head &&
		      (nl ? nl : end) >= t->data + t->head)) {
			size_t n = len > EXTRACT_LINE_MAX ? EXTRACT_LINE_MAX : len;

			for (size_t i = 0; i < n; i++)
				line[i] = p[i] ? p[i] : ' ';
			line[n] = '\0';
			fn(x, line, n, arg);
		}
		p = nl ? nl + 1 : end;
	}
}

/* ---- "name value" lines ---- */

static void one_kv_line(struct ex *x, char *line, size_t len, void *arg)
{
	char *sp = memchr(line, ' ', len);
	double v;

	(void)arg;
	if (!sp || sp == line || !number(sp + 1, len - (size_t)(sp - line) - 1, &v))
		return;
	*sp = '\0';
	if (guest_stream_metric_name_ok(line))
		put(x, line, v);
}

static void lines(struct ex *x, const struct guest_text *t)
{
	each_line(x, t, one_kv_line, NULL);
	if (!x->added)
		note(x, "no \"name value\" line in %zu bytes", t->len);
}

/* ---- regex ---- */

struct rx {
	regex_t re;
	size_t matches, unparsed;
	double acc, first, last, min, max;
};

static void one_match(struct ex *x, char *line, size_t len, void *arg)
{
	struct rx *r = arg;
	regmatch_t mt[2];
	double v;

	(void)x;
	(void)len;
	if (regexec(&r->re, line, 2, mt, 0) || mt[1].rm_so < 0)
		return;
	if (!number(line + mt[1].rm_so, (size_t)(mt[1].rm_eo - mt[1].rm_so), &v)) {
		r->unparsed++;
		return;
	}
	if (!r->matches++)
		r->first = r->min = r->max = v;
	r->last = v;
	r->acc += v;
	r->min = v < r->min ? v : r->min;
	r->max = v > r->max ? v : r->max;
}

static void regex(struct ex *x, const struct guest_text *t)
{
	struct rx r = { .matches = 0 };
	char err[256];
	double v;

	if (regex_compile_safe(&r.re, x->m->regex, REG_EXTENDED, err, sizeof(err))) {
		note(x, "the regex does not compile: %s", err);
		return;
	}
	each_line(x, t, one_match, &r);
	regfree(&r.re);
	if (!r.matches && x->m->reduce != OWN_REDUCE_COUNT) {
		note(x, "\"%.80s\" matched no line%s", x->m->regex,
		     r.unparsed ? " with a number in its group" : "");
		return;
	}
	switch (x->m->reduce) {
	case OWN_REDUCE_FIRST:
		v = r.first;
		break;
	case OWN_REDUCE_MIN:
		v = r.min;
		break;
	case OWN_REDUCE_MAX:
		v = r.max;
		break;
	case OWN_REDUCE_MEAN:
		v = r.acc / (double)r.matches;
		break;
	case OWN_REDUCE_SUM:
		v = r.acc;
		break;
	case OWN_REDUCE_COUNT:
		v = (double)r.matches;
		break;
	default:
		v = r.last;
		break;
	}
	if (!put(x, x->m->name, v))
		note(x, "'%s.%s' is not a usable metric name", x->w->name, x->m->name);
}

/* ---- YAML as JSON ---- */

struct ydoc {
	yaml_document_t doc;
	size_t budget;
	bool over;
};

static json_t *yscalar(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	double d;

	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && number(v, n->data.scalar.length, &d))
		return json_real(d);
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(v, "true"))
		return json_true();
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(v, "false"))
		return json_false();
	return json_stringn_nocheck(v, n->data.scalar.length);
}

static json_t *ynode(struct ydoc *y, yaml_node_t *n, int depth)
{
	json_t *out;

	if (!n || y->over || depth > EXTRACT_DEPTH_MAX || !y->budget--) {
		y->over = true;
		return json_null();
	}
	if (n->type == YAML_SCALAR_NODE)
		return yscalar(n);
	if (n->type == YAML_SEQUENCE_NODE) {
		out = json_array();
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top && !y->over; i++)
			json_array_append_new(out, ynode(y, yaml_document_get_node(&y->doc, *i),
							 depth + 1));
		return out;
	}
	out = json_object();
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top && !y->over; p++) {
		yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE)
			json_object_setn_new_nocheck(
				out, (const char *)k->data.scalar.value, k->data.scalar.length,
				ynode(y, yaml_document_get_node(&y->doc, p->value), depth + 1));
	}
	return out;
}

json_t *extract_yaml_to_json(const char *text, size_t len, char *err, size_t errlen)
{
	struct ydoc y = { .budget = EXTRACT_YAML_NODES };
	yaml_parser_t p;
	json_t *out = NULL;

	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &y.doc)) {
		snprintf(err, errlen, "not YAML: %s at line %zu", p.problem ? p.problem : "?",
			 p.problem_mark.line + 1);
		yaml_parser_delete(&p);
		return NULL;
	}
	out = ynode(&y, yaml_document_get_root_node(&y.doc), 0);
	if (y.over) {
		snprintf(err, errlen, "the document is larger than %d nodes or %d levels deep",
			 EXTRACT_YAML_NODES, EXTRACT_DEPTH_MAX);
		json_decref(out);
		out = NULL;
	}
	yaml_document_delete(&y.doc);
	yaml_parser_delete(&p);
	return out;
}

/* ---- documents ---- */

static bool value_of(json_t *v, double *d)
{
	if (json_is_number(v)) {
		*d = json_number_value(v);
		return isfinite(*d);
	}
	return json_is_string(v) && number(json_string_value(v), json_string_length(v), d);
}

/* what a selected element is called in the metric name: its name field or its label */
static const char *element_name(struct ex *x, json_t *v, const char *label)
{
	const char *s = x->m->name ? json_string_value(json_object_get(v, x->m->name)) : NULL;

	return s && *s ? s : label;
}

static void one_value(json_t *v, const char *label, void *arg)
{
	struct ex *x = arg;
	const struct own_metric *m = x->m;
	char *name;
	double d;

	if (!m->values.n) {
		name = *label ? xasprintf("%s.%s", m->name, label) : xstrdup(m->name);
		if (value_of(v, &d))
			put(x, name, d);
		else
			x->bad++;
		free(name);
		return;
	}
	for (size_t i = 0; i < m->values.n; i++) {
		const char *prefix = element_name(x, v, label);

		name = *prefix ? xasprintf("%s.%s", prefix, m->values.v[i]) :
				 xstrdup(m->values.v[i]);
		if (value_of(json_object_get(v, m->values.v[i]), &d))
			put(x, name, d);
		else
			x->bad++;
		free(name);
	}
}

static void document(struct ex *x, const struct guest_text *t)
{
	struct jpath jp;
	json_error_t je;
	char err[256];
	json_t *root;
	size_t n;

	if (t->dropped || t->cut) {
		note(x, "only part of the document came back (%llu bytes); not parsed",
		     (unsigned long long)t->total);
		return;
	}
	if (x->m->from == OWN_FROM_JSON) {
		root = json_loadb(t->data, t->len, JSON_DECODE_ANY, &je);
		if (!root)
			note(x, "not JSON: %s at line %d", je.text, je.line);
	} else {
		root = extract_yaml_to_json(t->data, t->len, err, sizeof(err));
		if (!root)
			note(x, "%s", err);
	}
	if (!root || jpath_parse(x->m->path ? x->m->path : "", &jp, err, sizeof(err))) {
		json_decref(root);
		return;
	}
	n = jpath_select(&jp, root, EXTRACT_MAX_VALUES, one_value, x);
	jpath_free(&jp);
	json_decref(root);
	if (!n)
		note(x, "the path '%s' selects nothing", x->m->path ? x->m->path : "");
	else if (!x->added)
		note(x, "the path '%s' selects no number", x->m->path ? x->m->path : "");
}

void extract_metrics(const struct job_workload *w, const struct guest_iter_out *it, json_t *metrics,
		     struct strlist *notes)
{
	const struct job_own *o = w->own;

	for (size_t i = 0; o && i < o->nmetrics; i++) {
		struct ex x = {
			.w = w, .m = &o->metrics[i], .idx = i, .metrics = metrics, .notes = notes
		};
		const struct guest_text *t;

		if (x.m->declare_only)
			continue;
		if (!it) {
			note(&x, "no output of this iteration came back");
			continue;
		}
		t = source(&x, it);
		if (!t)
			continue;
		if (x.m->from == OWN_FROM_JSON || x.m->from == OWN_FROM_YAML)
			document(&x, t);
		else if (x.m->regex)
			regex(&x, t);
		else
			lines(&x, t);
		if (x.bad)
			note(&x,
			     "%zu value(s) dropped (not a finite number, not a usable name, or more than %d)",
			     x.bad, EXTRACT_MAX_VALUES);
	}
}
