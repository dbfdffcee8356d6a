// SPDX-License-Identifier: GPL-2.0
/*
 * boot.c - one boot of a run, the same for "mmlab run", the queue's boots
 * and bisect/repro (they run through runner_run()):
 *
 *   stage    the boot's directory, its guest plan in an initramfs overlay
 *            (or a disk overlay), the workload's module
 *   domain   the libvirt domain XML, placed as the queue says; the domains
 *            of earlier attempts of the boot destroyed
 *   watch    run the domain to poweroff, crash, deadline or a signal
 *   collect  what the agent sent on ttyS1, the files the job collects, the
 *            console log
 *   record   each iteration into the store (record.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "guest/plan.h"
#include "guest/stream.h"
#include "kernel/wlmodule.h"
#include "lib/util.h"
#include "run/run.h"
#include "run/stage.h"
#include "vm/domain_xml.h"

#define AGENT_DATA_MAX (64u << 20)
#define CONSOLE_MAX (16u << 20)
/* how a boot waits for an earlier attempt's domain to go */
#define ATTEMPT_CLEAR_S 30

/* the files and names of one boot, and what it gave */
struct boot_ctx {
	char *dir; /* STAGE/<variant>-<first> */
	char *initrd, *console_path, *data_path, *kernel, *cmdline;
	char *overlay; /* the disk overlay, or NULL */
	char *base; /* mmlab-<run>-<variant>-<first>: every attempt's prefix */
	char *name; /* base+attempt: this attempt's domain */
	char *label; /* "<variant> iteration <first>[+] (<release>)" */
	struct kvlist plan;
	char *xml;
	char *data, *console;
	struct boot_out out;
};

static void boot_ctx_init(struct boot_ctx *bc, const struct run *r, const struct boot *b)
{
	const struct job_variant *v = &r->job->variants[b->variant];

	memset(bc, 0, sizeof(*bc));
	bc->dir = xasprintf("%s/%s-%u", r->stage, v->name, b->first);
	bc->initrd = xasprintf("%s/initrd", bc->dir);
	bc->console_path = xasprintf("%s/console.log", bc->dir);
	bc->data_path = xasprintf("%s/agent.bin", bc->dir);
	bc->kernel = xasprintf("%s/kernel-%zu", r->stage, b->variant);
	bc->base = xasprintf("mmlab-%s-%s-%u", r->id, v->name, b->first);
	bc->name = xasprintf("%s%c%u", bc->base, VM_ATTEMPT_SEP, r->attempt ? r->attempt : 1);
	bc->cmdline = xasprintf("console=ttyS0,115200 panic=-1 %s%s%s",
				r->disk_base ? "root=/dev/vda1 rw init=/" DISK_AGENT_PATH :
					       "rdinit=/init",
				v->cmdline ? " " : "", v->cmdline ? v->cmdline : "");
	bc->label = xasprintf("%s iteration %u%s (%s)", v->name, b->first, b->count > 1 ? "+" : "",
			      r->kernels[b->variant].release);
	bc->out.dir = bc->dir;
	bc->out.domain = bc->name;
}

static void boot_ctx_release(struct run *r, struct boot_ctx *bc)
{
	kvlist_free(&bc->plan);
	json_decref(bc->out.agent);
	json_decref(bc->out.files);
	free(bc->xml);
	free(bc->data);
	free(bc->console);
	r->boot_dir = bc->dir; /* run_drop_boot_dir() */
	free(bc->initrd);
	free(bc->console_path);
	free(bc->data_path);
	free(bc->kernel);
	free(bc->cmdline);
	free(bc->overlay);
	free(bc->base);
	free(bc->name);
	free(bc->label);
}

/* ---- stage ------------------------------------------------------------ */

/* the workload's module for the boot's kernel, as a guest file */
static void module_extra(const struct run *r, const struct boot *b, struct kvlist *extra)
{
	char *gp;

	if (!r->modules || !r->modules[b->variant])
		return;
	gp = xasprintf("mmlab/modules/%s.ko", wlmodule_for_workload(r->job->workload.name));
	kvlist_set(extra, gp, r->modules[b->variant]);
	free(gp);
}

