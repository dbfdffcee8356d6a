// SPDX-License-Identifier: GPL-2.0
/*
 * build.c - kernel configuration and build through the tree's own Kbuild.
 */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/build.h"
#include "kernel/bzimage.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#define CONFIG_TIMEOUT_S 1800
#define BUILD_TIMEOUT_S (6 * 3600)
#define CONFIG_MAX (16u << 20)

/* one fragment line parsed: name and wanted value ("n" for "is not set") */
static bool frag_line(const char *line, size_t len, char *name, size_t nlen, const char **val,
		      size_t *vlen)
{
	const char *eq;

	if (len > 9 && !strncmp(line, "# CONFIG_", 9)) {
		const char *sp = memchr(line + 2, ' ', len - 2);

		if (!sp || (size_t)(line + len - sp) != strlen(" is not set") ||
		    strncmp(sp, " is not set", strlen(" is not set")) ||
		    (size_t)(sp - line - 2) >= nlen)
			return false;
		memcpy(name, line + 2, (size_t)(sp - line - 2));
		name[sp - line - 2] = '\0';
		*val = "n";
		*vlen = 1;
		return true;
	}
	if (len < 8 || strncmp(line, "CONFIG_", 7))
		return false;
	eq = memchr(line, '=', len);
	if (!eq || (size_t)(eq - line) >= nlen)
		return false;
	memcpy(name, line, (size_t)(eq - line));
	name[eq - line] = '\0';
	*val = eq + 1;
	*vlen = (size_t)(line + len - eq - 1);
	return true;
}

/* the value of name in config ("n" when absent or not set) */
static void config_value(const char *config, const char *name, const char **val, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = config;

	*val = "n";
	*vlen = 1;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > nl && !strncmp(p, name, nl) && p[nl] == '=') {
			*val = p + nl + 1;
			*vlen = len - nl - 1;
			return;
		}
		p = eol ? eol + 1 : NULL;
	}
}

