// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - a command workload in a run (job_own.h, docs/workloads.md):
 *
 * its struct workload_ops (run.h), which mmtests.c's reuses:
 *
 *   before any boot   its program built (own/build.h), its files and the
 *                     program listed for the guest (struct run's
 *                     guest_files: guest path -> host path, the one list
 *                     every boot hands to the image code), and the program
 *                     checked against the image: the initramfs has no
 *                     shared libraries and no shell
 *   each boot         its plan: own=1, own.* (collectors/plan.c reads it)
 *   each iteration    its stdout, stderr and kernel log stored, bounded;
 *                     the extractors' metrics added (guest/extract.h); a
 *                     failure explained with the exit status and the end of
 *                     stderr
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "guest/extract.h"
#include "image/recipe.h"
#include "job/job_own.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "own/build.h"
#include "own/exec.h"
#include "proto.h"
#include "run/run.h"

#define GUEST_WORKDIR (&OWN_WORKDIR[1]) /* "mmlab/work": guest paths here start without '/' */
#define STDERR_TAIL_LINES 20
#define STDERR_TAIL_MAX 2048

/* ---- before the boots ---- */

static int build_program(struct run *r)
{
	const struct job_own *o = r->job->workload.own;
	struct own_built b;
	char *gp;

	if (own_build(&o->build, r->job->path, r->job->dir, r->spec->cache_dir, &b))
		return -1;
	if (b.cached)
		lab_info("workload.build: %s from the cache (%.3f s)", o->build.output, b.seconds);
	else
		lab_info("workload.build: compiled %s, static (%.2f s)", o->build.output,
			 b.seconds);
	gp = xasprintf("%s/%s", GUEST_WORKDIR, o->build.output);
	kvlist_set(&r->guest_files, gp, b.path);
	free(gp);
	own_built_release(&b);
	return 0;
}

/* the guest paths the initramfs has besides the job's files: recipe, agent, workloads */
static int initramfs_paths(const struct run *r, struct strlist *out)
{
	const char *recipe = r->job->image.recipe;
	struct image_recipe rc;

	if (recipe ? image_recipe_load(recipe, &rc) :
		     image_recipe_load_default(RECIPE_INITRAMFS, &rc))
		return -1;
	for (size_t i = 0; i < rc.nfiles; i++)
		strlist_push(out, rc.files[i].path);
	image_recipe_release(&rc);
	strlist_push(out, "init");
	return 0;
}

/* is the absolute guest path p (or, without a '/', a name in PATH) in the initramfs? */
static bool in_initramfs(const struct strlist *have, const char *p)
{
	static const char *const path[] = { "usr/local/sbin", "usr/local/bin", "usr/sbin",
					    "usr/bin",	      "sbin",	       "bin" };
	bool found = false;

	if (p[0] == '/')
		return strlist_has(have, p + 1) || !strncmp(p, "/mmlab/workloads/", 17);
	for (size_t i = 0; i < ARRAY_SIZE(path) && !found; i++) {
		char *full = xasprintf("%s/%s", path[i], p);

		found = strlist_has(have, full);
		free(full);
	}
	return found;
}

/* the host file of the job's that argv0 runs in the guest, or NULL */
static const char *job_program(const struct run *r, const char *argv0)
{
	const char *rel = argv0;
	char *gp;
	const char *host;

	if (!strncmp(rel, "./", 2))
		rel += 2;
	else if (!strncmp(rel, OWN_WORKDIR "/", strlen(OWN_WORKDIR) + 1))
		rel += strlen(OWN_WORKDIR) + 1;
	else if (rel[0] == '/')
		return NULL;
	gp = xasprintf("%s/%s", GUEST_WORKDIR, rel);
	host = kvlist_get(&r->guest_files, gp);
	free(gp);
	return host;
}

static int refuse(const struct run *r, const char *what, const char *why)
{
	lab_err("%s: workload.command[0]: %s %s", r->job->path, what, why);
	return -1;
}

/* a program of the job's: executable, for this machine, and runnable in the image */
static int check_program(const struct run *r, const char *argv0, const char *host,
			 const struct strlist *have)
{
	bool initramfs = r->job->image.kind == IMAGE_INITRAMFS;
	char interp[256], *why;
	struct stat st;
	int ret = 0;

	if (stat(host, &st) || !(st.st_mode & 0111))
		return refuse(
			r, argv0,
			"is not executable: chmod +x it, or run it through its interpreter (command: [/bin/sh, run.sh])");
	switch (own_exec_kind(host, interp, sizeof(interp))) {
	case OWN_EXEC_STATIC:
		return 0;
	case OWN_EXEC_DYNAMIC:
		if (!initramfs)
			return 0;
		why = xasprintf(
			"(%s) is dynamically linked: it needs %s and shared libraries, which the initramfs does not have; link it with -static, let mmlab compile it (build: { c: SOURCE.c }), or run it on the disk image (image: { kind: debootstrap })",
			host, interp);
		break;
	case OWN_EXEC_SCRIPT:
		if (!initramfs || in_initramfs(have, interp))
			return 0;
		why = xasprintf(
			"(%s) is a script for %s, which the initramfs does not have (it has no shell); run it on the disk image (image: { kind: debootstrap }) or write the workload in C (build: { c: SOURCE.c })",
			host, interp);
		break;
	case OWN_EXEC_FOREIGN:
		why = xasprintf("(%s) is a program for another machine (%s)", host, interp);
		break;
	default:
		why = xasprintf("(%s) is not a program: no ELF header and no #! line (%s)", host,
				*interp ? interp : "a data file?");
		break;
	}
	ret = refuse(r, argv0, why);
	free(why);
	return ret;
}

