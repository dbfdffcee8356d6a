// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-image.c - "mmlab image build|list|gc|initrd": the guest images
 * (lab/image/, recipes in images/, docs/image.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "image/cache.h"
#include "image/diskimage.h"
#include "image/image.h"
#include "image/initramfs.h"
#include "kernel/kernel.h"
#include "lib/parse-options.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "run/probe.h"
#include "vm/vm.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mmlab image build [--recipe NAME|FILE] [--kind initramfs|debootstrap]\n"
		   "                         [--suite SUITE] [--packages A,B] [--size SIZE]\n"
		   "                         [--dry-run] [--json]\n"
		   "       mmlab image list [--json]\n"
		   "       mmlab image gc [--all] [--json]\n"
		   "       mmlab image initrd [--plan KEY=VALUE]... -o FILE\n"
		   "\n"
		   "build  make the default guest image, an initramfs holding the guest agent\n"
		   "       (as /init) and the workload programs, unless the cache already\n"
		   "       holds one with the same contents; prints its path and hash\n"
		   "       --kind debootstrap: a Debian disk image (docs/image.md):\n"
		   "       debootstrap --variant=minbase SUITE (default bookworm) plus PACKAGES,\n"
		   "       the agent and workloads, a SIZE (default 4G) qcow2 made with\n"
		   "       libguestfs; minutes the first time, then cached by its recipe\n"
		   "       --recipe: the image a recipe file describes (images/NAME.yaml)\n"
		   "list   the cached images\n"
		   "gc     remove leftovers of interrupted builds and the images made from\n"
		   "       other guest programs than the current ones; --all removes every image\n"
		   "initrd write the image plus a guest plan (docs/workloads.md lists the\n"
		   "       keys, e.g. --plan workload=noop --plan iterations=1) to FILE, to boot\n"
		   "       by hand: qemu-system-x86_64 -kernel K -initrd FILE -append\n"
		   "       'console=ttyS0 rdinit=/init' -serial stdio -serial file:data.bin\n"
		   "\n"
		   "Images live in $MMLAB_CACHE/images (default ~/.cache/mmlab/images). The\n"
		   "guest programs come from build/guest next to ./mmlab, or $MMLAB_GUEST_DIR;\n"
		   "the recipes from images/ next to ./mmlab, or $MMLAB_IMAGES_DIR.\n");
}

/*
 * libguestfs boots an appliance with the host's kernel, so the lab's own
 * KVM-or-TCG verdict (accel.json, or a probe boot) applies to it too:
 * whether it runs under TCG.
 */
static bool image_guestfs_tcg(void)
{
	struct vm_host *h = NULL;
	struct accel_choice ac;
	struct image img = { 0 };
	char *kernel = kernel_find_distro();
	bool q = lab_quiet;
	int ok = 0;

	lab_quiet = true;
	if (kernel && !image_initramfs(gopts.cache_dir, &img)) {
		h = vm_connect(gopts.connect_uri);
		ok = h && !probe_accel(h, ACCEL_AUTO, gopts.cache_dir, kernel, &img, false, &ac);
	}
	lab_quiet = q;
	if (h)
		vm_disconnect(h);
	image_release(&img);
	free(kernel);
	if (!ok) {
		lab_warn("cannot tell whether KVM works here (see 'mmlab doctor'); "
			 "libguestfs will use TCG");
		return true;
	}
	lab_info("libguestfs appliance under %s (%s)", dom_accel_name(ac.accel), ac.reason);
	return ac.accel == DOM_ACCEL_TCG;
}

/* ---- build ---- */

static const char *const build_synopsis[] = {
	"mmlab image build [--recipe NAME|FILE] [--kind initramfs|debootstrap]",
	"                  [--suite SUITE] [--packages A,B] [--size SIZE]",
	"                  [--dry-run] [--json]",
	NULL,
};

