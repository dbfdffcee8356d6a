// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-kernel.c - "mmlab kernel build|fetch|list|show|gc": kernel variants built
 * from a git tree into the content-addressed cache, and distribution kernel
 * packages fetched and unpacked into it (docs/kernels.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "job/job.h"
#include "kernel/kcache.h"
#include "kernel/kernel.h"
#include "kernel/package.h"
#include "lib/parse-options.h"
#include "lib/pkgname.h"
#include "lib/util.h"
#include "store/store.h"

static const char *const kernel_synopsis[] = {
	"mmlab kernel build JOB [--json]",
	"mmlab kernel build --tree DIR --ref REF [--revert C]... [--cherry-pick C]...",
	"                   [--apply PATCH]... [--fragment FILE]... [--config-base B]",
	"                   [--name NAME] [--rebuild] [--json]",
	"mmlab kernel fetch PACKAGE[=VERSION]... [--json]",
	"mmlab kernel list [--json]",
	"mmlab kernel show KEY [--json]",
	"mmlab kernel gc [--dry-run] [--json]",
	NULL,
};

static const struct opt_usage kernel_usage = {
	.synopsis = kernel_synopsis,
	.text = "Build kernel variants from a git tree into the kernel cache ($MMLAB_CACHE/kernels):\n"
		"the ref, then reverts, cherry-picks and patches in that order, worked out in git's\n"
		"object database (a conflict changes no tree); a source tree built before with the\n"
		"same config is served without a checkout. Otherwise it is checked out in a\n"
		"lab-owned worktree; config = base (tinyconfig by default) + fragments +\n"
		"olddefconfig; make O=... with ccache. The cache key is the source's git tree id\n"
		"+ the .config's hash + the compiler version: an identical key is served without\n"
		"building.\n"
		"\n"
		"  build JOB        every variant of the job that has 'ref:'\n"
		"  build --tree ... one variant from the command line (options repeat, in order)\n"
		"  fetch PKG[=VER]  fetch Debian kernel packages with apt into the cache, unpacked\n"
		"                   (nothing is installed); a run fetches what it needs itself\n"
		"  list             the cached kernels, then the cached packages and their runs\n"
		"  show KEY         one cached kernel's metadata (KEY may be a unique prefix)\n"
		"  gc               remove cached kernels and packages no stored run uses\n"
		"                   (--results DIR)",
	.footer =
		"Exit status: 0 done, 1 a build failed, 2 bad usage or input. See docs/kernels.md.",
};

/* what the options set; the variant of "build --tree ..." */
struct kernel_opts {
	bool json, dry_run, rebuild;
	const char *ref, *name;
	char *tree, *config_base;
	struct strlist revert, cherry_pick, apply, fragments;
};

static json_t *result_json(const char *variant, const struct kernel_info *ki)
{
	json_t *o = kernel_info_json(ki);

	json_object_set_new(o, "variant", json_string(variant));
	json_object_set_new(o, "ok", json_boolean(!ki->build_failed));
	return o;
}

static void print_result(const char *variant, const struct kernel_info *ki)
{
	if (ki->build_failed)
		printf("%-16s FAILED  log %s\n", variant, ki->build_log ? ki->build_log : "-");
	else
		printf("%-16s %s  %-5s %s  %s\n", variant, ki->cache_key,
		       ki->cache_hit ? "hit" : "built", ki->release, ki->path);
}

static int build_job(const char *path, bool json)
{
	struct job *job;
	json_t *out = json_array();
	int failed = 0, n = 0;

	if (job_load(path, &job))
		return EXIT_USAGE;
	for (size_t i = 0; i < job->nvariants; i++) {
		struct kernel_info ki;

		if (job->variants[i].kernel_kind != KERNEL_SOURCE)
			continue;
		n++;
		if (kernel_resolve_job(job, i, gopts.cache_dir, &ki) && !ki.build_failed)
			ki.build_failed = true;
		failed += ki.build_failed;
		if (json)
			json_array_append_new(out, result_json(job->variants[i].name, &ki));
		else
			print_result(job->variants[i].name, &ki);
		kernel_info_release(&ki);
	}
	if (!n)
		lab_warn("%s: no variant has 'ref:'; nothing to build", path);
	if (json)
		print_json(out);
	json_decref(out);
	job_free(job);
	return failed ? EXIT_RUN_FAILED : 0;
}

static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	if (!r)
		lab_err("cannot find %s; give an existing path", p);
	return r;
}

/* --tree: an existing directory, made absolute */
static int path_cb(const struct opt *o, const char *arg)
{
	char **p = o->value;

	free(*p);
	*p = abs_path(arg);
	return *p ? 0 : -1;
}

