// SPDX-License-Identifier: GPL-2.0
/*
 * parse_mmtests.c - "workload: { mmtests: { dir, config, packages, mirror } }"
 * (job_mmtests.h). The config is read when the job loads, for the
 * benchmarks it runs; the run works out the image's packages from them
 * (lab/mmtests/needs.c). The workload becomes a command workload with the
 * handshake: lab's script runs run-mmtests.sh once to install the
 * benchmarks (not measured), then once more between "ready" and "done".
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/job_mmtests.h"
#include "job/job_own.h"
#include "job/parse.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "proto.h"

enum { MT_DIR, MT_CONFIG, MT_PACKAGES, MT_MIRROR, MT_N };

void job_mmtests_free(struct job_mmtests *m)
{
	if (!m)
		return;
	free(m->dir);
	free(m->config);
	free(m->mirror);
	strlist_free(&m->benchmarks);
	strlist_free(&m->packages);
	free(m);
}

static bool bench_name_ok(const char *s, size_t len)
{
	if (!len || len > 64 || *s == '.' || *s == '-')
		return false;
	for (size_t i = 0; i < len; i++) /* strchr() finds a NUL too */
		if (!s[i] ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    s[i]))
			return false;
	return true;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* the value of "MMTESTS=..." at p (after the '='): unquoted to the line's end */
static int parse_value(const char *p, const char *end, struct strlist *out, char **why)
{
	char q = (*p == '"' || *p == '\'') ? *p++ : 0;
	const char *stop = p;

	while (stop < end && *stop != '\n' && (q ? *stop != q : *stop != '#' && *stop != ';'))
		stop++;
	if (q && (stop >= end || *stop != q)) {
		*why = xstrdup("its MMTESTS= value has no closing quote");
		return -1;
	}
	strlist_free(out);
	while (p < stop) {
		const char *w;
		size_t n;

		while (p < stop && (*p == ' ' || *p == '\t'))
			p++;
		w = p;
		while (p < stop && *p != ' ' && *p != '\t')
			p++;
		n = (size_t)(p - w);
		if (!n)
			break;
		if (*w == '$' || !bench_name_ok(w, n)) {
			*why = xasprintf(
				"its MMTESTS= names '%.*s', which is not a benchmark name (mmlab reads the value as written, without the shell)",
				(int)(n > 40 ? 40 : n), w);
			return -1;
		}
		if (out->n >= MMTESTS_MAX_BENCHMARKS) {
			*why = xasprintf("its MMTESTS= names more than %d benchmarks",
					 MMTESTS_MAX_BENCHMARKS);
			return -1;
		}
		strlist_pushf(out, "%.*s", (int)n, w);
	}
	return 0;
}

