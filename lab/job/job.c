// SPDX-License-Identifier: GPL-2.0
/*
 * job.c - load a job file (YAML, docs/job-format.md) and validate it into
 * struct job.
 *
 * Two passes over the text with libyaml: the event parser first, to report
 * syntax errors, aliases (not supported) and extra documents with their
 * marks; then the document loader, whose node tree is walked (job_yaml.c)
 * by one small function per section (parse_*.c; the map is in parse.h).
 * Every problem is reported as FILE:LINE:COLUMN and walking goes on after
 * an error, so one run shows every mistake.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "job/job.h"
#include "job/job_mmtests.h"
#include "job/job_own.h"
#include "job/parse.h"
#include "lib/util.h"

#define JOB_FILE_MAX (1u << 20)
#define JOB_MAX_ITERATIONS 1000
#define JOB_MAX_DEPTH 16 /* nesting of lists and mappings */

static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };

/* ---- extra top-level keys (job_yaml.h): repro recipes ---- */

/* fill f[] with the extension's keys; returns how many */
static size_t ext_keys(struct job_yaml *y, struct job_field *f)
{
	size_t n = 0;

	for (; y->ext && y->ext->keys && y->ext->keys[n] && n < JOB_EXT_MAX; n++)
		f[n] = (struct job_field){ .key = y->ext->keys[n] };
	return n;
}

/* hand each extra key (given or not) to the extension, then its check */
static void ext_parse(struct job_yaml *y, yaml_node_t *root, struct job_field *f, size_t n,
		      struct job *job)
{
	if (!y->ext)
		return;
	for (size_t i = 0; i < n; i++)
		if (y->ext->parse)
			y->ext->parse(y, f[i].key, root, f[i].key_node, f[i].val, y->ext->arg);
	if (y->ext->check)
		y->ext->check(y, job, y->ext->arg);
}

/* ---- the top-level mapping ---- */

enum {
	J_NAME,
	J_VARIANTS,
	J_TOPOLOGY,
	J_WORKLOAD,
	J_ITERATIONS,
	J_IPB,
	J_TIMEOUTS,
	J_ACCEL,
	J_COLLECTORS,
	J_KERNELS,
	J_IMAGE,
	J_COLLECT,
	J_N
};

static void parse_iterations(struct job_yaml *y, struct job_field *f, struct job *job)
{
	bool ipb_ok = true, it_ok = true;

	if (f[J_ITERATIONS].val)
		it_ok = job_yaml_uint(y, f[J_ITERATIONS].val, f[J_ITERATIONS].key, 1,
				      JOB_MAX_ITERATIONS, &job->iterations);
	if (f[J_IPB].val)
		ipb_ok = job_yaml_uint(y, f[J_IPB].val, "iterations_per_boot", 1,
				       JOB_MAX_ITERATIONS, &job->iterations_per_boot);
	if (it_ok && ipb_ok && job->iterations_per_boot > job->iterations)
		job_yaml_err(y, f[J_IPB].val->start_mark, "iterations_per_boot",
			     "%u is more than iterations (%u); expected 1..%u",
			     job->iterations_per_boot, job->iterations, job->iterations);
}

/* kernels:, which source variants (ref:) need */
static void parse_source(struct job_yaml *y, yaml_node_t *root, struct job_field *f,
			 struct job *job)
{
	char p[PATHLEN];

	if (f[J_KERNELS].val) {
		job_parse_kernels(y, f[J_KERNELS].val, job->dir, &job->kernels);
		return;
	}
	for (size_t i = 0; i < job->nvariants; i++)
		if (job->variants[i].kernel_kind == KERNEL_SOURCE)
			job_yaml_err(
				y, root->start_mark, job_pidx(p, "variants", i),
				"variant '%s' has 'ref:' but the job has no 'kernels:' mapping; add "
				"'kernels: { tree: PATH-OF-A-GIT-KERNEL-TREE }'",
				job->variants[i].name ? job->variants[i].name : "?");
}

/* image: and collect_files: */
static void parse_disk(struct job_yaml *y, struct job_field *f, struct job *job)
{
	if (f[J_IMAGE].val)
		job_parse_image(y, f[J_IMAGE].val, job->dir, &job->image);
	/* both image kinds: the files come back on the data channel */
	if (f[J_COLLECT].val)
		job_parse_collect(y, f[J_COLLECT].val, &job->collect_files);
}

/* the required keys and the name (which an extension may default) */
static void parse_name(struct job_yaml *y, yaml_node_t *root, struct job_field *f, struct job *job)
{
	static const char *const examples[] = {
		[J_NAME] = "demo",
		[J_VARIANTS] = "[ { name: base } ]",
		[J_TOPOLOGY] = "{ nodes: 2, memory_per_node: 256M }",
		[J_WORKLOAD] = "{ name: usemem }",
	};
	const char *def = y->ext ? y->ext->default_name : NULL;

	for (int i = J_NAME; i <= J_WORKLOAD; i++)
		if (!f[i].val && !(i == J_NAME && def))
			job_yaml_missing(y, root, "", f[i].key, examples[i]);
	if (f[J_NAME].val)
		job->name = job_yaml_name(y, f[J_NAME].val, "name");
	else if (def)
		job->name = xstrdup(def);
}