static const struct opt_usage build_usage = {
	.synopsis = build_synopsis,
	.text = "Make the guest image a recipe describes, unless the cache already holds\n"
		"one with the same contents, and print its path and hash. The default is\n"
		"the initramfs (images/initramfs.yaml): the guest agent as /init and the\n"
		"workload programs. --kind debootstrap is a Debian disk image\n"
		"(images/debootstrap.yaml, docs/image.md): debootstrap --variant=minbase\n"
		"SUITE (default bookworm) plus PACKAGES, the agent and workloads, a SIZE\n"
		"(default 4G) qcow2 made with libguestfs; minutes the first time, then\n"
		"cached by its recipe.",
	.footer = "Exit status: 0 ok, 1 the build failed, 2 bad usage or a bad recipe.",
};

static int kind_cb(const struct opt *opt, const char *arg)
{
	int *k = opt->value;

	if (!strcmp(arg, "initramfs") || !strcmp(arg, "debootstrap")) {
		*k = !strcmp(arg, "debootstrap") ? RECIPE_DEBOOTSTRAP : RECIPE_INITRAMFS;
		return 0;
	}
	lab_err("--kind %s: unknown image kind; expected initramfs or debootstrap", arg);
	return -1;
}

static int suite_cb(const struct opt *opt, const char *arg)
{
	if (!*arg || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(arg)) {
		lab_err("--suite '%s': expected a Debian suite name such as bookworm", arg);
		return -1;
	}
	*(const char **)opt->value = arg;
	return 0;
}

static int packages_cb(const struct opt *opt, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789+-.") != strlen(t)) {
			lab_err("--packages: '%s' is not a Debian package name", t);
			free(copy);
			return -1;
		}
		strlist_push(opt->value, t);
	}
	free(copy);
	return 0;
}

static int size_cb(const struct opt *opt, const char *arg)
{
	uint64_t *b = opt->value;

	if (parse_size(arg, b) || *b < (512ULL << 20) || *b % (1ULL << 20)) {
		lab_err("--size %s: expected a whole number of MiB of at least 512M, e.g. 4G", arg);
		return -1;
	}
	return 0;
}

static void print_plan(const struct image_recipe *r, const struct image_built *b)
{
	char sz[32], *pk;

	printf("recipe    %s\nkind      %s\nimage     %s (%s)\nhash      %s\n", r->path,
	       image_recipe_kind_name(r->kind), b->path, b->cached ? "cached" : "not built",
	       b->hash);
	if (r->kind != RECIPE_DEBOOTSTRAP)
		return;
	fmt_size(r->size_bytes, sz, sizeof(sz));
	pk = strlist_join(&r->packages, ",");
	printf("suite     %s\nvariant   %s\npackages  %s\nsize      %s\nmirror    %s\n", r->suite,
	       r->variant, *pk ? pk : "(none)", sz,
	       r->mirror ? r->mirror : "(the environment's or the host's)");
	free(pk);
}

static json_t *plan_json(const struct image_recipe *r, const struct image_built *b)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "kind",
			      image_recipe_kind_name(r->kind), "recipe", r->path, "name", r->name,
			      "path", b->path, "hash", b->hash, "cached", b->cached);
	json_t *pk = json_array();

	if (r->kind != RECIPE_DEBOOTSTRAP) {
		json_decref(pk);
		return j;
	}
	for (size_t i = 0; i < r->packages.n; i++)
		json_array_append_new(pk, json_string(r->packages.v[i]));
	json_object_update_new(j, json_pack("{s:s, s:s, s:o, s:I, s:s?}", "suite", r->suite,
					    "variant", r->variant, "packages", pk, "size",
					    (json_int_t)r->size_bytes, "mirror", r->mirror));
	return j;
}

