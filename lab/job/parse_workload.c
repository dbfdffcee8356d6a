// SPDX-License-Identifier: GPL-2.0
/*
 * parse_workload.c - the job's "workload:": a name from the workload table
 * (workload.c) and its params, each checked against the table and resolved
 * (sizes to bytes, percentages against the topology's memory, lists to
 * "1,2,4", booleans to "0"/"1"), defaults filled in, in the table's order.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "job/parse.h"
#include "job/workload.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static char *param_size(struct job_yaml *y, const struct wl_param *wp, const char *v, yaml_mark_t m,
			const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX;
	size_t len = strlen(v);
	char s[SHOWLEN], r[64];
	uint64_t bytes, pct;

	if (len && v[len - 1] == '%') {
		char *num = xstrndup(v, len - 1);
		int bad = parse_uint(num, &pct);

		free(num);
		if (!wp->allow_pct) {
			job_yaml_err(
				y, m, path,
				"'%s': a percentage is not allowed here; expected a size such as 64M",
				job_show(s, v));
			return NULL;
		}
		if (bad || pct < 1 || pct > 100) {
			job_yaml_err(
				y, m, path,
				"'%s' is not a percentage; expected 1%%..100%% of guest memory or a size such as 64M",
				job_show(s, v));
			return NULL;
		}
		if (!y->total_mem)
			return NULL; /* the topology error says why */
		bytes = (y->total_mem * pct / 100) & ~4095ULL;
	} else if (parse_size(v, &bytes)) {
		job_yaml_err(y, m, path, "'%s' is not a size; expected a size such as 64M%s",
			     job_show(s, v),
			     wp->allow_pct ? " or a percentage of guest memory such as 25%" : "");
		return NULL;
	}
	if (bytes < wp->min || bytes > max) {
		if (max == ULLONG_MAX)
			snprintf(r, sizeof(r), "at least %llu bytes", wp->min);
		else
			snprintf(r, sizeof(r), "%llu..%llu bytes", wp->min, max);
		job_yaml_err(y, m, path, "'%s' (%llu bytes) is out of range; expected %s",
			     job_show(s, v), (unsigned long long)bytes, r);
		return NULL;
	}
	return xasprintf("%llu", (unsigned long long)bytes);
}

static char *param_uint_list(struct job_yaml *y, const struct wl_param *wp, const char *v,
			     yaml_mark_t m, const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX, x;
	struct strbuf out = STRBUF_INIT;
	char *copy = xstrdup(v), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!job_yaml_text_uint(y, m, path, tok, wp->min, max, &x)) {
			free(copy);
			strbuf_release(&out);
			return NULL;
		}
		strbuf_addf(&out, "%s%llu", out.len ? "," : "", x);
	}
	free(copy);
	if (!out.len) {
		job_yaml_err(y, m, path, "is empty; expected an integer or a list of integers");
		return NULL;
	}
	return strbuf_detach(&out);
}

/* a parameter given as text (a scalar of the job, or the table's default) */
static char *param_text(struct job_yaml *y, const struct wl_param *wp, const char *v, yaml_mark_t m,
			const char *path)
{
	unsigned long long max = wp->max ? wp->max : ULLONG_MAX, x;
	char s[SHOWLEN], want[300];
	size_t len;

	switch (wp->type) {
	case WLP_UINT:
		if (!job_yaml_text_uint(y, m, path, v, wp->min, max, &x))
			return NULL;
		return xasprintf("%llu", x);
	case WLP_UINT_LIST:
		return param_uint_list(y, wp, v, m, path);
	case WLP_SIZE:
		return param_size(y, wp, v, m, path);
	case WLP_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
			return xstrdup("1");
		if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
			return xstrdup("0");
		job_yaml_err(y, m, path, "'%s' is not a boolean; expected true or false",
			     job_show(s, v));
		return NULL;
	case WLP_ENUM:
		len = strlen(v);
		for (const char *p = wp->choices; p && *p;) {
			size_t l = strcspn(p, "|");

			if (l == len && !strncmp(p, v, len))
				return xstrdup(v);
			p += l + (p[l] == '|');
		}
		snprintf(want, sizeof(want), "%s", wp->choices ? wp->choices : "");
		for (char *p = want; *p; p++)
			if (*p == '|')
				*p = ',';
		job_yaml_err(y, m, path, "'%s' is not allowed; expected one of: %s", job_show(s, v),
			     want);
		return NULL;
	}
	return NULL;
}

static char *param_node(struct job_yaml *y, const struct wl_param *wp, yaml_node_t *n,
			const char *path)
{
	struct strbuf out = STRBUF_INIT;
	char *one, p[PATHLEN], s[SHOWLEN];
	const char *v;
	size_t len;

	if (wp->type != WLP_UINT_LIST || n->type != YAML_SEQUENCE_NODE) {
		v = job_yaml_scalar(y, n, path,
				    wp->type == WLP_UINT_LIST ? "an integer or a list of integers" :
								"a scalar value");
		return v ? param_text(y, wp, v, n->start_mark, path) : NULL;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > JOB_MAX_LIST) {
		job_yaml_err(y, n->start_mark, path,
			     "has %zu entries; expected a list of 1..%d integers", len,
			     JOB_MAX_LIST);
		return NULL;
	}
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *e = job_yaml_seq_item(y, n, i);

		job_pidx(p, path, i);
		v = job_yaml_scalar(y, e, p, "an integer");
		one = v && !strchr(v, ',') ? param_text(y, wp, v, e->start_mark, p) : NULL;
		if (v && strchr(v, ','))
			job_yaml_err(y, e->start_mark, p,
				     "'%s' is not an integer; expected one integer per list entry",
				     job_show(s, v));
		if (!one) {
			strbuf_release(&out);
			return NULL;
		}
		strbuf_addsep(&out, ",", one);
		free(one);
	}
	return strbuf_detach(&out);
}