/*
 * A debootstrap image boots from a per-boot overlay of the cached base,
 * through the kernel's own distro initrd when it has one (it loads
 * virtio_blk and ext4, modules in Debian's kernels), else straight from
 * the kernel (which must have them built in).
 */
static int stage_disk(const struct run *r, const struct boot *b, struct boot_ctx *bc)
{
	const struct kernel_info *ki = &r->kernels[b->variant];
	char *src = disk_kernel_initrd(ki->path, ki->release);
	char *mods = disk_kernel_modules(ki->path, ki->release);
	struct kvlist extra = { 0 };
	int ret = -1;

	bc->overlay = xasprintf("%s/disk.qcow2", bc->dir);
	free(bc->initrd);
	bc->initrd = NULL;
	if (src) {
		bc->initrd = xasprintf("%s/initrd", bc->dir);
		if (copy_file(src, bc->initrd, 0644))
			goto out;
	}
	module_extra(r, b, &extra);
	ret = disk_overlay_prepare(r->disk_base, bc->overlay, &bc->plan, mods, &extra);
out:
	kvlist_free(&extra);
	free(src);
	free(mods);
	return ret;
}

static int boot_stage(const struct run *r, const struct boot *b, struct boot_ctx *bc,
		      struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	struct kvlist extra = { 0 };
	int ret;

	if (mkdir_p(bc->dir, 0755))
		return -1;
	guest_plan(&bc->plan, r->id, r->job, v, b->first, b->count);
	if (r->disk_base) {
		progress_status(pg, "%s iteration %u%s: preparing the guest disk", v->name,
				b->first, b->count > 1 ? "+" : "");
		return stage_disk(r, b, bc);
	}
	module_extra(r, b, &extra);
	if (extra.n)
		ret = image_boot_initrd_extra(r->img.path, &bc->plan, &extra, bc->initrd);
	else
		ret = image_boot_initrd(r->img.path, &bc->plan, bc->initrd);
	kvlist_free(&extra);
	return ret;
}

/* ---- domain ------------------------------------------------------------- */

static int boot_domain(const struct run *r, struct boot_ctx *bc)
{
	const struct boot_opts *place = r->spec->place;
	struct domain_spec spec = {
		.name = bc->name,
		.topo = &r->job->topo,
		.accel = r->accel.accel,
		.kernel = bc->kernel,
		.initrd = bc->initrd,
		.cmdline = bc->cmdline,
		.console_path = bc->console_path,
		.data_path = bc->data_path,
		.disk_path = bc->overlay,
	};

	if (place) {
		spec.cpuset = place->cpuset;
		spec.vcpu_pins = place->vcpu_pins;
		spec.memnodes = place->memnodes;
	}
	bc->xml = topology_domain_xml(&spec);
	if (!bc->xml)
		return -1;
	/*
	 * A killed earlier attempt (kill -9 of the runner, a requeued queue
	 * item) may leave its domain while libvirt tears it down: ours has
	 * another name, and theirs must not run beside ours.
	 */
	if (vm_ensure_connected(r->host) ||
	    vm_clear_attempts(r->host, bc->base, ATTEMPT_CLEAR_S) < 0)
		return -1;
	return 0;
}

/* ---- watch ---------------------------------------------------------------- */

struct tick_ctx {
	struct progress *pg;
	const struct boot_ctx *bc;
	double deadline;
	int last;
};

/* the status line of a running boot, once a second: booting or measuring */
static int boot_tick(double elapsed_s, void *arg)
{
	struct tick_ctx *tc = arg;
	struct stat st;

	if ((int)elapsed_s == tc->last)
		return VM_TICK_CONTINUE;
	tc->last = (int)elapsed_s;
	progress_status(tc->pg, "%s: %s %ds (deadline %.0fs)", tc->bc->label,
			stat(tc->bc->data_path, &st) == 0 && st.st_size > 0 ? "agent up," :
									      "booting,",
			tc->last, tc->deadline);
	return VM_TICK_CONTINUE;
}