/* --apply, --fragment: each an existing file, made absolute, in order */
static int path_list_cb(const struct opt *o, const char *arg)
{
	char *p = abs_path(arg);

	if (!p)
		return -1;
	strlist_push(o->value, p);
	free(p);
	return 0;
}

/* --config-base: a named base, or the path of a .config */
static int config_base_cb(const struct opt *o, const char *arg)
{
	char **p = o->value;

	if (strcmp(arg, "tinyconfig") && strcmp(arg, "defconfig") && strcmp(arg, "distro"))
		return path_cb(o, arg);
	free(*p);
	*p = xstrdup(arg);
	return 0;
}

static void kernel_opts_release(struct kernel_opts *ko)
{
	free(ko->tree);
	free(ko->config_base);
	strlist_free(&ko->revert);
	strlist_free(&ko->cherry_pick);
	strlist_free(&ko->apply);
	strlist_free(&ko->fragments);
}

/* any option that describes a variant on the command line */
static bool variant_given(const struct kernel_opts *ko)
{
	return ko->tree || ko->ref || ko->revert.n || ko->cherry_pick.n || ko->apply.n ||
	       ko->fragments.n || ko->config_base || ko->name || ko->rebuild;
}

/* "build --tree DIR --ref REF ...": one variant from the options */
static int build_args(struct kernel_opts *ko)
{
	struct job_variant v = { .kernel_kind = KERNEL_SOURCE };
	struct job job = { 0 };
	const char *name = ko->name ? ko->name : "cli";
	struct kernel_info ki;
	int ret;

	v.name = (char *)name;
	v.ref = (char *)ko->ref;
	v.revert = ko->revert;
	v.cherry_pick = ko->cherry_pick;
	v.apply = ko->apply;
	job.kernels.tree = ko->tree;
	job.kernels.config_base = ko->config_base;
	job.kernels.fragments = ko->fragments;
	job.variants = &v;
	job.nvariants = 1;
	ret = kernel_resolve_job_opt(&job, 0, gopts.cache_dir, ko->rebuild, &ki) ? EXIT_RUN_FAILED :
										   0;
	if (ko->json) {
		json_t *o = result_json(name, &ki);

		print_json(o);
		json_decref(o);
	} else {
		print_result(name, &ki);
	}
	kernel_info_release(&ki);
	return ret;
}

static int do_build(int argc, char **argv, struct kernel_opts *ko)
{
	if (argc == 1 && !variant_given(ko))
		return build_job(argv[0], ko->json);
	if (argc == 1) {
		lab_err("kernel build JOB: only --json goes with a job file; --tree, --ref and "
			"the other options build one variant without one");
		return EXIT_USAGE;
	}
	if (argc || !ko->tree || !ko->ref) {
		lab_err("kernel build: give a job file, or --tree DIR and --ref REF (and no other "
			"arguments); see 'mmlab kernel --help'");
		return EXIT_USAGE;
	}
	return build_args(ko);
}

static void print_meta(json_t *m)
{
	const char *k;
	json_t *v;

	json_object_foreach(m, k, v) {
		char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		printf("%-12s %s\n", k, s ? s : json_string_value(v));
		free(s);
	}
}

static void print_packages(const struct pkg_listed *v, size_t n)
{
	char sz[32];

	if (!n)
		return;
	printf("\npackages:\n");
	for (size_t i = 0; i < n; i++) {
		const struct pkg_meta *m = &v[i].e.m;
		char *r = json_array_size(v[i].runs) ? json_dumps(v[i].runs, JSON_COMPACT) : NULL;

		printf("%.12s  %-32s  %-22s  %8s  %s\n", m->sha256 ?: "", m->package ?: "",
		       m->version ?: "", fmt_size(v[i].size_bytes, sz, sizeof(sz)),
		       r ? r : "no runs");
		free(r);
	}
}

static int do_list(struct kernel_opts *ko)
{
	struct kernel_uses uses;
	struct pkg_listed *pk;
	size_t npk, i;
	json_t *out, *m;

	if (store_kernels_used(gopts.results_dir, &uses))
		return EXIT_USAGE;
	pkg_list_entries(gopts.cache_dir, &uses, &pk, &npk);
	kernel_uses_free(&uses);

	if (ko->json) {
		/* the built kernels as before, then each package ("source": "package") */
		json_t *pkj = pkg_listed_json(pk, npk);

		out = kcache_list(gopts.cache_dir);
		json_array_foreach(pkj, i, m) {
			json_object_set_new(m, "source", json_string("package"));
			json_array_append(out, m);
		}
		print_json(out);
		json_decref(out);
		json_decref(pkj);
	} else {
		struct kcache_meta *v;
		size_t n;

		kcache_list_meta(gopts.cache_dir, &v, &n);
		if (!n && !npk)
			printf("no kernels in %s/kernels\n", gopts.cache_dir);
		for (i = 0; i < n; i++)
			printf("%s  %-20s  %-12.12s  %s  %s\n", v[i].key, v[i].built ?: "",
			       v[i].base_commit ?: "", v[i].variant ?: "", v[i].release ?: "");
		kcache_metas_free(v, n);
		print_packages(pk, npk);
	}
	pkg_listed_free(pk, npk);
	return 0;
}