static void parse_params(struct job_yaml *y, yaml_node_t *n, const struct workload_def *wd,
			 struct kvlist *out, yaml_mark_t wl_mark)
{
	const char *path = "workload.params";
	size_t np = 0;
	char **vals, list[256] = "", p[PATHLEN], s[SHOWLEN];
	yaml_node_t **keys;
	bool ok = true;

	while (wd->params[np].name)
		np++;
	for (size_t i = 0; i < np; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 wd->params[i].name);
	vals = xcalloc(np + 1, sizeof(*vals));
	keys = xcalloc(np + 1, sizeof(*keys));
	if (n && n->type != YAML_MAPPING_NODE) {
		job_yaml_err(y, n->start_mark, path,
			     "got %s; expected a mapping of parameter names to values",
			     job_yaml_kind(n));
		n = NULL;
		ok = false;
	}
	for (yaml_node_pair_t *pr = n ? n->data.mapping.pairs.start : NULL;
	     n && pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = job_yaml_node(y, pr->key);
		const char *key = job_yaml_scalar(y, k, path, "a parameter name");
		size_t i;

		if (!key) {
			ok = false;
			continue;
		}
		for (i = 0; i < np && strcmp(wd->params[i].name, key); i++)
			;
		job_pkey(p, path, key);
		if (i == np) {
			job_yaml_err(
				y, k->start_mark, p, "unknown parameter '%s' of workload %s; %s%s",
				job_show(s, key), wd->name,
				np ? "allowed parameters: " : "this workload takes no parameters",
				list);
			ok = false;
		} else if (keys[i]) {
			job_yaml_err(
				y, k->start_mark, p,
				"duplicate key (first given at line %zu); give each parameter once",
				keys[i]->start_mark.line + 1);
			ok = false;
		} else {
			keys[i] = k;
			vals[i] = param_node(y, &wd->params[i], job_yaml_node(y, pr->value), p);
			ok &= vals[i] != NULL;
		}
	}
	for (size_t i = 0; ok && i < np; i++) {
		if (!vals[i])
			vals[i] = param_text(y, &wd->params[i], wd->params[i].def, wl_mark,
					     job_pkey(p, path, wd->params[i].name));
		ok &= vals[i] != NULL;
	}
	for (size_t i = 0; ok && i < np; i++)
		kvlist_set(out, wd->params[i].name, vals[i]);
	for (size_t i = 0; i < np; i++)
		free(vals[i]);
	free(vals);
	free(keys);
}

/* own-workload keys given without command: or module: */
static void own_keys_alone(struct job_yaml *y, struct job_field *f)
{
	char p[PATHLEN];

	for (int k = W_COMMAND; k < W_N; k++)
		if (k != W_MODULE && k != W_MMTESTS && f[k].val)
			job_yaml_err(
				y, f[k].key_node->start_mark, job_pkey(p, "workload", f[k].key),
				"belongs to a command workload; add 'command: [PROGRAM, ARGS...]' (or module:), or remove it to run the built-in");
}

void job_parse_workload(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_workload *w)
{
	struct job_field f[W_N] = {
		[W_NAME] = { .key = "name" },	    [W_PARAMS] = { .key = "params" },
		[W_COMMAND] = { .key = "command" }, [W_FILES] = { .key = "files" },
		[W_BUILD] = { .key = "build" },	    [W_METRICS] = { .key = "metrics" },
		[W_TIMEOUT] = { .key = "timeout" }, [W_PHASE] = { .key = "phase" },
		[W_MODULE] = { .key = "module" },   [W_MMTESTS] = { .key = "mmtests" },
	};
	const struct workload_def *const *all = workload_all();
	const struct workload_def *wd;
	const char *names[32];
	char list[256], s[SHOWLEN];
	const char *v;
	size_t i;

	if (!job_yaml_map(
		    y, n, "workload",
		    "a mapping such as { name: usemem, params: { size: 25% } } or { command: [./repro] }",
		    f, W_N))
		return;
	if (f[W_MMTESTS].val) {
		job_parse_mmtests(y, n, f, dir, w);
		return;
	}
	if (f[W_COMMAND].val || f[W_MODULE].val) {
		job_parse_own(y, n, f, dir, w);
		return;
	}
	own_keys_alone(y, f);
	if (!f[W_NAME].val) {
		job_yaml_missing(y, n, "workload", "name",
				 "usemem' (a built-in workload) or 'command: [./repro]");
		return;
	}
	v = job_yaml_scalar(y, f[W_NAME].val, "workload.name", "a workload name");
	if (!v)
		return;
	wd = workload_find(v);
	if (!wd) {
		for (i = 0; i < ARRAY_SIZE(names) - 1 && all[i]; i++)
			names[i] = all[i]->name;
		names[i] = NULL;
		job_yaml_err(
			y, f[W_NAME].val->start_mark, "workload.name",
			"unknown workload '%s'; expected one of: %s (or your own program: command: [PROGRAM, ARGS...])",
			job_show(s, v), job_join(list, sizeof(list), names, ", "));
		return;
	}
	w->name = xstrdup(wd->name);
	parse_params(y, f[W_PARAMS].val, wd, &w->params, n->start_mark);
}