/* every dynamically linked executable among the files, on the initramfs */
static int check_files(const struct run *r)
{
	char interp[256];
	struct stat st;

	for (size_t i = 0; i < r->guest_files.n; i++) {
		const char *host = r->guest_files.v[i].value;

		if (stat(host, &st) || !(st.st_mode & 0111) ||
		    own_exec_kind(host, interp, sizeof(interp)) != OWN_EXEC_DYNAMIC)
			continue;
		lab_err("%s: workload.files: %s is dynamically linked (it needs %s), and the initramfs has no shared libraries; link it with -static, or run on the disk image (image: { kind: debootstrap })",
			r->job->path, host, interp);
		return -1;
	}
	return 0;
}

static int check_command(const struct run *r)
{
	const struct job_own *o = r->job->workload.own;
	bool initramfs = r->job->image.kind == IMAGE_INITRAMFS;
	struct strlist have = { 0 };
	const char *argv0, *host;
	int ret = 0;

	if (!o->argv.n)
		return 0;
	argv0 = o->argv.v[0];
	if (initramfs && initramfs_paths(r, &have))
		return -1;
	host = job_program(r, argv0);
	if (host)
		ret = check_program(r, argv0, host, &have);
	else if (initramfs && !in_initramfs(&have, argv0))
		ret = refuse(
			r, argv0,
			"is not in the initramfs, which holds only the agent, the built-in workloads, its recipe's files and the job's files and built program; give the program in files: (static) or build: { c: SOURCE.c }, or run on the disk image (image: { kind: debootstrap }) where the image's packages provide it");
	if (!ret && initramfs)
		ret = check_files(r);
	strlist_free(&have);
	return ret;
}

int run_own_prepare(struct run *r)
{
	const struct job_own *o = r->job->workload.own;

	for (size_t i = 0; i < o->nfiles; i++) {
		char *gp = xasprintf("%s/%s", GUEST_WORKDIR, o->files[i].dst);

		kvlist_set(&r->guest_files, gp, o->files[i].src);
		free(gp);
	}
	if (o->has_build && build_program(r))
		return -1;
	return check_command(r);
}

/* ---- each boot: its plan ---- */

void run_own_plan(struct kvlist *plan, const struct job_workload *w)
{
	const struct job_own *o = w->own;
	char key[32], num[32], *v;

	kvlist_set(plan, "own", "1");
	kvlist_set(plan, "own.phase", o->phase == OWN_PHASE_HANDSHAKE ? "handshake" : "whole");
	snprintf(num, sizeof(num), "%u", o->timeout_s);
	kvlist_set(plan, "own.timeout_s", num);
	for (size_t i = 0; i < o->argv.n; i++) {
		snprintf(key, sizeof(key), "own.arg.%zu", i);
		v = guest_plan_encode(o->argv.v[i]);
		kvlist_set(plan, key, v);
		free(v);
	}
	for (size_t i = 0; i < o->read.n; i++) {
		snprintf(key, sizeof(key), "own.read.%zu", i);
		kvlist_set(plan, key, o->read.v[i]);
	}
	if (o->read_dmesg)
		kvlist_set(plan, "own.dmesg", "1");
	if (!o->has_module)
		return;
	kvlist_set(plan, "own.module", o->module.name);
	v = guest_plan_encode(o->module.param_text);
	kvlist_set(plan, "own.module_params", v);
	free(v);
}

/* ---- after a boot: one iteration ---- */

void run_own_collect(void *ctx, const struct guest_record *rec)
{
	struct boot_out *out = ctx;

	guest_outputs_record(&out->outputs, rec);
}

/* a stream as stored: what was kept, with a line where the middle was dropped */
static int save_text(const struct guest_text *t, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_add(&sb, t->data, t->head);
	if (t->dropped)
		strbuf_addf(
			&sb,
			"%s[mmlab: %llu bytes dropped here; the first and last bytes are kept]\n",
			t->head && t->data[t->head - 1] != '\n' ? "\n" : "",
			(unsigned long long)t->dropped);
	strbuf_add(&sb, t->data + t->head, t->len - t->head);
	ret = write_file_atomic(path, sb.buf ? sb.buf : "", sb.len, 0644);
	strbuf_release(&sb);
	return ret;
}