/* the sections in this order, so that errors come in the same order */
static void parse_job(struct job_yaml *y, yaml_node_t *root, struct job *job)
{
	struct job_field f[J_N + JOB_EXT_MAX] = {
		[J_NAME] = { .key = "name" },
		[J_VARIANTS] = { .key = "variants" },
		[J_TOPOLOGY] = { .key = "topology" },
		[J_WORKLOAD] = { .key = "workload" },
		[J_ITERATIONS] = { .key = "iterations" },
		[J_IPB] = { .key = "iterations_per_boot" },
		[J_TIMEOUTS] = { .key = "timeouts" },
		[J_ACCEL] = { .key = "accel" },
		[J_COLLECTORS] = { .key = "collectors" },
		[J_KERNELS] = { .key = "kernels" },
		[J_IMAGE] = { .key = "image" },
		[J_COLLECT] = { .key = "collect_files" },
	};
	size_t nf = J_N + ext_keys(y, f + J_N);
	int a;

	if (y->ext && y->ext->iterations_key)
		f[J_ITERATIONS].key = y->ext->iterations_key;
	if (!job_yaml_map(y, root, "", "a mapping with name, variants, topology, workload, ...", f,
			  nf))
		return;
	parse_name(y, root, f, job);
	if (f[J_TOPOLOGY].val)
		job_parse_topology(y, f[J_TOPOLOGY].val, &job->topo);
	if (f[J_VARIANTS].val)
		job_parse_variants(y, f[J_VARIANTS].val, job);
	if (f[J_WORKLOAD].val)
		job_parse_workload(y, f[J_WORKLOAD].val, job->dir, &job->workload);
	parse_iterations(y, f, job);
	if (f[J_TIMEOUTS].val)
		job_parse_timeouts(y, f[J_TIMEOUTS].val, &job->timeouts);
	if (f[J_COLLECTORS].val)
		job_parse_collectors(y, f[J_COLLECTORS].val, &job->collectors);
	if (f[J_ACCEL].val) {
		a = job_yaml_enum(y, f[J_ACCEL].val, "accel", accel_choices);
		if (a >= 0)
			job->accel = (enum accel_mode)a;
	}
	ext_parse(y, root, f + J_N, nf - J_N, job);
	parse_source(y, root, f, job);
	parse_disk(y, f, job);
	job_check_mmtests(y, job);
	job_check_own(y, job);
}

/* ---- libyaml passes ---- */

static void syntax_error(struct job_yaml *y, const yaml_parser_t *p, const char *buf, size_t len)
{
	yaml_mark_t m = p->problem_mark;

	if (p->error == YAML_READER_ERROR) {
		/* the reader gives a byte offset, not a mark */
		m.line = m.column = 0;
		for (size_t i = 0; i < p->problem_offset && i < len; i++) {
			if (buf[i] == '\n') {
				m.line++;
				m.column = 0;
			} else {
				m.column++;
			}
		}
	}
	if (p->error == YAML_READER_ERROR)
		job_yaml_err(
			y, m, "YAML",
			"%s (byte 0x%02x); save the file as UTF-8 text without control characters",
			p->problem ? p->problem : "unreadable text",
			(unsigned int)p->problem_value & 0xff);
	else if (p->error == YAML_MEMORY_ERROR)
		job_yaml_err(y, m, "YAML", "out of memory while parsing; make the file smaller");
	else if (p->context)
		job_yaml_err(
			y, m, "YAML",
			"%s %s started at line %zu column %zu; fix the YAML syntax (indentation, quoting, brackets)",
			p->problem ? p->problem : "syntax error", p->context,
			p->context_mark.line + 1, p->context_mark.column + 1);
	else
		job_yaml_err(y, m, "YAML",
			     "%s; fix the YAML syntax (indentation, quoting, brackets)",
			     p->problem ? p->problem : "syntax error");
}

/* first pass: syntax, aliases, document count. Returns the document count. */
static int scan_events(struct job_yaml *y, const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0, depth = 0;
	bool done = false;
	char s[SHOWLEN];

	if (!yaml_parser_initialize(&p)) {
		lab_err("cannot initialise the YAML parser for %s: out of memory", y->file);
		y->nerr++;
		return 0;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(y, &p, buf, len);
			break;
		}
		if (ev.type == YAML_ALIAS_EVENT)
			job_yaml_err(
				y, ev.start_mark, "YAML",
				"alias '*%s' is not supported; write the value out in full instead of using anchors and aliases",
				job_show(s, (const char *)ev.data.alias.anchor));
		else if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs == 2)
			job_yaml_err(
				y, ev.start_mark, "YAML",
				"a second YAML document; a job file holds exactly one (remove the extra '---')");
		else if (ev.type == YAML_STREAM_END_EVENT)
			done = true;
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > JOB_MAX_DEPTH) {
			/* libyaml slows down quadratically with nesting */
			job_yaml_err(y, ev.start_mark, "YAML",
				     "nested more than %d levels deep; a job file needs at most 5",
				     JOB_MAX_DEPTH);
			done = true;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return docs;
}

