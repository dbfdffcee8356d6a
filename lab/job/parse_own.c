// SPDX-License-Identifier: GPL-2.0
/*
 * parse_own.c - the user's own workload (job_own.h): "workload:" with
 * "command:" (argv), "files:", "build:", "timeout:", "phase:", "module:"
 * and "metrics:" (parse_metrics.c). Host paths are relative to the job
 * file and must exist when the job loads; guest paths are relative to the
 * guest's working directory (/mmlab/work).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/job_own.h"
#include "job/parse.h"
#include "job/workload.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define MODULE_PARAMS_MAX 900

/* [A-Za-z0-9._-], not starting with '.' or '-', no "..": a name in the guest */
static bool guest_name_ok(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (!len || len > max || *s == '.' || *s == '-' || strstr(s, ".."))
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+") ==
	       len;
}

/* a relative guest path of guest names separated by '/' */
static bool guest_rel_ok(const char *s)
{
	char *copy = xstrdup(s), *save = NULL;
	bool ok = *s && *s != '/' && s[strlen(s) - 1] != '/' && !strstr(s, "//") &&
		  strlen(s) <= 200;

	for (char *t = strtok_r(copy, "/", &save); ok && t; t = strtok_r(NULL, "/", &save))
		ok = guest_name_ok(t, 100);
	free(copy);
	return ok;
}

/* a host file that exists, is regular and at most max bytes; false after an error */
static bool host_file(struct job_yaml *y, yaml_node_t *n, const char *path, const char *file,
		      uint64_t max)
{
	struct stat st;
	char s[SHOWLEN];

	if (stat(file, &st)) {
		job_yaml_err(y, n->start_mark, path,
			     "'%s' does not exist; paths are relative to the job file's directory",
			     job_show(s, file));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		job_yaml_err(y, n->start_mark, path,
			     "'%s' is not a regular file; list files, not %s", job_show(s, file),
			     S_ISDIR(st.st_mode) ? "directories" : "special files");
		return false;
	}
	if ((uint64_t)st.st_size > max) {
		job_yaml_err(y, n->start_mark, path, "'%s' is %lld bytes; at most %llu allowed",
			     job_show(s, file), (long long)st.st_size, (unsigned long long)max);
		return false;
	}
	return true;
}

/* ---- command: ---- */

static void parse_command(struct job_yaml *y, yaml_node_t *n, struct job_own *o)
{
	const char *want = "an argument";
	char p[PATHLEN];
	size_t len;

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(
			y, n->start_mark, "workload.command",
			"got %s; expected a list (the argv, no shell is involved) such as [./repro, --threads, \"4\"]",
			job_yaml_kind(n));
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > OWN_MAX_ARGS) {
		job_yaml_err(y, n->start_mark, "workload.command",
			     "has %zu entries; expected 1..%d", len, OWN_MAX_ARGS);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *a = job_yaml_seq_item(y, n, i);
		const char *v = job_yaml_scalar(y, a, job_pidx(p, "workload.command", i), want);

		if (v && strlen(v) > OWN_ARG_MAX)
			job_yaml_err(y, a->start_mark, p, "is %zu bytes; at most %d allowed",
				     strlen(v), OWN_ARG_MAX);
		else if (v && !i && !*v)
			job_yaml_err(y, a->start_mark, p, "is empty; expected the program to run");
		else if (v)
			strlist_push(&o->argv, v);
	}
}

/* ---- files: ---- */

enum { FL_SRC, FL_DST, FL_N };

static void file_entry(struct job_yaml *y, yaml_node_t *n, const char *path, const char *dir,
		       struct own_file *f)
{
	struct job_field fl[FL_N] = { [FL_SRC] = { .key = "src" }, [FL_DST] = { .key = "dst" } };
	const char *src, *dst = NULL, *slash;
	yaml_node_t *sn = n;
	char p[PATHLEN], pd[PATHLEN], s[SHOWLEN];

