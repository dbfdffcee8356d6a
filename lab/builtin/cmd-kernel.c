// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-kernel.c - "mmlab kernel build|list|show|gc": kernel variants built
 * from a git tree into the content-addressed cache (docs/kernels.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "job/job.h"
#include "kernel/kcache.h"
#include "kernel/kernel.h"
#include "lib/util.h"

static const char usage[] =
	"usage: mmlab kernel build JOB [--json]\n"
	"       mmlab kernel build --tree DIR --ref REF [--revert C]... [--cherry-pick C]...\n"
	"                          [--apply PATCH]... [--fragment FILE]... [--config-base B]\n"
	"                          [--name NAME] [--rebuild] [--json]\n"
	"       mmlab kernel list [--json]\n"
	"       mmlab kernel show KEY [--json]\n"
	"       mmlab kernel gc [--dry-run] [--json]\n"
	"\n"
	"Build kernel variants from a git tree into the kernel cache ($MMLAB_CACHE/kernels):\n"
	"the ref checked out in a lab-owned worktree, then reverts, cherry-picks and patches\n"
	"in that order; config = base (tinyconfig by default) + fragments + olddefconfig;\n"
	"make O=... with ccache. The cache key is the source's git tree id + the .config's\n"
	"hash + the compiler version: an identical key is served without building.\n"
	"\n"
	"  build JOB        every variant of the job that has 'ref:'\n"
	"  build --tree ... one variant from the command line (options repeat, in order)\n"
	"  list             the cached kernels\n"
	"  show KEY         one cached kernel's metadata (KEY may be a unique prefix)\n"
	"  gc               remove cached kernels no stored run uses (--results DIR)\n"
	"  --rebuild        run make even when the kernel is cached (replaces the entry)\n"
	"  --json           machine-readable output\n"
	"\n"
	"Exit status: 0 done, 1 a build failed, 2 bad usage or input. See docs/kernels.md.\n";

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
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
	}
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

static int build_args(int argc, char **argv, bool json)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "ref", required_argument, NULL, 'r' },
		{ "revert", required_argument, NULL, 'R' },
		{ "cherry-pick", required_argument, NULL, 'C' },
		{ "apply", required_argument, NULL, 'A' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "config-base", required_argument, NULL, 'B' },
		{ "name", required_argument, NULL, 'n' },
		{ "rebuild", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job job = { 0 };
	struct job_variant v = { .kernel_kind = KERNEL_SOURCE };
	struct kernel_info ki;
	char *name = xstrdup("cli"), *p;
	int c, ret = EXIT_USAGE;
	bool rebuild = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			free(job.kernels.tree);
			job.kernels.tree = abs_path(optarg);
			if (!job.kernels.tree)
				goto out;
			break;
		case 'r':
			free(v.ref);
			v.ref = xstrdup(optarg);
			break;
		case 'R':
			strlist_push(&v.revert, optarg);
			break;
		case 'C':
			strlist_push(&v.cherry_pick, optarg);
			break;
		case 'A':
		case 'F':
			p = abs_path(optarg);
			if (!p)
				goto out;
			strlist_push(c == 'A' ? &v.apply : &job.kernels.fragments, p);
			free(p);
			break;
		case 'B':
			free(job.kernels.config_base);
			if (!strcmp(optarg, "tinyconfig") || !strcmp(optarg, "defconfig") ||
			    !strcmp(optarg, "distro"))
				job.kernels.config_base = xstrdup(optarg);
			else if (!(job.kernels.config_base = abs_path(optarg)))
				goto out;
			break;
		case 'n':
			free(name);
			name = xstrdup(optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			rebuild = true;
			break;
		case 'h':
			fputs(usage, stdout);
			ret = 0;
			goto out;
		default:
			fputs(usage, stderr);
			goto out;
		}
	}
	if (!job.kernels.tree || !v.ref || optind < argc) {
		lab_err("kernel build: give a job file, or --tree DIR and --ref REF (and no other "
			"arguments); see 'mmlab kernel --help'");
		goto out;
	}
	v.name = name;
	job.variants = &v;
	job.nvariants = 1;
	ret = kernel_resolve_job_opt(&job, 0, gopts.cache_dir, rebuild, &ki) ?
	      EXIT_RUN_FAILED : 0;
	if (json) {
		json_t *o = result_json(name, &ki);

		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		print_result(name, &ki);
	}
	kernel_info_release(&ki);