static json_t *save_streams(const struct guest_iter_out *go, const char *dir)
{
	json_t *o = json_object();

	for (int s = 0; go && s < GUEST_NSTREAMS; s++) {
		const struct guest_text *t = &go->stream[s];
		const char *name = guest_stream_name((enum guest_stream)s);
		char *path = xasprintf("%s/%s", dir, name);

		if (t->present && !save_text(t, path))
			json_object_set_new(o, name,
					    json_pack("{s:I, s:I, s:I, s:s}", "bytes",
						      (json_int_t)t->total, "stored",
						      (json_int_t)t->len, "dropped",
						      (json_int_t)t->dropped, "file", name));
		free(path);
	}
	return o;
}

/* the files read back, under dir/read/ (slashes of their paths as '_') */
static json_t *save_read(const struct job_own *o, const struct guest_iter_out *go, const char *dir)
{
	json_t *a = json_array();
	char *rdir = xasprintf("%s/read", dir);

	for (size_t i = 0; go && i < o->read.n && i < GUEST_OUT_FILES; i++) {
		const struct guest_text *t = &go->files[i];
		char *name, *path;

		if (!t->present)
			continue;
		if (t->missing) {
			json_array_append_new(a, json_pack("{s:s, s:s}", "path", o->read.v[i],
							   "error", strerror(t->missing)));
			continue;
		}
		name = xstrdup(o->read.v[i] + (o->read.v[i][0] == '/'));
		for (char *c = name; *c; c++)
			*c = *c == '/' ? '_' : *c;
		path = xasprintf("%s/%s", rdir, name);
		if (!mkdir_p(rdir, 0755) && !write_file_atomic(path, t->data, t->len, 0644))
			json_array_append_new(a,
					      json_pack("{s:s, s:I, s:b, s:s+}", "path",
							o->read.v[i], "bytes", (json_int_t)t->len,
							"cut", t->cut, "stored", "read/", name));
		free(path);
		free(name);
	}
	free(rdir);
	return a;
}

/* printable: the end of stderr for a message */
static char *stderr_tail(const struct guest_iter_out *go)
{
	const struct guest_text *t = go ? &go->stream[GUEST_STDERR] : NULL;
	const char *p;
	int lines = 0;
	char *out;

	if (!t || !t->present || !t->len)
		return NULL;
	p = t->data + t->len;
	if (p[-1] == '\n')
		p--;
	while (p > t->data && (size_t)(t->data + t->len - p) < STDERR_TAIL_MAX) {
		if (p[-1] == '\n' && ++lines == STDERR_TAIL_LINES)
			break;
		p--;
	}
	out = xstrndup(p, (size_t)(t->data + t->len - p));
	for (char *c = out; *c; c++)
		if ((*c < 0x20 && *c != '\n' && *c != '\t') || (unsigned char)*c >= 0x7f)
			*c = '?';
	return out;
}

/* why a failed iteration of the program failed; g: the agent's report of it, or NULL */
static char *failure(const struct job_own *o, const struct guest_iteration *g,
		     const struct guest_iter_out *go)
{
	long long code = g && g->has_result ? g->exit_code : 0;
	long long sig = g && g->has_result ? g->signal : 0;
	const char *what = o->argv.n ? "the program" : "loading the module";
	char *tail = stderr_tail(go), *msg;
	struct strbuf sb = STRBUF_INIT;

	if (go && go->timed_out)
		strbuf_addf(&sb, "%s ran past its timeout of %u s and was killed", what,
			    o->timeout_s);
	else if (sig)
		strbuf_addf(&sb, "%s was killed by signal %lld (%s)", what, (long long)sig,
			    strsignal((int)sig));
	else if (code == 127 && o->argv.n)
		strbuf_addf(&sb, "the program could not be started (exit status 127)");
	else if (code > 0)
		strbuf_addf(&sb, "%s exited with status %lld", what, (long long)code);
	else
		strbuf_addf(&sb, "the workload failed (the iteration's log says how)");
	if (tail)
		strbuf_addf(&sb, "; the end of its stderr:\n%s", tail);
	free(tail);
	msg = strbuf_detach(&sb);
	return msg;
}

void run_own_record(struct run *r, const struct boot_out *out, struct iteration_out *io,
		    const char *dir)
{
	const struct job_own *o = r->job->workload.own;
	const struct guest_iter_out *go = guest_outputs_find(&out->outputs, io->index);
	struct strlist notes = { 0 };

	json_object_set_new(io->doc, "output", save_streams(go, dir));
	if (o->read.n)
		json_object_set_new(io->doc, "read", save_read(o, go, dir));
	if (go)
		extract_metrics(&r->job->workload, go, io->metrics, &notes);
	/* the boot's log is every iteration's (io's is its copy): these notes are this one's */
	for (size_t i = 0; i < notes.n; i++)
		json_array_append_new(io->log, json_pack("{s:s, s:s+}", "level", "warn", "message",
							 "host: extract: ", notes.v[i]));
	strlist_free(&notes);
	if (!strcmp(io->status, "failed") && go && !io->reason)
		io->reason = failure(o, io->guest, go);
	if (go && go->timed_out)
		json_object_set_new(io->doc, "timed_out", json_true());
}

const struct workload_ops workload_own_ops = {
	.name = "command",
	.prepare = run_own_prepare,
	.plan = run_own_plan,
	.collect = run_own_collect,
	.record = run_own_record,
	.warn_failures = true,
};