/* "kernel fetch NAME[=VERSION]...": every one, exit 2 when one is refused */
static int do_fetch(int argc, char **argv, struct kernel_opts *ko)
{
	json_t *all = json_array();
	int ret = 0;

	for (int i = 0; i < argc; i++) {
		char *name = xstrdup(argv[i]), *ver = strchr(name, '='), *where;
		struct pkg_entry e;

		if (ver)
			*ver++ = '\0';
		where = xasprintf("kernel fetch %s", argv[i]);
		if (!pkg_name_ok(name) || (ver && !pkg_version_ok(ver))) {
			lab_err("%s: expected PACKAGE or PACKAGE=VERSION, such as "
				"linux-image-6.1.0-47-amd64=6.1.170-3",
				where);
			ret = EXIT_USAGE;
		} else if (pkg_get_apt(gopts.cache_dir, name, ver, where, &e)) {
			ret = EXIT_USAGE;
		} else {
			json_object_set_new(e.meta, "cache_hit", json_boolean(e.hit));
			json_object_set_new(e.meta, "dir", json_string(e.dir));
			json_array_append(all, e.meta);
			if (!ko->json)
				printf("%s %s %.12s %s %s\n", e.m.package, e.m.version, e.sha256,
				       e.hit ? "cached" : "fetched", e.dir);
			pkg_entry_release(&e);
		}
		free(where);
		free(name);
	}
	if (ko->json)
		print_json(all);
	json_decref(all);
	return ret;
}

static int do_show(const char *key, struct kernel_opts *ko)
{
	json_t *out = kcache_show(gopts.cache_dir, key);

	if (!out)
		return EXIT_USAGE;
	if (ko->json)
		print_json(out);
	else
		print_meta(out);
	json_decref(out);
	return 0;
}

static int do_gc(struct kernel_opts *ko)
{
	struct kernel_uses uses;
	json_t *out, *pk, *k;
	size_t i;

	/* a store that cannot be read keeps every kernel: none is removed */
	if (store_kernels_used(gopts.results_dir, &uses))
		return EXIT_USAGE;
	out = kcache_gc(gopts.cache_dir, &uses, ko->dry_run);
	pk = pkg_gc(gopts.cache_dir, &uses, ko->dry_run);
	kernel_uses_free(&uses);

	if (ko->json) {
		json_t *o = json_pack("{s:O, s:O, s:b}", "removed", out, "removed_packages", pk,
				      "dry_run", ko->dry_run);

		print_json(o);
		json_decref(o);
	} else {
		json_array_foreach(out, i, k)
			printf("%s %s\n", ko->dry_run ? "would remove" : "removed",
			       json_string_value(k));
		json_array_foreach(pk, i, k)
			printf("%s package %s\n", ko->dry_run ? "would remove" : "removed",
			       json_string_value(k));
		printf("%zu kernel%s and %zu package%s %s\n", json_array_size(out),
		       json_array_size(out) == 1 ? "" : "s", json_array_size(pk),
		       json_array_size(pk) == 1 ? "" : "s", ko->dry_run ? "unused" : "removed");
	}
	json_decref(pk);
	json_decref(out);
	return 0;
}

#define KERNEL_NOPTS 12

/* every option of "mmlab kernel", in the order of the help */
static void kernel_all_opts(struct kernel_opts *ko, struct opt all[KERNEL_NOPTS])
{
	const struct opt opts[KERNEL_NOPTS] = {
		OPT_CALLBACK(0, "tree", &ko->tree, "DIR", "build: the git kernel tree", path_cb),
		OPT_STRING(0, "ref", &ko->ref, "REF", "build: the commit-ish to start from"),
		OPT_STRLIST(0, "revert", &ko->revert, "C", "build: revert commit C"),
		OPT_STRLIST(0, "cherry-pick", &ko->cherry_pick, "C", "build: cherry-pick commit C"),
		OPT_CALLBACK(0, "apply", &ko->apply, "PATCH",
			     "build: apply a patch file (mbox or diff)", path_list_cb),
		OPT_CALLBACK(0, "fragment", &ko->fragments, "FILE",
			     "build: merge a config fragment", path_list_cb),
		OPT_CALLBACK(0, "config-base", &ko->config_base, "B",
			     "build: tinyconfig (default), defconfig, distro or a .config",
			     config_base_cb),
		OPT_STRING(0, "name", &ko->name, "NAME", "build: the variant's name (default cli)"),
		OPT_BOOL(0, "rebuild", &ko->rebuild,
			 "run make even when the kernel is cached (replaces the entry)"),
		OPT_BOOL(0, "dry-run", &ko->dry_run, "gc: list what would be removed"),
		OPT_BOOL(0, "json", &ko->json, "machine-readable output"),
		OPT_END(),
	};

	memcpy(all, opts, sizeof(opts));
}