out:
	free(name);
	free(v.ref);
	strlist_free(&v.revert);
	strlist_free(&v.cherry_pick);
	strlist_free(&v.apply);
	free(job.kernels.tree);
	free(job.kernels.config_base);
	strlist_free(&job.kernels.fragments);
	return ret;
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

int cmd_kernel(int argc, char **argv)
{
	bool json = false, dry = false;
	const char *sub = argc > 1 ? argv[1] : NULL;
	json_t *out;
	size_t i;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(usage, sub ? stdout : stderr);
		return sub ? 0 : EXIT_USAGE;
	}
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
	}
	if (!strcmp(sub, "build")) {
		if (argc >= 3 && argv[2][0] != '-') {
			for (int a = 3; a < argc; a++) {
				if (!strcmp(argv[a], "--json")) {
					json = true;
				} else {
					lab_err("kernel build JOB: unexpected argument '%s'; only "
						"--json may follow the job", argv[a]);
					return EXIT_USAGE;
				}
			}
			return build_job(argv[2], json);
		}
		return build_args(argc - 1, argv + 1, false);
	}
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--json"))
			json = true;
		else if (!strcmp(argv[a], "--dry-run") && !strcmp(sub, "gc"))
			dry = true;
		else if (!strcmp(sub, "show") && a == 2)
			continue;
		else {
			lab_err("kernel %s: unexpected argument '%s'; see 'mmlab kernel --help'",
				sub, argv[a]);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(sub, "list")) {
		out = kcache_list(gopts.cache_dir);
		if (json) {
			json_dumpf(out, stdout, JSON_INDENT(2));
			putchar('\n');
		} else {
			json_t *m;

			if (!json_array_size(out))
				printf("no kernels in %s/kernels\n", gopts.cache_dir);
			json_array_foreach(out, i, m)
				printf("%s  %-20s  %-12.12s  %s  %s\n",
				       json_string_value(json_object_get(m, "key")),
				       json_string_value(json_object_get(m, "built")) ?: "",
				       json_string_value(json_object_get(m, "base_commit")) ?: "",
				       json_string_value(json_object_get(m, "variant")) ?: "",
				       json_string_value(json_object_get(m, "release")) ?: "");
		}
		json_decref(out);
		return 0;
	}
	if (!strcmp(sub, "show")) {
		if (argc < 3 || argv[2][0] == '-') {
			lab_err("kernel show: give a cache key (or a unique prefix); "
				"'mmlab kernel list' shows them");
			return EXIT_USAGE;
		}
		out = kcache_show(gopts.cache_dir, argv[2]);
		if (!out)
			return EXIT_USAGE;
		if (json) {
			json_dumpf(out, stdout, JSON_INDENT(2));
			putchar('\n');
		} else {
			print_meta(out);
		}
		json_decref(out);
		return 0;
	}
	if (!strcmp(sub, "gc")) {
		json_t *k;

		out = kcache_gc(gopts.cache_dir, gopts.results_dir, dry);
		if (json) {
			json_t *o = json_pack("{s:O, s:b}", "removed", out, "dry_run", dry);

			json_dumpf(o, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(o);
		} else {
			json_array_foreach(out, i, k)
				printf("%s %s\n", dry ? "would remove" : "removed",
				       json_string_value(k));
			printf("%zu kernel%s %s\n", json_array_size(out),
			       json_array_size(out) == 1 ? "" : "s", dry ? "unused" : "removed");
		}
		json_decref(out);
		return 0;
	}
	lab_err("kernel: unknown subcommand '%s'; expected build, list, show or gc", sub);
	return EXIT_USAGE;
}