size_t kconfig_check(const char *config, const char *fragment, struct strlist *dropped)
{
	const char *p = fragment;
	size_t n = 0;

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *want, *got;
		size_t len = eol ? (size_t)(eol - p) : strlen(p), wl, gl;
		char name[256];

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (frag_line(p, len, name, sizeof(name), &want, &wl)) {
			config_value(config, name, &got, &gl);
			if (wl == 1 && *want == 'n' && gl == 1 && *got == 'n') {
				/* asked off, is off */
			} else if (wl != gl || memcmp(want, got, wl)) {
				strlist_pushf(dropped, "%s=%.*s (got: %s%.*s)", name, (int)wl, want,
					      gl == 1 && *got == 'n' ? "is not set" : "",
					      gl == 1 && *got == 'n' ? 0 : (int)gl, got);
				n++;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return n;
}

const char *kbuild_cc(void)
{
	static const char *cc;

	if (!cc)
		cc = access("/usr/bin/ccache", X_OK) == 0 ? "ccache gcc" : "gcc";
	return cc;
}

const char *kbuild_cc_version(void)
{
	static char *ver;
	const char *argv[] = { "gcc", "--version", NULL };
	struct spawn_result r;

	if (ver)
		return ver;
	if (spawn_run(argv, &(struct spawn_opts){ .timeout_s = 60 }, &r) == 0)
		ver = xstrndup(r.out, strcspn(r.out, "\n"));
	else
		lab_err("cannot run 'gcc --version'; install gcc (apt-get install build-essential)");
	spawn_result_free(&r);
	return ver;
}

static int make_in(const char *src, const char *outdir, const char *const targets[],
		   const char *log_path, unsigned int timeout_s, struct spawn_result *r)
{
	char *o = xasprintf("O=%s", outdir), *cc = xasprintf("CC=%s", kbuild_cc());
	const char *argv[16] = { "make", "-C", src, o, cc };
	struct spawn_opts so = { .timeout_s = timeout_s, .log_path = log_path };
	size_t n = 5;
	int ret;

	for (size_t i = 0; targets[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = targets[i];
	argv[n] = NULL;
	ret = spawn_run(argv, &so, r);
	free(o);
	free(cc);
	return ret;
}

static int config_base(const char *src, const char *outdir, const char *base, const char *variant,
		       const char *log_path)
{
	char *dst = xasprintf("%s/.config", outdir), *from = NULL;
	struct spawn_result r;
	int ret = 0;

	if (!strcmp(base, "tinyconfig") || !strcmp(base, "defconfig") ||
	    !strcmp(base, "allnoconfig")) {
		const char *t[] = { base, NULL };

		if (make_in(src, outdir, t, log_path, CONFIG_TIMEOUT_S, &r)) {
			lab_err("variant '%s': 'make %s' failed in %s: %s", variant, base, src,
				spawn_tail(&r, 10));
			ret = -1;
		}
		spawn_result_free(&r);
		free(dst);
		return ret;
	}
	if (!strcmp(base, "distro")) {
		from = kernel_distro_config();
		if (!from) {
			free(dst);
			return -1;
		}
	} else {
		from = xstrdup(base);
	}
	if (access(from, R_OK)) {
		lab_err("variant '%s': cannot read the config base %s: %s; give base: tinyconfig, "
			"defconfig, distro or the path of a .config",
			variant, from, strerror(errno));
		ret = -1;
	} else {
		ret = copy_file(from, dst, 0644);
	}
	free(from);
	free(dst);
	return ret;
}

int kconfig_make(const char *src, const char *outdir, const char *base,
		 const char *const *fragments, size_t nfragments, const char *variant,
		 const char *log_path)
{
	char *cfg = xasprintf("%s/.config", outdir), *text = NULL, *list = NULL;
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", src);
	struct strlist dropped = { 0 };
	struct spawn_result r;
	int ret = -1;

	if (mkdir_p(outdir, 0755) || config_base(src, outdir, base, variant, log_path))
		goto out;
	if (nfragments) {
		const char **argv = xcalloc(nfragments + 8, sizeof(*argv));
		size_t n = 0;

		argv[n++] = merge;
		argv[n++] = "-m";
		argv[n++] = "-O";
		argv[n++] = outdir;
		argv[n++] = cfg;
		for (size_t i = 0; i < nfragments; i++)
			argv[n++] = fragments[i];
		argv[n] = NULL;
		ret = spawn_run(argv,
				&(struct spawn_opts){ .cwd = src,
						      .log_path = log_path,
						      .timeout_s = CONFIG_TIMEOUT_S },
				&r);
		free(argv);
		if (ret) {
			lab_err("variant '%s': merge_config.sh failed on the fragments: %s",
				variant, spawn_tail(&r, 10));
			spawn_result_free(&r);
			ret = -1;
			goto out;
		}
		spawn_result_free(&r);
	}
	{
		const char *t[] = { "olddefconfig", NULL };

		if (make_in(src, outdir, t, log_path, CONFIG_TIMEOUT_S, &r)) {
			lab_err("variant '%s': 'make olddefconfig' failed: %s", variant,
				spawn_tail(&r, 10));
			spawn_result_free(&r);
			ret = -1;
			goto out;
		}
		spawn_result_free(&r);
	}
	ret = -1;
	text = read_file(cfg, NULL, CONFIG_MAX);
	if (!text)
		goto out;
	for (size_t i = 0; i < nfragments; i++) {
		char *frag = read_file(fragments[i], NULL, CONFIG_MAX);

		if (!frag)
			goto out;
		kconfig_check(text, frag, &dropped);
		free(frag);
	}
	if (dropped.n) {
		list = strlist_join(&dropped, ", ");
		lab_err("variant '%s': Kconfig dropped %zu option%s the fragments ask for "
			"(unmet dependencies): %s; enable what they depend on in a fragment "
			"('make menuconfig' and '/' shows the dependencies) or remove them",
			variant, dropped.n, dropped.n == 1 ? "" : "s", list);
		goto out;
	}
	ret = 0;
out:
	strlist_free(&dropped);
	free(list);
	free(text);
	free(cfg);
	free(merge);
	return ret;
}

struct build_progress {
	bool tty;
	unsigned long done, expected;
	double start, last;
	const char *variant;
};

static void on_build_line(const char *line, size_t len, void *arg)
{
	struct build_progress *bp = arg;
	double now, el;

	if (len < 5 || line[0] != ' ' || line[1] != ' ' ||
	    (strncmp(line + 2, "CC ", 3) && strncmp(line + 2, "AS ", 3)))
		return;
	bp->done++;
	if (!bp->tty)
		return;
	now = now_monotonic();
	if (now - bp->last < 0.5)
		return;
	bp->last = now;
	el = now - bp->start;
	if (bp->expected && bp->done < bp->expected)
		fprintf(stderr, "\r\033[K  %s: building: %lu/%lu objects, %.0f s, ETA %.0f s",
			bp->variant, bp->done, bp->expected, el,
			el / (double)bp->done * (double)(bp->expected - bp->done));
	else
		fprintf(stderr, "\r\033[K  %s: building: %lu objects, %.0f s", bp->variant,
			bp->done, el);
}

static unsigned long count_objects(const char *dir, int depth)
{
	unsigned long n = 0;
	struct dirent *e;
	DIR *d;

	if (depth > 12 || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (e->d_type == DT_DIR) {
			char *sub = xasprintf("%s/%s", dir, e->d_name);

			n += count_objects(sub, depth + 1);
			free(sub);
		} else if (l > 2 && !strcmp(e->d_name + l - 2, ".o")) {
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * make -j: the CPUs this process may run on (a Slurm job's, a taskset's),
 * not every CPU online
 */
static long make_jobs(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

int kbuild_make(const char *src, const char *builddir, const char *localversion,
		const char *log_path, const char *variant, double *elapsed_s, bool *fresh)
{
	char *o = xasprintf("O=%s", builddir), *cc = xasprintf("CC=%s", kbuild_cc());
	char *lv = xasprintf("LOCALVERSION=%s", localversion);
	char *jobs = xasprintf("-j%ld", make_jobs());
	char *est_path = xasprintf("%s.objects", builddir);
	const char *argv[] = { "make",
			       "-C",
			       src,
			       o,
			       cc,
			       lv,
			       jobs,
			       "KBUILD_BUILD_USER=mmlab",
			       "KBUILD_BUILD_HOST=mmlab",
			       NULL };
	struct build_progress bp = { .tty = isatty(2) && !lab_quiet,
				     .start = now_monotonic(),
				     .variant = variant };
	struct spawn_opts so = { .timeout_s = BUILD_TIMEOUT_S,
				 .log_path = log_path,
				 .on_line = on_build_line,
				 .arg = &bp };
	struct spawn_result r;
	char *est = path_exists(est_path) ? read_file(est_path, NULL, 64) : NULL;
	int ret;

	/* expected objects: the last full count for a fresh directory, else unknown */
	*fresh = count_objects(builddir, 0) == 0;
	if (est && *fresh)
		bp.expected = strtoul(est, NULL, 10);
	free(est);
	lab_info("variant '%s': make O=%s (log %s)", variant, builddir, log_path);
	ret = spawn_run(argv, &so, &r);
	if (bp.tty)
		fprintf(stderr, "\r\033[K");
	*elapsed_s = r.elapsed_s;
	if (ret) {
		char why[96];

		lab_err("variant '%s': the kernel build %s after %.0f s; last lines of the log:\n"
			"%s\nthe whole log: %s",
			variant, spawn_describe(&r, BUILD_TIMEOUT_S, why, sizeof(why)), r.elapsed_s,
			spawn_tail(&r, 25), log_path);
		ret = -1;
	} else {
		char num[32];
		unsigned long nobj = count_objects(builddir, 0);

		snprintf(num, sizeof(num), "%lu\n", nobj);
		write_file_atomic(est_path, num, strlen(num), 0644);
		lab_info("variant '%s': built in %.0f s (%lu objects compiled)", variant,
			 r.elapsed_s, bp.done);
	}
	spawn_result_free(&r);
	free(o);
	free(cc);
	free(lv);
	free(jobs);
	free(est_path);
	return ret;
}