static void load_doc(struct job_yaml *y, const char *buf, size_t len, struct job *job)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_mark_t m = { 0 };

	if (!yaml_parser_initialize(&p)) {
		lab_err("cannot initialise the YAML parser for %s: out of memory", y->file);
		y->nerr++;
		return;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &doc)) {
		syntax_error(y, &p, buf, len);
		yaml_parser_delete(&p);
		return;
	}
	y->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		job_yaml_err(
			y, m, "",
			"the file holds no job; expected a mapping with name, variants, topology and workload");
	else
		parse_job(y, root, job);
	y->doc = NULL;
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
}

static char *abs_dir(const char *dir)
{
	char *r, *cwd;

	if (!dir || !*dir)
		dir = ".";
	r = realpath(dir, NULL);
	if (r)
		return r;
	if (dir[0] == '/')
		return xstrdup(dir);
	cwd = getcwd(NULL, 0);
	r = xasprintf("%s/%s", cwd ? cwd : ".", dir);
	free(cwd);
	return r;
}

int job_load_buffer(const char *name, const char *buf, size_t len, const char *dir,
		    struct job **out)
{
	return job_load_buffer_ext(name, buf, len, dir, NULL, out);
}

int job_load_buffer_ext(const char *name, const char *buf, size_t len, const char *dir,
			const struct job_ext *ext, struct job **out)
{
	struct job_yaml y = { .file = name, .ext = ext };
	struct job *job;
	yaml_mark_t m = { 0 };

	*out = NULL;
	job = xcalloc(1, sizeof(*job));
	job->path = xstrdup(name);
	job->dir = abs_dir(dir);
	job->iterations = ext && ext->iterations_def ? ext->iterations_def : 3;
	job->iterations_per_boot = 1;
	job->timeouts.boot_s = 120;
	job->timeouts.iteration_s = 600;
	job->accel = ACCEL_AUTO;

	if (len > JOB_FILE_MAX)
		job_yaml_err(&y, m, "", "the file is %zu bytes; at most %u allowed", len,
			     JOB_FILE_MAX);
	else if (scan_events(&y, buf, len) == 0 && !y.nerr)
		job_yaml_err(
			&y, m, "",
			"the file is empty; expected a mapping with name, variants, topology and workload");
	if (!y.nerr)
		load_doc(&y, buf, len, job);
	if (y.nerr) {
		lab_err("%s: %u error%s in the %s; fix %s and try again (format: %s)", name, y.nerr,
			y.nerr == 1 ? "" : "s", ext && ext->what ? ext->what : "job file",
			y.nerr == 1 ? "it" : "them",
			ext && ext->doc ? ext->doc : "docs/job-format.md");
		job_free(job);
		return -1;
	}
	*out = job;
	return 0;
}

int job_load(const char *path, struct job **out)
{
	return job_load_ext(path, NULL, out);
}

char *job_read_file(const char *path, size_t *len, char **dir)
{
	char *buf = read_file(path, len, JOB_FILE_MAX), *slash;

	if (!buf)
		return NULL;
	*dir = xstrdup(path);
	slash = strrchr(*dir, '/');
	if (!slash)
		strcpy(*dir, ".");
	else if (slash == *dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return buf;
}

int job_load_ext(const char *path, const struct job_ext *ext, struct job **out)
{
	char *buf, *dir;
	size_t len;
	int ret;

	*out = NULL;
	buf = job_read_file(path, &len, &dir);
	if (!buf)
		return -1;
	ret = job_load_buffer_ext(path, buf, len, dir, ext, out);
	free(dir);
	free(buf);
	return ret;
}

enum workload_kind job_workload_kind(const struct job_workload *w)
{
	if (w->mmtests)
		return WORKLOAD_MMTESTS;
	return w->own ? WORKLOAD_OWN : WORKLOAD_BUILTIN;
}

void job_free(struct job *job)
{
	if (!job)
		return;
	for (size_t i = 0; i < job->nvariants; i++)
		variant_release(&job->variants[i]);
	free(job->kernels.tree);
	free(job->kernels.config_base);
	strlist_free(&job->kernels.fragments);
	free(job->variants);
	free(job->workload.name);
	kvlist_free(&job->workload.params);
	job_own_free(job->workload.own);
	job_mmtests_free(job->workload.mmtests);
	strlist_free(&job->collectors.tracepoints);
	free(job->image.suite);
	free(job->image.recipe);
	strlist_free(&job->image.packages);
	strlist_free(&job->collect_files);
	free(job->path);
	free(job->dir);
	free(job->name);
	free(job);
}
