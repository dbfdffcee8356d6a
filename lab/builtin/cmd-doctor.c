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
#include "builtin/doctor.h"
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

static const char *const tools[DOCTOR_NTOOLS] = {
	"qemu-system-x86_64", "virsh", "git", "make", "gcc", "ccache", "flex", "bison", "bc",
};

static void check_tools(struct doctor_report *d)
{
	d->tools = tools;
	for (size_t i = 0; i < DOCTOR_NTOOLS; i++)
		d->tool_paths[i] = which(tools[i]);
}

static void check_guest(struct doctor_report *d)
{
	char *agent;

	d->guest_dir = image_guest_dir();
	agent = xasprintf("%s/agent", d->guest_dir);
	d->agent = access(agent, R_OK) == 0;
	free(agent);
}

static void check_kvm(struct doctor_report *d)
{
	int fd;

	d->kvm_present = access("/dev/kvm", F_OK) == 0;
	if (!d->kvm_present)
		return;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	d->kvm_usable = fd >= 0;
}

static void print_text(const struct doctor_report *d)
{
	printf("mmlab %s\n", MMLAB_VERSION);
	printf("guest programs   %s (%s)\n", d->guest_dir,
	       d->agent ? "agent present" : "MISSING: run 'make'");
	if (d->reachable)
		printf("libvirt          %s at %s, QEMU %s\n", d->libvirt, d->uri, d->qemu);
	else
		printf("libvirt          UNREACHABLE (see the error above)\n");
	printf("/dev/kvm         %s\n", !d->kvm_present ? "absent" :
					d->kvm_usable	? "present, opens read-write" :
							  "present but cannot be opened");
	if (d->accel_known)
		printf("accel            %s: %s%s\n",
		       d->accel.accel == DOM_ACCEL_KVM ? "kvm" : "tcg", d->accel.reason,
		       d->accel.cached ? " [cached verdict]" : "");
	else
		printf("accel            unknown (%s)\n", d->accel_note ?: "not probed");
	printf("kernels in /boot");
	for (size_t i = 0; i < d->kernel_paths.n; i++)
		printf("%s%s%s", i ? "\n                 " : " ", d->kernel_paths.v[i],
		       i == 0 ? "  (kernel: distro)" : "");
	if (!d->kernel_paths.n)
		printf(" none: 'apt-get install linux-image-amd64' (or 'make deps')");
	printf("\ntools           ");
	for (size_t i = 0; i < DOCTOR_NTOOLS; i++)
		printf(" %s%s", d->tools[i], d->tool_paths[i] ? "" : " (missing)");
	printf("\nresults          %s\ncache            %s\n", d->results, d->cache);
	printf("verdict          %s\n",
	       d->ok ? "ready: 'mmlab run jobs/quick.yaml'" : "NOT READY (see above)");
}

/* the KVM-or-TCG verdict into d->accel; false when the probe failed */
static bool check_accel(struct doctor_report *d, struct vm_host *h, bool reprobe, struct image *img)
{
	char *kernel = kernel_find_distro();
	bool ok = kernel && !image_initramfs(gopts.cache_dir, img) &&
		  !probe_accel(h, ACCEL_AUTO, gopts.cache_dir, kernel, img, reprobe, &d->accel);

	d->accel_known = ok;
	if (!ok)
		d->accel_note = "the probe failed";
	free(kernel);
	return ok;
}

int cmd_doctor(int argc, char **argv)
{
	bool reprobe = false, noprobe = false, json = false, ok;
	struct opt opts[] = {
		OPT_BOOL(0, "reprobe", &reprobe,
			 "redo the KVM probe instead of reading the cached verdict"),
		OPT_BOOL(0, "no-probe", &noprobe,
			 "do not boot anything (report the cached verdict, if any)"),
		OPT_BOOL(0, "json", &json, "machine-readable output"),
		OPT_END(),
	};
	struct doctor_report d = { .results = gopts.results_dir, .cache = gopts.cache_dir };
	struct vm_host *h = NULL;
	struct image img = { 0 };
	int n = parse_options(argc, argv, opts, &doctor_usage, 0);

	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (n) {
		lab_err("doctor: unexpected argument '%s'; see 'mmlab doctor --help'", argv[0]);
		return EXIT_USAGE;
	}
	check_guest(&d);
	check_kvm(&d);
	doctor_set_kernels(&d, kernel_list_distro());
	check_tools(&d);
	h = vm_connect(gopts.connect_uri);
	doctor_set_facts(&d, h ? vm_host_facts(h) : NULL);
	ok = d.agent && h && d.kernel_paths.n;
	if (ok && !noprobe)
		ok = check_accel(&d, h, reprobe, &img);
	else
		d.accel_note = noprobe ? "not probed (--no-probe)" : "cannot probe";
	d.ok = ok;
	if (json) {
		json_t *j = doctor_json(&d);

		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		print_text(&d);
	}
	doctor_release(&d);
	image_release(&img);
	if (h)
		vm_disconnect(h);
	return ok ? 0 : EXIT_RUN_FAILED;
}
