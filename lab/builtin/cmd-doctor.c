// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-doctor.c - "mmlab doctor": what this host can do. QEMU and libvirt
 * versions, whether KVM works or guests fall back to TCG (and why), which
 * kernels are there to boot, and the tools later steps need.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "image/initramfs.h"
#include "kernel/kernel.h"
#include "lib/parse-options.h"
#include "run/probe.h"
#include "lib/util.h"
#include "vm/vm.h"

static const char *const doctor_synopsis[] = {
	"mmlab doctor [--reprobe] [--no-probe] [--json]",
	NULL,
};

static const struct opt_usage doctor_usage = {
	.synopsis = doctor_synopsis,
	.text = "Check this host: the guest programs, QEMU and libvirt (and whether\n"
		"libvirtd answers), /dev/kvm, whether KVM can really run a guest or the\n"
		"lab falls back to TCG (a probe boot, cached per host), the kernels in\n"
		"/boot, and the build tools. Exit 0 when 'mmlab run' can work here.",
};

static char *which(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *dir, *found = NULL;

	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, prog);

		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

static json_t *check_tools(void)
{
	static const char *const tools[] = {
		"qemu-system-x86_64",
		"virsh",
		"git",
		"make",
		"gcc",
		"ccache",
		"flex",
		"bison",
		"bc",
	};
	json_t *o = json_object();

	for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
		char *p = which(tools[i]);

		json_object_set_new(o, tools[i], p ? json_string(p) : json_null());
		free(p);
	}
	return o;
}

static json_t *check_guest(bool *ok)
{
	const char *gd = image_guest_dir();
	char *agent = xasprintf("%s/agent", gd);
	json_t *o = json_pack("{s:s, s:b}", "dir", gd, "agent", access(agent, R_OK) == 0);

	*ok = access(agent, R_OK) == 0;
	free(agent);
	return o;
}

static json_t *check_kvm(void)
{
	int fd;

	if (access("/dev/kvm", F_OK))
		return json_pack("{s:b, s:b}", "present", 0, "usable", 0);
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return json_pack("{s:b, s:b}", "present", 1, "usable", fd >= 0);
}

static void print_text(json_t *d)
{
	json_t *v, *x;
	const char *key;
	size_t i;

	printf("mmlab %s\n", MMLAB_VERSION);
	v = json_object_get(d, "guest");
	printf("guest programs   %s (%s)\n", json_string_value(json_object_get(v, "dir")),
	       json_is_true(json_object_get(v, "agent")) ? "agent present" : "MISSING: run 'make'");
	v = json_object_get(d, "libvirt");
	if (json_is_true(json_object_get(v, "reachable")))
		printf("libvirt          %s at %s, QEMU %s\n",
		       json_string_value(json_object_get(v, "libvirt")),
		       json_string_value(json_object_get(v, "uri")),
		       json_string_value(json_object_get(v, "qemu")));
	else
		printf("libvirt          UNREACHABLE (see the error above)\n");
	v = json_object_get(d, "kvm");
	printf("/dev/kvm         %s\n",
	       !json_is_true(json_object_get(v, "present")) ? "absent" :
	       json_is_true(json_object_get(v, "usable"))   ? "present, opens read-write" :
							      "present but cannot be opened");
	v = json_object_get(d, "accel");
	if (json_is_object(v))
		printf("accel            %s: %s%s\n",
		       json_string_value(json_object_get(v, "accel")),
		       json_string_value(json_object_get(v, "reason")),
		       json_is_true(json_object_get(v, "cached")) ? " [cached verdict]" : "");
	else
		printf("accel            unknown (%s)\n", json_string_value(v) ?: "not probed");
	printf("kernels in /boot");
	json_array_foreach(json_object_get(d, "kernels"), i, x)
		printf("%s%s%s", i ? "\n                 " : " ",
		       json_string_value(json_object_get(x, "path")),
		       i == 0 ? "  (kernel: distro)" : "");
	if (!json_array_size(json_object_get(d, "kernels")))
		printf(" none: 'apt-get install linux-image-amd64' (or 'make deps')");
	printf("\ntools           ");
	json_object_foreach(json_object_get(d, "tools"), key, x)
		printf(" %s%s", key, json_is_null(x) ? " (missing)" : "");
	printf("\nresults          %s\ncache            %s\n",
	       json_string_value(json_object_get(d, "results")),
	       json_string_value(json_object_get(d, "cache")));
	printf("verdict          %s\n", json_is_true(json_object_get(d, "ok")) ?
						"ready: 'mmlab run jobs/quick.yaml'" :
						"NOT READY (see above)");
}

/* the KVM-or-TCG verdict into d["accel"]; false when the probe failed */
static bool check_accel(json_t *d, struct vm_host *h, bool reprobe, struct image *img)
{
	struct accel_choice ac;
	char *kernel = kernel_find_distro();
	bool ok = kernel && !image_initramfs(gopts.cache_dir, img) &&
		  !probe_accel(h, ACCEL_AUTO, gopts.cache_dir, kernel, img, reprobe, &ac);

	if (ok)
		json_object_set_new(d, "accel",
				    json_pack("{s:s, s:s, s:b, s:b}", "accel",
					      ac.accel == DOM_ACCEL_KVM ? "kvm" : "tcg", "reason",
					      ac.reason, "probed", ac.probed, "cached", ac.cached));
	else
		json_object_set_new(d, "accel", json_string("the probe failed"));
	free(kernel);
	return ok;
}

int cmd_doctor(int argc, char **argv)
{
	bool reprobe = false, noprobe = false, json = false, guest_ok, ok;
	struct opt opts[] = {
		OPT_BOOL(0, "reprobe", &reprobe,
			 "redo the KVM probe instead of reading the cached verdict"),
		OPT_BOOL(0, "no-probe", &noprobe,
			 "do not boot anything (report the cached verdict, if any)"),
		OPT_BOOL(0, "json", &json, "machine-readable output"),
		OPT_END(),
	};
	struct vm_host *h = NULL;
	struct image img = { 0 };
	json_t *d, *lv;
	int n = parse_options(argc, argv, opts, &doctor_usage, 0);

	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (n) {
		lab_err("doctor: unexpected argument '%s'; see 'mmlab doctor --help'", argv[0]);
		return EXIT_USAGE;
	}
	d = json_pack("{s:s, s:s, s:s}", "version", MMLAB_VERSION, "results", gopts.results_dir,
		      "cache", gopts.cache_dir);
	json_object_set_new(d, "guest", check_guest(&guest_ok));
	json_object_set_new(d, "kvm", check_kvm());
	json_object_set_new(d, "kernels", kernel_list_distro());
	json_object_set_new(d, "tools", check_tools());
	h = vm_connect(gopts.connect_uri);
	lv = h ? vm_host_facts(h) : json_object();
	json_object_set_new(lv, "reachable", json_boolean(h != NULL));
	json_object_set_new(d, "libvirt", lv);
	ok = guest_ok && h && json_array_size(json_object_get(d, "kernels"));
	if (ok && !noprobe)
		ok = check_accel(d, h, reprobe, &img);
	else
		json_object_set_new(d, "accel",
				    json_string(noprobe ? "not probed (--no-probe)" :
							  "cannot probe"));
	json_object_set_new(d, "ok", json_boolean(ok));
	if (json) {
		json_dumpf(d, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		print_text(d);
	}
	json_decref(d);
	image_release(&img);
	if (h)
		vm_disconnect(h);
	return ok ? 0 : EXIT_RUN_FAILED;
}
