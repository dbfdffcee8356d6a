// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - compile a command workload's C sources into a static program,
 * cached by content (see build.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "own/build.h"
#include "own/exec.h"

#define DEPS_MAX 4096 /* files gcc -M may name */
#define OUTPUT_SHOWN (16u << 10)

static const char *cc(void)
{
	const char *e = getenv("MMLAB_CC");

	return e && *e ? e : OWN_CC;
}

/* a job error at build: in the job, then the summary line */
static void build_err(const struct own_build *b, const char *job_path, const char *what,
		      const char *output)
{
	fprintf(stderr, "%s:%u:%u: error: workload.build: %s%s%s\n", job_path, b->line + 1,
		b->column + 1, what, output && *output ? "; its output:\n" : "",
		output ? output : "");
	lab_err("%s: workload.build could not be built; fix the source or the flags and run again (format: docs/job-format.md)",
		job_path);
}

/* argv of "CC FLAGS... EXTRA SOURCES... LDFLAGS..." (only the pointers are owned) */
static const char **argv_of(const struct own_build *b, const char *const *extra, size_t nextra,
			    bool link)
{
	size_t n = 0, max = 2 + b->cflags.n + nextra + b->sources.n + b->ldflags.n;
	const char **argv = xcalloc(max + 1, sizeof(*argv));

	argv[n++] = cc();
	for (size_t i = 0; i < b->cflags.n; i++)
		argv[n++] = b->cflags.v[i];
	for (size_t i = 0; i < nextra; i++)
		argv[n++] = extra[i];
	for (size_t i = 0; i < b->sources.n; i++)
		argv[n++] = b->sources.v[i];
	for (size_t i = 0; link && i < b->ldflags.n; i++)
		argv[n++] = b->ldflags.v[i];
	argv[n] = NULL;
	return argv;
}

/* the program's output of argv, or NULL after a build_err() */
static char *run_cc(const char *const *argv, const char *dir, const struct own_build *b,
		    const char *job_path, const char *what)
{
	struct spawn_opts o = { .cwd = dir,
				.timeout_s = OWN_BUILD_TIMEOUT_S,
				.capture_max = OUTPUT_SHOWN };
	struct spawn_result r;
	char how[96], *msg;

	if (spawn_run(argv, &o, &r)) {
		msg = xasprintf("%s %s (%s)", cc(),
				spawn_describe(&r, o.timeout_s, how, sizeof(how)), what);
		build_err(b, job_path, msg, r.out);
		free(msg);
		spawn_result_free(&r);
		return NULL;
	}
	return r.out ? r.out : xstrdup("");
}

/* the files of "gcc -M" output ("t.o: a.c b.h \\\n c.h") into deps */
static void dep_files(char *text, struct strlist *deps)
{
	char *save = NULL;

	for (char *tok = strtok_r(text, " \t\n", &save); tok && deps->n < DEPS_MAX;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		size_t len = strlen(tok);

		if (!strcmp(tok, "\\") || (len && tok[len - 1] == ':'))
			continue;
		strlist_push(deps, tok);
	}
}

/* the compiler and static libc, as the key sees them */
static int toolchain(struct strbuf *key, const struct own_build *b, const char *job_path,
		     const char *dir)
{
	const char *ver[] = { cc(), "--version", NULL };
	const char *libc[] = { cc(), "-print-file-name=libc.a", NULL };
	char *v = run_cc(ver, dir, b, job_path, "asking its version");
	char *l = v ? run_cc(libc, dir, b, job_path, "looking for libc.a") : NULL;
	struct stat st;

	if (!l) {
		free(v);
		return -1;
	}
	l[strcspn(l, "\n")] = '\0';
	if (stat(l, &st))
		memset(&st, 0, sizeof(st));
	strbuf_addf(key, "cc %s\n%.*s\nlibc %s %lld %lld\n", cc(), (int)strcspn(v, "\n"), v, l,
		    (long long)st.st_size, (long long)st.st_mtime);
	free(v);
	free(l);
	return 0;
}

/* the cache key: toolchain, flags, output, every file gcc -M names */
static int build_key(const struct own_build *b, const char *job_path, const char *dir, char key[65])
{
	static const char *const dash_m[] = { "-M" };
	struct strbuf sb = STRBUF_INIT;
	struct strlist deps = { 0 };
	const char **argv;
	char *out, h[65];
	int ret = -1;

	strbuf_addf(&sb, "mmlab own build 1\n");
	if (toolchain(&sb, b, job_path, dir))
		goto out;
	for (size_t i = 0; i < b->cflags.n; i++)
		strbuf_addf(&sb, "cflag %s\n", b->cflags.v[i]);
	for (size_t i = 0; i < b->ldflags.n; i++)
		strbuf_addf(&sb, "ldflag %s\n", b->ldflags.v[i]);
	strbuf_addf(&sb, "output %s\n", b->output);
	argv = argv_of(b, dash_m, 1, false);
	out = run_cc(argv, dir, b, job_path, "listing the headers with -M");
	free(argv);
	if (!out)
		goto out;
	dep_files(out, &deps);
	free(out);
	for (size_t i = 0; i < b->sources.n; i++)
		strlist_push(&deps, b->sources.v[i]);
	for (size_t i = 0; i < deps.n; i++) {
		char *p = deps.v[i][0] == '/' ? xstrdup(deps.v[i]) :
						xasprintf("%s/%s", dir, deps.v[i]);

		if (sha256_file(p, h))
			strcpy(h, "missing");
		strbuf_addf(&sb, "file %s %s\n", p, h);
		free(p);
	}
	sha256_buf(sb.buf, sb.len, key);
	ret = 0;
out:
	strlist_free(&deps);
	strbuf_release(&sb);
	return ret;
}

/* compile into tmp/<output>; 0, or -1 after a build_err() */
static int compile(const struct own_build *b, const char *job_path, const char *dir,
		   const char *tmp)
{
	char *prog = xasprintf("%s/%s", tmp, b->output), interp[256];
	const char *extra[] = { "-static", "-o", prog };
	const char **argv = argv_of(b, extra, ARRAY_SIZE(extra), true);
	char *out = run_cc(argv, dir, b, job_path, "compiling");
	enum own_exec k;
	int ret = -1;

	free(argv);
	if (!out)
		goto out;
	k = own_exec_kind(prog, interp, sizeof(interp));
	if (k != OWN_EXEC_STATIC) {
		char *msg = xasprintf(
			"%s %s made %s, not a static program (%s); remove the flag that makes it so",
			cc(), b->sources.v[0], prog,
			k == OWN_EXEC_DYNAMIC ? "it needs an interpreter" : interp);

		build_err(b, job_path, msg, out);
		free(msg);
	} else {
		ret = 0;
	}
	free(out);
out:
	free(prog);
	return ret;
}

int own_build(const struct own_build *b, const char *job_path, const char *dir,
	      const char *cache_dir, struct own_built *out)
{
	double t0 = now_monotonic();
	char *entry = NULL, *tmp = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (build_key(b, job_path, dir, out->key))
		return -1;
	entry = xasprintf("%s/own/%.16s", cache_dir, out->key);
	out->path = xasprintf("%s/%s", entry, b->output);
	if (path_exists(out->path)) {
		out->cached = true;
		ret = 0;
		goto out;
	}
	tmp = xasprintf("%s/own/tmp.%lld", cache_dir, (long long)getpid());
	rm_rf(tmp);
	if (mkdir_p(tmp, 0755) || compile(b, job_path, dir, tmp))
		goto out;
	/* another run may have built the same key meanwhile: theirs stays */
	if (rename(tmp, entry) && !path_exists(out->path)) {
		lab_err("cannot store the built program in %s: %s", entry, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (tmp)
		rm_rf(tmp);
	free(tmp);
	free(entry);
	out->seconds = now_monotonic() - t0;
	if (ret)
		own_built_release(out);
	return ret;
}

void own_built_release(struct own_built *b)
{
	free(b->path);
	b->path = NULL;
}