static void print_built(const struct image_recipe *r, const struct image_built *b, bool json)
{
	json_t *j;

	if (!json) {
		printf("%s %s (%s)\n", b->path, b->hash, b->built ? "built" : "cached");
		return;
	}
	j = json_pack("{s:s, s:s, s:s, s:b, s:s}", "kind", image_recipe_kind_name(r->kind), "path",
		      b->path, "hash", b->hash, "built", b->built, "recipe", r->path);
	print_json(j);
	json_decref(j);
}

static int image_build(int argc, char **argv)
{
	struct strlist pk = { 0 };
	struct image_request rq = { .kind = -1, .packages = &pk };
	struct image_recipe r;
	struct image_built b;
	bool dry = false, json = false, tcg = false;
	int ret;
	struct opt opts[] = {
		OPT_STRING(0, "recipe", &rq.recipe, "NAME|FILE",
			   "the recipe: images/NAME.yaml, or a .yaml file\n"
			   "(default: the kind's, images/initramfs.yaml)"),
		OPT_CALLBACK(0, "kind", &rq.kind, "initramfs|debootstrap",
			     "the image kind (default initramfs, or the recipe's)", kind_cb),
		OPT_CALLBACK(0, "suite", &rq.suite, "SUITE",
			     "debootstrap: the Debian suite instead of the recipe's", suite_cb),
		OPT_CALLBACK(0, "packages", &pk, "A,B",
			     "debootstrap: more packages (added to the recipe's)", packages_cb),
		OPT_CALLBACK(0, "size", &rq.size_bytes, "SIZE",
			     "debootstrap: the disk size instead of the recipe's", size_cb),
		OPT_BOOL(0, "dry-run", &dry,
			 "build nothing: print the resolved recipe, the image's\n"
			 "hash and path, and whether it is cached"),
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_END(),
	};
	int argn = parse_options(argc, argv, opts, &build_usage, 0);

	if (argn < 0 || argn) {
		if (argn > 0)
			lab_err("image build takes no operands, not '%s'", argv[0]);
		strlist_free(&pk);
		return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	}
	ret = image_resolve(&rq, &r);
	strlist_free(&pk);
	if (ret)
		return EXIT_USAGE;
	if (!dry && r.kind == RECIPE_DEBOOTSTRAP)
		tcg = image_guestfs_tcg();
	ret = image_make(gopts.cache_dir, &r, dry, tcg, &b) ? EXIT_RUN_FAILED : 0;
	if (!ret && dry && json) {
		json_t *plan = plan_json(&r, &b);

		print_json(plan);
		json_decref(plan);
	} else if (!ret && dry)
		print_plan(&r, &b);
	else if (!ret)
		print_built(&r, &b, json);
	image_built_release(&b);
	image_recipe_release(&r);
	return ret;
}

/* ---- list, gc ---- */

static int no_operands(int argn, char **argv, const char *sub)
{
	if (argn > 0)
		lab_err("image %s takes no operands, not '%s'", sub, argv[0]);
	return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
}

static int image_list_cmd(int argc, char **argv)
{
	static const char *const synopsis[] = { "mmlab image list [--json]", NULL };
	static const struct opt_usage u = {
		.synopsis = synopsis,
		.text = "The cached images: kind, hash, size in bytes, creation time, path.",
	};
	bool json = false;
	struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_END(),
	};
	int argn = parse_options(argc, argv, opts, &u, 0);
	struct cached_image_list l;

	if (argn)
		return no_operands(argn, argv, "list");
	image_cache_scan(gopts.cache_dir, &l);
	if (json) {
		json_t *j = cached_image_list_json(&l);

		print_json(j);
		json_decref(j);
	} else {
		for (size_t i = 0; i < l.n; i++)
			printf("%-10s %-16s %10lld  %s  %s\n", l.v[i].kind, l.v[i].hash,
			       l.v[i].size, l.v[i].created, l.v[i].path);
	}
	cached_image_list_free(&l);
	return 0;
}