	if (n->type == YAML_MAPPING_NODE) {
		if (!job_yaml_map(y, n, path, "", fl, FL_N))
			return;
		if (!fl[FL_SRC].val) {
			job_yaml_missing(y, n, path, "src", "data/input.bin");
			return;
		}
		sn = fl[FL_SRC].val;
		if (fl[FL_DST].val &&
		    !(dst = job_yaml_scalar(y, fl[FL_DST].val, job_pkey(pd, path, "dst"),
					    "a path in the guest's working directory")))
			return;
	}
	src = job_yaml_scalar(y, sn, fl[FL_SRC].val ? job_pkey(p, path, "src") : path,
			      "the path of a file, or { src: FILE, dst: GUEST-PATH }");
	if (!src)
		return;
	f->src = job_path(dir, src);
	if (!host_file(y, sn, fl[FL_SRC].val ? p : path, f->src, OWN_FILE_MAX))
		return;
	slash = strrchr(src, '/');
	f->dst = xstrdup(dst ? dst : slash ? slash + 1 : src);
	if (!guest_rel_ok(f->dst))
		job_yaml_err(
			y, (dst ? fl[FL_DST].val : sn)->start_mark, dst ? pd : path,
			"'%s' is not a usable guest path; expected a relative path of names from A-Z a-z 0-9 . _ - + (no '..')",
			job_show(s, f->dst));
}

static void parse_files(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_own *o)
{
	char p[PATHLEN], s[SHOWLEN];
	size_t len;

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(
			y, n->start_mark, "workload.files",
			"got %s; expected a list of files such as [scripts/run.sh, data/input.bin]",
			job_yaml_kind(n));
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > OWN_MAX_FILES) {
		job_yaml_err(y, n->start_mark, "workload.files", "has %zu entries; expected 1..%d",
			     len, OWN_MAX_FILES);
		return;
	}
	o->files = xcalloc(len, sizeof(*o->files));
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *e = job_yaml_seq_item(y, n, i);
		struct own_file *f = &o->files[o->nfiles++];

		file_entry(y, e, job_pidx(p, "workload.files", i), dir, f);
		for (size_t j = 0; f->dst && j + 1 < o->nfiles; j++)
			if (o->files[j].dst && !strcmp(o->files[j].dst, f->dst))
				job_yaml_err(
					y, e->start_mark, p,
					"'%s' is also files[%zu]'s name in the guest; give one of them another dst:",
					job_show(s, f->dst), j);
	}
}

/* ---- build: ---- */

enum { BD_C, BD_CFLAGS, BD_LDFLAGS, BD_OUTPUT, BD_N };

static void parse_flags(struct job_yaml *y, yaml_node_t *n, const char *path, struct strlist *out)
{
	char p[PATHLEN], s[SHOWLEN];

	job_yaml_str_list(y, n, path, "a compiler option such as -O2", NULL, out);
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i], "-o") || !strncmp(out->v[i], "-o", 2) ||
		    !strcmp(out->v[i], "-shared"))
			job_yaml_err(
				y, n->start_mark, job_pidx(p, path, i),
				"'%s' is mmlab's to choose (a static program named by output:); remove it",
				job_show(s, out->v[i]));
}

