// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-image.c - "mmlab image build|list": the guest images.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "image.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab image build [--json]\n"
		"       mmlab image list [--json]\n"
		"       mmlab image initrd [--plan KEY=VALUE]... -o FILE\n"
		"\n"
		"build  make the default guest image, an initramfs holding the guest agent\n"
		"       (as /init) and the workload programs, unless the cache already\n"
		"       holds one with the same contents; prints its path and hash\n"
		"list   the cached images\n"
		"initrd write the image plus a guest plan (docs/workloads.md lists the\n"
		"       keys, e.g. --plan workload=noop --plan iterations=1) to FILE, to boot\n"
		"       by hand: qemu-system-x86_64 -kernel K -initrd FILE -append\n"
		"       'console=ttyS0 rdinit=/init' -serial stdio -serial file:data.bin\n"
		"\n"
		"Images live in $MMLAB_CACHE/images (default ~/.cache/mmlab/images). The\n"
		"guest programs come from build/guest next to ./mmlab, or $MMLAB_GUEST_DIR.\n");
}

int cmd_image(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "plan", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvlist plan = { 0 };
	const char *sub, *out = NULL;
	bool json = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'o': out = optarg; break;
		case 'p': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || strchr(optarg, '\n')) {
				lab_err("--plan wants KEY=VALUE, not '%s'", optarg);
				kvlist_free(&plan);
				return EXIT_USAGE;
			}
			*eq = '\0';
			kvlist_set(&plan, optarg, eq + 1);
			*eq = '=';
			break;
		}
		case 'h': usage(stdout); return 0;
		default: kvlist_free(&plan); usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		kvlist_free(&plan);
		usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[optind];
	if (!strcmp(sub, "initrd")) {
		struct image img;

		if (!out) {
			lab_err("'image initrd' wants -o FILE");
			kvlist_free(&plan);
			return EXIT_USAGE;
		}
		ret = image_initramfs(gopts.cache_dir, &img) ||
		      image_boot_initrd(img.path, &plan, out) ? EXIT_RUN_FAILED : 0;
		image_release(&img);
		kvlist_free(&plan);
		return ret;
	}
	kvlist_free(&plan);
	if (!strcmp(sub, "build")) {
		struct image img;

		if (image_initramfs(gopts.cache_dir, &img))
			return EXIT_RUN_FAILED;
		if (json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "kind", "initramfs",
					      "path", img.path, "hash", img.hash,
					      "built", img.built);

			json_dumpf(o, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
			json_decref(o);
		} else {
			printf("%s %s (%s)\n", img.path, img.hash,
			       img.built ? "built" : "cached");
		}
		image_release(&img);
		return 0;
	}
	if (!strcmp(sub, "list")) {
		json_t *l = image_list(gopts.cache_dir), *x;
		size_t i;

		if (json) {
			json_dumpf(l, stdout, JSON_INDENT(2));
			fputc('\n', stdout);
		} else {
			json_array_foreach(l, i, x)
				printf("%-10s %-16s %10lld  %s  %s\n",
				       json_string_value(json_object_get(x, "kind")),
				       json_string_value(json_object_get(x, "hash")),
				       (long long)json_integer_value(json_object_get(x, "size")),
				       json_string_value(json_object_get(x, "created")),
				       json_string_value(json_object_get(x, "path")));
		}
		json_decref(l);
		return 0;
	}
	lab_err("no 'image %s'; the subcommands are build and list", sub);
	return EXIT_USAGE;
}