/* an empty file at path */
static int make_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		lab_err("cannot create %s: %s; check the staging directory", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int boot_watch(const struct run *r, const struct boot *b, struct boot_ctx *bc,
		      struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	struct tick_ctx tc = {
		.pg = pg,
		.bc = bc,
		.last = -1,
		.deadline =
			r->job->timeouts.boot_s + (double)r->job->timeouts.iteration_s * b->count,
	};
	struct vm_result *vr = &bc->out.vr;

	progress_status(pg, "%s: booting", bc->label);
	/* the data channel's file, made now so that vm_run() can time its writes */
	if (make_empty(bc->data_path))
		return -1;
	vm_set_tick(r->host, boot_tick, &tc);
	vm_set_output_watch(r->host, bc->data_path);
	/* the outcome says it all; -1 is only VM_ERROR */
	vm_run(r->host, bc->xml, tc.deadline, vr);
	vm_set_output_watch(r->host, NULL);
	vm_set_tick(r->host, NULL, NULL);
	if (vr->outcome == VM_ERROR) {
		lab_err("variant '%s' iteration %u: the domain did not start: %s", v->name,
			b->first, vr->detail);
		return -1;
	}
	return vr->outcome == VM_INTERRUPTED ? 1 : 0;
}

/* ---- collect ------------------------------------------------------------------ */

static int boot_collect(struct run *r, const struct boot *b, struct boot_ctx *bc,
			struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	json_t *se;
	size_t dlen = 0;

	if (path_exists(bc->data_path))
		bc->data = read_file(bc->data_path, &dlen, AGENT_DATA_MAX);
	bc->out.agent = agent_parse_stream(bc->data ? bc->data : "", bc->data ? dlen : 0,
					   r->job->workload.name);
	se = json_object_get(bc->out.agent, "setup_error");
	if (se) {
		lab_err("variant '%s': the guest could not set up its %s: %s; fix the job and run it again",
			v->name, json_string_value(json_object_get(se, "what")),
			json_string_value(json_object_get(se, "message")));
		r->setup_failed = true;
		return -1;
	}
	if (bc->overlay && r->job->collect_files.n) {
		progress_status(pg, "%s iteration %u: collecting files", v->name, b->first);
		bc->out.files = disk_collect(bc->overlay, &r->job->collect_files, bc->dir);
		if (!bc->out.files)
			bc->out.files =
				json_pack("{s:s}", "error", "the guest disk could not be read");
	}
	if (path_exists(bc->console_path))
		bc->console = read_file(bc->console_path, NULL, CONSOLE_MAX);
	if (!bc->console)
		bc->console = xstrdup("");
	bc->out.console = bc->console;
	return 0;
}

void run_drop_boot_dir(struct run *r)
{
	if (!r->boot_dir)
		return;
	vm_reap(r->host);
	stage_done(r->boot_dir);
	free(r->boot_dir);
	r->boot_dir = NULL;
}

int run_boot(struct run *r, const struct boot *b, struct progress *pg)
{
	struct boot_ctx bc;
	int ret;

	run_drop_boot_dir(r);
	boot_ctx_init(&bc, r, b);
	bc.out.clock.begin = now_monotonic();
	ret = boot_stage(r, b, &bc, pg);
	bc.out.clock.staged = now_monotonic();
	if (!ret)
		ret = boot_domain(r, &bc);
	if (!ret)
		ret = boot_watch(r, b, &bc, pg);
	if (!ret)
		ret = boot_collect(r, b, &bc, pg);
	bc.out.clock.collected = now_monotonic();
	if (!ret)
		ret = record_boot(r, b, &bc.out, pg);
	boot_ctx_release(r, &bc);
	return ret;
}