/* the options of one subcommand: those of all named in keep, in order */
static void kernel_sub_opts(const struct opt *all, const char *const *keep, struct opt *out)
{
	size_t n = 0;

	for (const struct opt *o = all; o->type != OPT_T_END; o++)
		for (size_t k = 0; keep[k]; k++)
			if (!strcmp(o->long_name, keep[k]))
				out[n++] = *o;
	out[n] = (struct opt)OPT_END();
}

static const char *const build_opts[] = {
	"tree",	       "ref",  "revert",  "cherry-pick", "apply", "fragment",
	"config-base", "name", "rebuild", "json",	 NULL,
};
static const char *const json_opts[] = { "json", NULL };
static const char *const gc_opts[] = { "dry-run", "json", NULL };

static const struct kernel_sub {
	const char *name;
	const char *const *opts; /* the options it takes */
	int max_args; /* operands */
	const char *need; /* the message when an operand is missing */
} kernel_subs[] = {
	{ "build", build_opts, 1, NULL },
	{ "fetch", json_opts, 64,
	  "kernel fetch: give a package, such as linux-image-6.1.0-47-amd64 (or NAME=VERSION)" },
	{ "list", json_opts, 0, NULL },
	{ "show", json_opts, 1,
	  "kernel show: give a cache key (or a unique prefix); "
	  "'mmlab kernel list' shows them" },
	{ "gc", gc_opts, 0, NULL },
};

/* the subcommand's options and operands checked; -1 to go on, else the exit status */
static int parse_sub(int argc, char **argv, const struct kernel_sub *sub, struct kernel_opts *ko,
		     int *nargs)
{
	struct opt all[KERNEL_NOPTS], opts[KERNEL_NOPTS];
	static char name[32];

	kernel_all_opts(ko, all);
	kernel_sub_opts(all, sub->opts, opts);
	snprintf(name, sizeof(name), "kernel %s", sub->name);
	argv[0] = name;
	*nargs = parse_options(argc, argv, opts, &kernel_usage, 0);
	if (*nargs < 0)
		return *nargs == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (*nargs > sub->max_args) {
		lab_err("kernel %s: unexpected argument '%s'; see 'mmlab kernel --help'", sub->name,
			argv[sub->max_args]);
		return EXIT_USAGE;
	}
	if (!*nargs && sub->need) {
		lab_err("%s", sub->need);
		return EXIT_USAGE;
	}
	return -1;
}

/* the subcommand, or -1 after its usage or message with *ret the exit status */
static int find_sub(int *argc, char **argv, int *ret)
{
	struct kernel_opts ko = { 0 };
	struct opt all[KERNEL_NOPTS], opts[ARRAY_SIZE(kernel_subs) + 1];
	int sub = -1, n;

	for (size_t i = 0; i < ARRAY_SIZE(kernel_subs); i++)
		opts[i] = (struct opt)OPT_SUBCOMMAND(kernel_subs[i].name, &sub, (int)i);
	opts[ARRAY_SIZE(kernel_subs)] = (struct opt)OPT_END();
	if (*argc > 1 && !strcmp(argv[1], "help"))
		n = PARSE_OPT_HELP;
	else
		n = parse_options(*argc, argv, opts, NULL, PARSE_OPT_NO_HELP_PRINT);
	if (n > 0) {
		*argc = n;
		return sub;
	}
	if (n == PARSE_OPT_HELP || !n) {
		kernel_all_opts(&ko, all);
		usage_with_options(n ? stdout : stderr, all, &kernel_usage);
	}
	*ret = n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	return -1;
}

int cmd_kernel(int argc, char **argv)
{
	const struct kernel_sub *sub;
	struct kernel_opts ko = { 0 };
	int ret = 0, n, at = find_sub(&argc, argv, &ret);

	if (at < 0)
		return ret;
	sub = &kernel_subs[at];
	ret = parse_sub(argc, argv, sub, &ko, &n);
	if (ret < 0) {
		if (!strcmp(sub->name, "build"))
			ret = do_build(n, argv, &ko);
		else if (!strcmp(sub->name, "fetch"))
			ret = do_fetch(n, argv, &ko);
		else if (!strcmp(sub->name, "list"))
			ret = do_list(&ko);
		else if (!strcmp(sub->name, "show"))
			ret = do_show(argv[0], &ko);
		else
			ret = do_gc(&ko);
	}
	kernel_opts_release(&ko);
	return ret;
}