int mmtests_config_benchmarks(const char *text, size_t len, struct strlist *out, char **why)
{
	const char *p = text, *end = text + len;

	*why = NULL;
	strlist_free(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = p;
		const char *eol = nl ? nl : end;

		s = skip_blanks(s, eol);
		if ((size_t)(eol - s) > 7 && !strncmp(s, "export", 6) &&
		    (s[6] == ' ' || s[6] == '\t'))
			s = skip_blanks(s + 6, eol);
		if ((size_t)(eol - s) > 8 && !strncmp(s, "MMTESTS=", 8) &&
		    parse_value(s + 8, eol, out, why))
			return -1;
		p = eol + (nl != NULL);
	}
	if (!out->n) {
		*why = xstrdup(
			"it sets no benchmarks; an mmtests config says which with a line such as export MMTESTS=\"thpchallenge\"");
		return -1;
	}
	return 0;
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static void parse_dir(struct job_yaml *y, yaml_node_t *n, const char *jdir, struct job_mmtests *m)
{
	const char *v = job_yaml_scalar(y, n, "workload.mmtests.dir", "the mmtests directory");
	char s[SHOWLEN], *rs, *ex;

	if (!v)
		return;
	m->dir = job_path(jdir, v);
	rs = xasprintf("%s/run-mmtests.sh", m->dir);
	ex = xasprintf("%s/bin/extract-mmtests.pl", m->dir);
	if (!is_dir(m->dir))
		job_yaml_err(
			y, n->start_mark, "workload.mmtests.dir",
			"'%s' is not a directory; give your mmtests checkout (git clone https://github.com/gormanm/mmtests), relative to the job file",
			job_show(s, v));
	else if (!is_file(rs) || !is_file(ex))
		job_yaml_err(
			y, n->start_mark, "workload.mmtests.dir",
			"'%s' has no run-mmtests.sh and bin/extract-mmtests.pl; is it an mmtests checkout?",
			job_show(s, v));
	free(rs);
	free(ex);
}

/* config: absolute, or relative to the mmtests directory, else to the job file */
static void parse_config(struct job_yaml *y, yaml_node_t *n, const char *jdir,
			 struct job_mmtests *m)
{
	const char *v = job_yaml_scalar(y, n, "workload.mmtests.config", "a config file");
	char s[SHOWLEN], *why = NULL, *text;
	size_t len;

	if (!v)
		return;
	if (v[0] != '/' && v[0] != '~' && m->dir) {
		m->config = xasprintf("%s/%s", m->dir, v);
		if (!is_file(m->config)) {
			free(m->config);
			m->config = NULL;
		}
	}
	if (!m->config)
		m->config = job_path(jdir, v);
	if (!is_file(m->config)) {
		job_yaml_err(
			y, n->start_mark, "workload.mmtests.config",
			"'%s' is not a file in the mmtests directory nor next to the job file; expected a config such as configs/config-workload-thpchallenge-none",
			job_show(s, v));
		return;
	}
	text = read_file(m->config, &len, MMTESTS_CONFIG_MAX);
	if (!text) {
		job_yaml_err(y, n->start_mark, "workload.mmtests.config",
			     "cannot read '%s' (at most %u bytes)", job_show(s, v),
			     MMTESTS_CONFIG_MAX);
		return;
	}
	if (mmtests_config_benchmarks(text, len, &m->benchmarks, &why))
		job_yaml_err(y, n->start_mark, "workload.mmtests.config", "'%s': %s",
			     job_show(s, v), why);
	free(why);
	free(text);
}

/* mirror: a directory laid out as mmtests' WEBROOT, relative to the job file */
static void parse_mirror(struct job_yaml *y, yaml_node_t *n, const char *jdir,
			 struct job_mmtests *m)
{
	const char *v = job_yaml_scalar(y, n, "workload.mmtests.mirror", "a mirror directory");
	char s[SHOWLEN];

	if (!v)
		return;
	m->mirror = job_path(jdir, v);
	if (!is_dir(m->mirror))
		job_yaml_err(
			y, n->start_mark, "workload.mmtests.mirror",
			"'%s' is not a directory; give a local mmtests mirror laid out as mmtests' WEBROOT (<benchmark>/<file>), relative to the job file",
			job_show(s, v));
}

/* the command workload that runs it (job_own.h) */
static void make_command(struct job_workload *w, const struct job_mmtests *m)
{
	struct job_own *o = w->own;

	strlist_push(&o->argv, "/bin/sh");
	strlist_push(&o->argv, MMTESTS_GUEST_SCRIPT);
	strlist_push(&o->argv, MMTESTS_GUEST_CONFIG);
	strlist_push(&o->argv, MMTESTS_RUN_NAME);
	o->phase = OWN_PHASE_HANDSHAKE;
	o->files = xcalloc(1, sizeof(*o->files));
	o->files[0].src = xstrdup(m->config);
	o->files[0].dst = xstrdup(MMTESTS_GUEST_CONFIG);
	o->nfiles = 1;
	o->name_given = true;
	w->name = xstrdup("mmtests");
}

void job_parse_mmtests(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *dir,
		       struct job_workload *w)
{
	struct job_field mf[MT_N] = {
		[MT_DIR] = { .key = "dir" },
		[MT_CONFIG] = { .key = "config" },
		[MT_PACKAGES] = { .key = "packages" },
		[MT_MIRROR] = { .key = "mirror" },
	};
	yaml_node_t *mn = f[W_MMTESTS].val;
	struct job_mmtests *m = xcalloc(1, sizeof(*m));
	char p[PATHLEN];

	(void)n; /* the workload: errors point at its keys */
	w->mmtests = m;
	w->own = xcalloc(1, sizeof(*w->own));
	m->line = (unsigned int)mn->start_mark.line;
	m->column = (unsigned int)mn->start_mark.column;
	for (int k = 0; k < W_N; k++)
		if (k != W_MMTESTS && k != W_TIMEOUT && f[k].val)
			job_yaml_err(
				y, f[k].key_node->start_mark, job_pkey(p, "workload", f[k].key),
				"does not go with mmtests: (the config says what runs and mmtests' own reports give the metrics); only timeout: may be given beside it");
	if (!job_yaml_map(
		    y, mn, "workload.mmtests",
		    "a mapping such as { dir: ~/src/mmtests, config: configs/config-workload-thpchallenge-none }",
		    mf, MT_N))
		return;
	if (!mf[MT_DIR].val)
		job_yaml_missing(y, mn, "workload.mmtests", "dir", "~/src/mmtests");
	else
		parse_dir(y, mf[MT_DIR].val, dir, m);
	if (!mf[MT_CONFIG].val)
		job_yaml_missing(y, mn, "workload.mmtests", "config",
				 "configs/config-workload-thpchallenge-none");
	else
		parse_config(y, mf[MT_CONFIG].val, dir, m);
	if (mf[MT_MIRROR].val)
		parse_mirror(y, mf[MT_MIRROR].val, dir, m);
	if (mf[MT_PACKAGES].val)
		job_parse_packages(y, mf[MT_PACKAGES].val, "workload.mmtests.packages",
				   &m->packages);
	if (f[W_TIMEOUT].val) {
		job_yaml_duration(y, f[W_TIMEOUT].val, "workload.timeout", 7 * 86400,
				  &w->own->timeout_s);
		w->own->timeout_line = (unsigned int)f[W_TIMEOUT].val->start_mark.line;
		w->own->timeout_column = (unsigned int)f[W_TIMEOUT].val->start_mark.column;
	}
	if (m->config)
		make_command(w, m);
}

/* mmtests runs on the disk image; its work/log/ comes back as a collected file */
void job_check_mmtests(struct job_yaml *y, struct job *job)
{
	const struct job_mmtests *m = job->workload.mmtests;
	yaml_mark_t mark = { 0 };

	if (!m)
		return;
	mark.line = m->line;
	mark.column = m->column;
	if (job->image.kind != IMAGE_DEBOOTSTRAP) {
		job_yaml_err(
			y, mark, "workload.mmtests",
			"mmtests runs on the Debian disk image (its scripts need bash, perl and a compiler); add image: { kind: debootstrap }");
		return;
	}
	if (job->iterations_per_boot > 1)
		job_yaml_err(
			y, mark, "workload.mmtests",
			"runs one iteration per boot (mmtests' log of the boot is the iteration's); drop iterations_per_boot");
	if (strlist_has(&job->collect_files, MMTESTS_GUEST_LOG))
		return;
	if (job->collect_files.n >= JOB_MAX_COLLECT)
		job_yaml_err(y, mark, "workload.mmtests",
			     "collect_files has %d paths; mmtests' log needs one more",
			     JOB_MAX_COLLECT);
	else
		strlist_push(&job->collect_files, MMTESTS_GUEST_LOG);
}