static int image_gc(int argc, char **argv)
{
	static const char *const synopsis[] = { "mmlab image gc [--all] [--json]", NULL };
	static const struct opt_usage u = {
		.synopsis = synopsis,
		.text = "Remove leftovers of interrupted builds and the images made from other\n"
			"guest programs than the current ones.",
	};
	bool all = false, json = false;
	struct opt opts[] = {
		OPT_BOOL(0, "all", &all, "remove every image"),
		OPT_BOOL(0, "json", &json, "print the removed paths as JSON"),
		OPT_END(),
	};
	int argn = parse_options(argc, argv, opts, &u, 0);
	json_t *removed, *x;
	size_t i;

	if (argn)
		return no_operands(argn, argv, "gc");
	removed = image_cache_gc(gopts.cache_dir, all);
	if (!removed)
		return EXIT_RUN_FAILED;
	if (json) {
		print_json(removed);
		json_decref(removed);
		return 0;
	}
	json_array_foreach(removed, i, x)
		printf("removed %s\n", json_string_value(x));
	json_decref(removed);
	return 0;
}

/* ---- initrd ---- */

static int plan_cb(const struct opt *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *key;

	if (!eq || eq == arg || strchr(arg, '\n')) {
		lab_err("--plan wants KEY=VALUE, not '%s'", arg);
		return -1;
	}
	key = xstrndup(arg, (size_t)(eq - arg));
	kvlist_set(opt->value, key, eq + 1);
	free(key);
	return 0;
}

static int image_initrd(int argc, char **argv)
{
	static const char *const synopsis[] = {
		"mmlab image initrd [--plan KEY=VALUE]... -o FILE",
		NULL,
	};
	static const struct opt_usage u = {
		.synopsis = synopsis,
		.text = "Write the image plus a guest plan (docs/workloads.md lists the keys, e.g.\n"
			"--plan workload=noop --plan iterations=1) to FILE, to boot by hand:\n"
			"qemu-system-x86_64 -kernel K -initrd FILE -append 'console=ttyS0\n"
			"rdinit=/init' -serial stdio -serial file:data.bin",
	};
	struct kvlist plan = { 0 };
	const char *out = NULL;
	struct image img;
	struct opt opts[] = {
		OPT_CALLBACK(0, "plan", &plan, "KEY=VALUE", "one line of the guest plan", plan_cb),
		OPT_STRING('o', "output", &out, "FILE", "where to write the initrd"),
		OPT_END(),
	};
	int argn = parse_options(argc, argv, opts, &u, 0), ret;

	if (argn || !out) {
		kvlist_free(&plan);
		if (!argn)
			lab_err("'image initrd' wants -o FILE");
		return argn ? no_operands(argn, argv, "initrd") : EXIT_USAGE;
	}
	ret = image_initramfs(gopts.cache_dir, &img) || image_boot_initrd(img.path, &plan, out) ?
		      EXIT_RUN_FAILED :
		      0;
	image_release(&img);
	kvlist_free(&plan);
	return ret;
}

static const struct {
	const char *name, *full; /* full: in messages and help */
	int (*fn)(int argc, char **argv);
} subcommands[] = {
	{ "build", "image build", image_build },
	{ "list", "image list", image_list_cmd },
	{ "gc", "image gc", image_gc },
	{ "initrd", "image initrd", image_initrd },
};

int cmd_image(int argc, char **argv)
{
	struct opt opts[ARRAY_SIZE(subcommands) + 1];
	int sub = -1, n;

	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		opts[i] = (struct opt)OPT_SUBCOMMAND(subcommands[i].name, &sub, (int)i);
	opts[ARRAY_SIZE(subcommands)] = (struct opt)OPT_END();
	n = parse_options(argc, argv, opts, NULL, PARSE_OPT_NO_HELP_PRINT);
	if (n == PARSE_OPT_HELP || !n)
		usage(n ? stdout : stderr);
	if (n <= 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	argv[0] = (char *)subcommands[sub].full;
	return subcommands[sub].fn(n, argv);
}
