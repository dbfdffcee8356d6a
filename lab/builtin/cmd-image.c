// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-image.c - "mmlab image build|list": the guest images.
 */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "image/diskimage.h"
#include "image/initramfs.h"
#include "kernel/kernel.h"
#include "vm/probe.h"
#include "lib/util.h"
#include "vm/vm.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab image build [--kind initramfs|debootstrap] [--suite SUITE]\n"
		"                         [--packages A,B] [--size SIZE] [--json]\n"
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
		"list   the cached images\n"
		"gc     remove leftovers of interrupted builds and the images made from\n"
		"       other guest programs than the current ones; --all removes every image\n"
		"initrd write the image plus a guest plan (docs/workloads.md lists the\n"
		"       keys, e.g. --plan workload=noop --plan iterations=1) to FILE, to boot\n"
		"       by hand: qemu-system-x86_64 -kernel K -initrd FILE -append\n"
		"       'console=ttyS0 rdinit=/init' -serial stdio -serial file:data.bin\n"
		"\n"
		"Images live in $MMLAB_CACHE/images (default ~/.cache/mmlab/images). The\n"
		"guest programs come from build/guest next to ./mmlab, or $MMLAB_GUEST_DIR.\n");
}

struct disk_opts {
	const char *kind, *suite, *packages, *size;
	bool all;
};

/*
 * libguestfs boots an appliance with the host's kernel, so the lab's own
 * KVM-or-TCG verdict (accel.json, or a probe boot) applies to it too.
 */
void image_guestfs_accel(void)
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
		disk_set_tcg(true);
		return;
	}
	disk_set_tcg(ac.accel == DOM_ACCEL_TCG);
	lab_info("libguestfs appliance under %s (%s)", dom_accel_name(ac.accel), ac.reason);
}

static int build_disk(const struct disk_opts *o, bool json)
{
	struct strlist pk = { 0 };
	struct disk_recipe r = { .suite = o->suite, .packages = &pk };
	struct disk_image d;
	int ret = EXIT_USAGE;

	if (o->size && (parse_size(o->size, &r.size_bytes) || r.size_bytes < (512ULL << 20) ||
			r.size_bytes % (1ULL << 20))) {
		lab_err("--size %s: expected a whole number of MiB of at least 512M, e.g. 4G",
			o->size);
		return EXIT_USAGE;
	}
	if (o->suite && (!*o->suite || strspn(o->suite, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
			 strlen(o->suite))) {
		lab_err("--suite '%s': expected a Debian suite name such as bookworm", o->suite);
		return EXIT_USAGE;
	}
	if (o->packages) {
		char *copy = xstrdup(o->packages), *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789+-.") != strlen(t)) {
				lab_err("--packages: '%s' is not a Debian package name", t);
				free(copy);
				goto out;
			}
			strlist_push(&pk, t);
		}
		free(copy);
	}
	image_guestfs_accel();
	ret = EXIT_RUN_FAILED;
	if (disk_image_get(gopts.cache_dir, &r, &d))
		goto out;
	if (json) {
		json_t *j = json_pack("{s:s, s:s, s:s, s:b}", "kind", "debootstrap",
				      "path", d.path, "hash", d.hash, "built", d.built);

		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		printf("%s %s (%s)\n", d.path, d.hash, d.built ? "built" : "cached");
	}
	disk_image_release(&d);
	ret = 0;
out:
	strlist_free(&pk);
	return ret;
}

static int image_gc(const struct disk_opts *o, bool json)
{
	json_t *removed = disk_image_gc(gopts.cache_dir, o->all), *x;
	size_t i;

	if (!removed)
		return EXIT_RUN_FAILED;
	if (json) {
		json_dumpf(removed, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		json_array_foreach(removed, i, x)
			printf("removed %s\n", json_string_value(x));
	}
	json_decref(removed);
	return 0;
}

int cmd_image(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "plan", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "kind", required_argument, NULL, 'k' },
		{ "suite", required_argument, NULL, 's' },
		{ "packages", required_argument, NULL, 'P' },
		{ "size", required_argument, NULL, 'S' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvlist plan = { 0 };
	struct disk_opts dopt = { 0 };
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
		case 'k': dopt.kind = optarg; break;
		case 's': dopt.suite = optarg; break;
		case 'P': dopt.packages = optarg; break;
		case 'S': dopt.size = optarg; break;
		case 'a': dopt.all = true; break;
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
	if (!strcmp(sub, "gc"))
		return image_gc(&dopt, json);
	if (!strcmp(sub, "build") && dopt.kind && strcmp(dopt.kind, "initramfs")) {
		if (strcmp(dopt.kind, "debootstrap")) {
			lab_err("--kind %s: unknown image kind; expected initramfs or debootstrap",
				dopt.kind);
			return EXIT_USAGE;
		}
		return build_disk(&dopt, json);
	}
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
		json_t *dl = disk_image_list(gopts.cache_dir);
		size_t i;

		json_array_extend(l, dl);
		json_decref(dl);

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
	lab_err("no 'image %s'; the subcommands are build, list, gc and initrd", sub);
	return EXIT_USAGE;
}