/* the default program name: the first source's file name without its extension */
static char *default_output(const char *src)
{
	const char *slash = strrchr(src, '/'), *base = slash ? slash + 1 : src;
	const char *dot = strrchr(base, '.');

	return xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

static void parse_build(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_own *o)
{
	struct job_field f[BD_N] = {
		[BD_C] = { .key = "c" },
		[BD_CFLAGS] = { .key = "cflags" },
		[BD_LDFLAGS] = { .key = "ldflags" },
		[BD_OUTPUT] = { .key = "output" },
	};
	struct own_build *b = &o->build;
	char p[PATHLEN], s[SHOWLEN];
	const char *v;

	if (!job_yaml_map(y, n, "workload.build",
			  "a mapping such as { c: repro.c, cflags: [-O2, -pthread] }", f, BD_N))
		return;
	o->has_build = true;
	b->line = (unsigned int)n->start_mark.line;
	b->column = (unsigned int)n->start_mark.column;
	if (!f[BD_C].val) {
		job_yaml_missing(y, n, "workload.build", "c", "repro.c");
		return;
	}
	job_yaml_str_list(y, f[BD_C].val, "workload.build.c", "the path of a C source file", dir,
			  &b->sources);
	for (size_t i = 0; i < b->sources.n; i++)
		host_file(y, f[BD_C].val,
			  f[BD_C].val->type == YAML_SEQUENCE_NODE ?
				  job_pidx(p, "workload.build.c", i) :
				  "workload.build.c",
			  b->sources.v[i], 16u << 20);
	if (f[BD_CFLAGS].val)
		parse_flags(y, f[BD_CFLAGS].val, "workload.build.cflags", &b->cflags);
	if (f[BD_LDFLAGS].val)
		parse_flags(y, f[BD_LDFLAGS].val, "workload.build.ldflags", &b->ldflags);
	if (f[BD_OUTPUT].val) {
		v = job_yaml_scalar(y, f[BD_OUTPUT].val, "workload.build.output", "a program name");
		if (v && !guest_name_ok(v, 64))
			job_yaml_err(
				y, f[BD_OUTPUT].val->start_mark, "workload.build.output",
				"'%s' is not a usable program name; expected 1..64 of A-Z a-z 0-9 . _ - +",
				job_show(s, v));
		else if (v)
			b->output = xstrdup(v);
	} else if (b->sources.n) {
		b->output = default_output(b->sources.v[0]);
		if (!guest_name_ok(b->output, 64))
			job_yaml_err(y, f[BD_C].val->start_mark, "workload.build.c",
				     "'%s' makes no usable program name; set build.output",
				     job_show(s, b->output));
	}
	for (size_t i = 0; b->output && i < o->nfiles; i++)
		if (o->files[i].dst && !strcmp(o->files[i].dst, b->output))
			job_yaml_err(
				y, n->start_mark, "workload.build",
				"the program '%s' would replace files[%zu] in the guest; set build.output to another name",
				b->output, i);
}

/* ---- module: ---- */

enum { MD_SRC, MD_NAME, MD_PARAMS, MD_N };

static void module_params(struct job_yaml *y, yaml_node_t *n, struct own_module *m)
{
	struct strbuf sb = STRBUF_INIT;
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_MAPPING_NODE) {
		job_yaml_err(
			y, n->start_mark, "workload.module.params",
			"got %s; expected a mapping of module parameters such as { loops: 1000 }",
			job_yaml_kind(n));
		return;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = job_yaml_node(y, pr->key), *v = job_yaml_node(y, pr->value);
		const char *key =
			job_yaml_scalar(y, k, "workload.module.params", "a parameter name");
		const char *val;

		if (!key)
			continue;
		job_pkey(p, "workload.module.params", key);
		if (!*key || strlen(key) > 64 ||
		    strspn(key,
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
			    strlen(key)) {
			job_yaml_err(y, k->start_mark, p,
				     "'%s' is not a module parameter name; expected A-Z a-z 0-9 _",
				     job_show(s, key));
			continue;
		}
		val = job_yaml_scalar(y, v, p, "a value");
		if (val && strpbrk(val, " \t\"")) {
			job_yaml_err(
				y, v->start_mark, p,
				"'%s' holds a space or a quote; module parameter values here are single words",
				job_show(s, val));
			continue;
		}
		if (val && kvlist_get(&m->params, key))
			job_yaml_err(y, k->start_mark, p, "duplicate parameter");
		else if (val)
			kvlist_set(&m->params, key, val);
	}
	for (size_t i = 0; i < m->params.n; i++)
		strbuf_addf(&sb, "%s%s=%s", i ? " " : "", m->params.v[i].key, m->params.v[i].value);
	if (sb.len > MODULE_PARAMS_MAX)
		job_yaml_err(y, n->start_mark, "workload.module.params",
			     "%zu bytes of parameters; at most %d allowed", sb.len,
			     MODULE_PARAMS_MAX);
	m->param_text = strbuf_detach(&sb);
}

static bool module_dir_ok(struct job_yaml *y, yaml_node_t *n, const char *d)
{
	char *kb = xasprintf("%s/Kbuild", d), *mk = xasprintf("%s/Makefile", d), s[SHOWLEN];
	bool ok = path_exists(kb) || path_exists(mk);

	if (!is_dir(d))
		job_yaml_err(
			y, n->start_mark, "workload.module.src",
			"'%s' is not a directory; expected the directory of the module's Kbuild (or Makefile) and sources",
			job_show(s, d));
	else if (!ok)
		job_yaml_err(y, n->start_mark, "workload.module.src",
			     "'%s' has no Kbuild or Makefile; add one with 'obj-m += NAME.o'",
			     job_show(s, d));
	free(kb);
	free(mk);
	return ok;
}

static void parse_module(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_own *o)
{
	struct job_field f[MD_N] = {
		[MD_SRC] = { .key = "src" },
		[MD_NAME] = { .key = "name" },
		[MD_PARAMS] = { .key = "params" },
	};
	struct own_module *m = &o->module;
	const char *v;
	char s[SHOWLEN];

	if (!job_yaml_map(y, n, "workload.module",
			  "a mapping such as { src: files/page_bench, params: { loops: 1000 } }", f,
			  MD_N))
		return;
	o->has_module = true;
	if (!f[MD_SRC].val) {
		job_yaml_missing(y, n, "workload.module", "src", "files/page_bench");
		return;
	}
	v = job_yaml_scalar(y, f[MD_SRC].val, "workload.module.src", "a directory");
	if (!v)
		return;
	m->src = job_path(dir, v);
	while (strlen(m->src) > 1 && m->src[strlen(m->src) - 1] == '/')
		m->src[strlen(m->src) - 1] = '\0';
	if (!module_dir_ok(y, f[MD_SRC].val, m->src))
		return;
	v = f[MD_NAME].val ? job_yaml_scalar(y, f[MD_NAME].val, "workload.module.name",
					     "the module's name (its .ko file without .ko)") :
			     strrchr(m->src, '/') + 1;
	if (v && (!*v || strlen(v) > 56 ||
		  strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") !=
			  strlen(v)))
		job_yaml_err(
			y, (f[MD_NAME].val ? f[MD_NAME].val : f[MD_SRC].val)->start_mark,
			f[MD_NAME].val ? "workload.module.name" : "workload.module.src",
			"'%s' is not a module name; expected A-Z a-z 0-9 _ - (set module.name to the .ko's name)",
			job_show(s, v));
	else if (v)
		m->name = xstrdup(v);
	if (f[MD_PARAMS].val)
		module_params(y, f[MD_PARAMS].val, m);
	else
		m->param_text = xstrdup("");
}

/* ---- the workload's name: the metric prefix ---- */

/* a built-in's name, or the first component of a family of other metrics */
static bool name_taken(const char *v)
{
	static const char *const families[] = {
		"vmstat", "numastat", "time",	 "trace", "kthread",
		"dmesg",  "extfrag",  "derived", "rate",  "mmtests"
	};

	if (workload_find(v))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (!strcmp(v, families[i]))
			return true;
	return !strncmp(v, "node", 4) && v[4] && strspn(v + 4, "0123456789") == strlen(v + 4);
}

static void own_name(struct job_yaml *y, struct job_field *name, yaml_node_t *cmd,
		     struct job_workload *w)
{
	struct job_own *o = w->own;
	const char *v, *base;
	char s[SHOWLEN];

	if (name->val) {
		v = job_yaml_scalar(y, name->val, "workload.name", "a name for the metrics");
		if (!v)
			return;
		if (!guest_name_ok(v, OWN_NAME_MAX) || strchr(v, '+')) {
			job_yaml_err(
				y, name->val->start_mark, "workload.name",
				"'%s' cannot prefix metric names; expected 1..64 of A-Z a-z 0-9 . _ - not starting with '.' or '-'",
				job_show(s, v));
			return;
		}
		if (name_taken(v)) {
			job_yaml_err(
				y, name->val->start_mark, "workload.name",
				"'%s' is %s; name your command otherwise so that its metrics do not mix with those",
				v,
				workload_find(v) ?
					"a built-in workload" :
					"the name of a family of metrics (docs/metrics.md)");
			return;
		}
		o->name_given = true;
		w->name = xstrdup(v);
		return;
	}
	if (!o->argv.n) { /* a module alone */
		w->name = o->module.name ? xstrdup(o->module.name) : NULL;
		return;
	}
	base = strrchr(o->argv.v[0], '/');
	base = base ? base + 1 : o->argv.v[0];
	if (!guest_name_ok(base, OWN_NAME_MAX) || strchr(base, '+') || name_taken(base)) {
		job_yaml_err(
			y, cmd->start_mark, "workload.command[0]",
			"'%s' cannot name the metrics; set workload.name (1..64 of A-Z a-z 0-9 . _ -, not a built-in workload's or a metric family's name)",
			job_show(s, base));
		return;
	}
	w->name = xstrdup(base);
}

static void parse_phase(struct job_yaml *y, yaml_node_t *n, struct job_own *o)
{
	static const char *const phases[] = { "whole", "handshake", NULL };
	int ph = job_yaml_enum(y, n, "workload.phase", phases);

	if (ph >= 0)
		o->phase = (enum own_phase)ph;
	if (ph == OWN_PHASE_HANDSHAKE && !o->argv.n)
		job_yaml_err(
			y, n->start_mark, "workload.phase",
			"'handshake' needs a command: to talk to; a module's measured phase is its loading");
}

/* where an error about command[0] points: it, or command:, or the workload */
static yaml_node_t *first_arg(struct job_yaml *y, yaml_node_t *cmd, yaml_node_t *wl)
{
	if (!cmd)
		return wl;
	if (cmd->type == YAML_SEQUENCE_NODE && job_yaml_seq_len(cmd))
		return job_yaml_seq_item(y, cmd, 0);
	return cmd;
}

void job_parse_own(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *dir,
		   struct job_workload *w)
{
	struct job_own *o = xcalloc(1, sizeof(*o));

	w->own = o;
	if (f[W_PARAMS].val)
		job_yaml_err(
			y, f[W_PARAMS].key_node->start_mark, "workload.params",
			"params are a built-in workload's; give a command's arguments in command:");
	if (f[W_COMMAND].val)
		parse_command(y, f[W_COMMAND].val, o);
	if (f[W_FILES].val)
		parse_files(y, f[W_FILES].val, dir, o);
	if (f[W_BUILD].val)
		parse_build(y, f[W_BUILD].val, dir, o);
	if (f[W_MODULE].val)
		parse_module(y, f[W_MODULE].val, dir, o);
	own_name(y, &f[W_NAME], first_arg(y, f[W_COMMAND].val, n), w);
	if (f[W_TIMEOUT].val) {
		job_yaml_duration(y, f[W_TIMEOUT].val, "workload.timeout", 7 * 86400,
				  &o->timeout_s);
		o->timeout_line = (unsigned int)f[W_TIMEOUT].val->start_mark.line;
		o->timeout_column = (unsigned int)f[W_TIMEOUT].val->start_mark.column;
	}
	if (f[W_PHASE].val)
		parse_phase(y, f[W_PHASE].val, o);
	if (f[W_METRICS].val)
		job_parse_metrics(y, f[W_METRICS].val, w);
}

/* the agent's timeout must fire before the host's deadline stops the guest */
#define OWN_TIMEOUT_MARGIN_S 30

void job_check_own(struct job_yaml *y, struct job *job)
{
	struct job_own *o = job->workload.own;
	struct job_timeouts *t = &job->timeouts;
	yaml_mark_t m = { 0 };

	if (!o || !o->timeout_s)
		return;
	m.line = o->timeout_line;
	m.column = o->timeout_column;
	if (!t->iteration_given) {
		if (t->iteration_s < o->timeout_s + 4 * OWN_TIMEOUT_MARGIN_S)
			t->iteration_s = o->timeout_s + 4 * OWN_TIMEOUT_MARGIN_S;
		return;
	}
	if (o->timeout_s + OWN_TIMEOUT_MARGIN_S > t->iteration_s)
		job_yaml_err(
			y, m, "workload.timeout",
			"%u s leaves less than %d s before timeouts.iteration (%u s) stops the guest; lower timeout or raise timeouts.iteration",
			o->timeout_s, OWN_TIMEOUT_MARGIN_S, t->iteration_s);
}

static void metric_free(struct own_metric *m)
{
	free(m->name);
	free(m->regex);
	free(m->file);
	free(m->path);
	strlist_free(&m->values);
	free(m->unit);
}

void job_own_free(struct job_own *o)
{
	if (!o)
		return;
	strlist_free(&o->argv);
	for (size_t i = 0; i < o->nfiles; i++) {
		free(o->files[i].src);
		free(o->files[i].dst);
	}
	free(o->files);
	strlist_free(&o->build.sources);
	strlist_free(&o->build.cflags);
	strlist_free(&o->build.ldflags);
	free(o->build.output);
	free(o->module.src);
	free(o->module.name);
	kvlist_free(&o->module.params);
	free(o->module.param_text);
	for (size_t i = 0; i < o->nmetrics; i++)
		metric_free(&o->metrics[i]);
	free(o->metrics);
	strlist_free(&o->read);
	free(o);
}
