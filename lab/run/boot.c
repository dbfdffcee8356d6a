// SPDX-License-Identifier: GPL-2.0
/*
 * boot.c - one boot of a run, the same for "mmlab run", the queue's boots
 * and bisect/repro (they run through runner_run()):
 *
 *   stage    the boot's directory and its payload (the guest plan, the
 *            workload's module, a source-built kernel's modules: one file
 *            list, payload.h) appended to the initramfs, or for a disk
 *            image a qcow2 overlay and the payload on a second disk
 *   domain   the libvirt domain XML, placed as the queue says; the domains
 *            of earlier attempts of the boot destroyed
 *   watch    run the domain to poweroff, crash, deadline or a signal
 *   collect  what the agent sent on ttyS1 (a command workload's outputs
 *            and the files the job collects in it: FILE records), the
 *            console log
 *   record   each iteration into the store (record.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "guest/files.h"
#include "guest/plan.h"
#include "guest/tap.h"
#include "image/rootinitrd.h"
#include "guest/stream.h"
#include "kernel/tiermods.h"
#include "kernel/wlmodule.h"
#include "lib/util.h"
#include "proto.h"
#include "run/run.h"
#include "run/stage.h"
#include "vm/domain_xml.h"

/* the data channel read: records, and collected files (64 x MMFILE_MAX) */
#define AGENT_DATA_MAX (6ULL << 30)
#define CONSOLE_MAX (16u << 20)
/* how a boot waits for an earlier attempt's domain to go */
#define ATTEMPT_CLEAR_S 30

/* the files and names of one boot, and what it gave */
struct boot_ctx {
	char *dir; /* STAGE/<variant>-<first> */
	char *initrd, *console_path, *data_path, *kernel, *cmdline;
	char *overlay; /* the disk overlay, or NULL */
	char *payload; /* the disk's payload disk, or NULL */
	struct payload files; /* the boot's files beside the image */
	char *base; /* mmlab-<run>-<variant>-<first>: every attempt's prefix */
	char *name; /* base+attempt: this attempt's domain */
	char *label; /* "<variant> iteration <first>[+] (<release>)" */
	struct kvlist plan;
	char *xml;
	struct boot b; /* which boot */
	struct data_tap *tap; /* the data channel's, from the domain's creation on */
	void *data; /* the data channel's file, mapped */
	size_t dlen;
	char *console;
	struct boot_out out;
};

static void boot_ctx_init(struct boot_ctx *bc, const struct run *r, const struct boot *b)
{
	const struct job_variant *v = &r->job->variants[b->variant];

	memset(bc, 0, sizeof(*bc));
	bc->b = *b;
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
	bc->out.data_file = "agent.bin";
	bc->out.domain = bc->name;
}

static void boot_ctx_free(struct boot_ctx *bc)
{
	if (bc->tap)
		data_tap_stop(bc->tap);
	kvlist_free(&bc->plan);
	guest_stream_free(bc->out.agent);
	json_decref(bc->out.files);
	payload_release(&bc->files);
	guest_outputs_free(&bc->out.outputs);
	free(bc->xml);
	if (bc->data)
		munmap(bc->data, bc->dlen);
	free(bc->console);
	free(bc->dir);
	free(bc->initrd);
	free(bc->console_path);
	free(bc->data_path);
	free(bc->kernel);
	free(bc->cmdline);
	free(bc->overlay);
	free(bc->payload);
	free(bc->base);
	free(bc->name);
	free(bc->label);
}

static void boot_ctx_release(struct run *r, struct boot_ctx *bc)
{
	kvlist_set(&r->boot_dirs, bc->name, bc->dir); /* run_drop_boot_dirs() */
	boot_ctx_free(bc);
}

/* ---- stage ------------------------------------------------------------ */

/* a kmem topology's dax drivers for the boot's kernel: the plan's list, the files */
static int tier_files(const struct run *r, const struct boot *b, struct boot_ctx *bc)
{
	const struct kernel_info *ki = &r->kernels[b->variant];
	struct strbuf names = STRBUF_INIT;
	struct kvlist mods = { 0 };
	char *mdir;
	int ret;

	if (!topology_has_kmem(&r->job->topo))
		return 0;
	mdir = tiermods_dir(ki->path, ki->release);
	ret = tiermods_find(r->job->variants[b->variant].name, mdir, &mods, &names);
	if (!ret && names.len)
		kvlist_set(&bc->plan, "tier.modules", names.buf);
	for (size_t i = 0; !ret && i < mods.n; i++)
		payload_add_file(&bc->files, mods.v[i].key, mods.v[i].value, 0644);
	kvlist_free(&mods);
	strbuf_release(&names);
	free(mdir);
	return ret;
}

/*
 * The boot's files beside its image, the same list for both image kinds:
 * the plan, a command workload's files and program, the workload's module
 * built for the boot's kernel and, on a
 * disk image, the variant's own modules tree (an initramfs lives in the
 * guest's memory, where a whole module tree does not belong).
 */
static int boot_files(const struct run *r, const struct boot *b, struct boot_ctx *bc)
{
	const struct kernel_info *ki = &r->kernels[b->variant];
	char *mods = NULL, *gp;
	int ret = 0;

	if (tier_files(r, b, bc) || payload_add_plan(&bc->files, &bc->plan))
		return -1;
	/* a command workload's files and program (own.c) */
	for (size_t i = 0; i < r->guest_files.n; i++)
		payload_add_file(&bc->files, r->guest_files.v[i].key, r->guest_files.v[i].value,
				 PAYLOAD_MODE_HOST);
	/* and its trees: an mmtests checkout (mmtests.c), without its results and history */
	for (size_t i = 0; i < r->guest_trees.n; i++) {
		static const char *const skip[] = { "work", ".git", NULL };
		const struct payload_tree_opts to = { .skip_top = skip, .links_inside = true };

		if (payload_add_tree(&bc->files, r->guest_trees.v[i].key, r->guest_trees.v[i].value,
				     &to))
			return -1;
	}
	if (r->modules && r->modules[b->variant]) {
		gp = xasprintf("/mmlab/modules/%s.ko", wlmodule_for_job(r->job));
		payload_add_file(&bc->files, gp, r->modules[b->variant], 0644);
		free(gp);
	}
	if (r->disk_base)
		mods = disk_kernel_modules(ki->path, ki->release);
	if (mods) {
		gp = xasprintf("/lib/modules/%s", ki->release);
		lab_info("the kernel modules %s go into the guest's %s", mods, gp);
		ret = payload_add_tree(&bc->files, gp, mods, NULL);
		free(gp);
	}
	free(mods);
	return ret;
}

/*
 * mmlab's own initramfs for the kernel (rootinitrd.h): it loads the
 * modules that mount the root and switches to the image's agent. Built or
 * found in the cache by content, then staged once per variant: QEMU's
 * user must read it. None when the kernel has the drivers built in or no
 * module tree (it then mounts the root itself).
 */
static int stage_root_initrd(const struct run *r, const struct boot *b, struct boot_ctx *bc)
{
	const struct kernel_info *ki = &r->kernels[b->variant];
	char *moddir = disk_kernel_moddir(ki->path, ki->release), *src = NULL, *tmp;
	int ret;

	free(bc->initrd);
	bc->initrd = NULL;
	ret = moddir ? rootinitrd_get(r->spec->cache_dir, moddir, ki->release, &src) : 0;
	free(moddir);
	if (ret || !src)
		return ret;
	bc->initrd = xasprintf("%s/initrd-%zu", r->stage, b->variant);
	if (path_exists(bc->initrd)) {
		free(src);
		return 0;
	}
	tmp = xasprintf("%s.tmp.%ld", bc->initrd, (long)getpid());
	ret = copy_file(src, tmp, 0644);
	if (!ret && rename(tmp, bc->initrd)) {
		lab_err("cannot stage %s as %s: %s", src, bc->initrd, strerror(errno));
		ret = -1;
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	free(src);
	return ret;
}

/*
 * A debootstrap image boots from a per-boot overlay of the cached base,
 * through mmlab's initramfs for the kernel when it needs modules, else
 * straight from the kernel; its files are on the payload disk, which the
 * agent unpacks.
 */
static int stage_disk(const struct run *r, const struct boot *b, struct boot_ctx *bc)
{
	bc->overlay = xasprintf("%s/disk.qcow2", bc->dir);
	bc->payload = xasprintf("%s/payload.cpio", bc->dir);
	if (stage_root_initrd(r, b, bc) || disk_overlay_create(r->disk_base, bc->overlay))
		return -1;
	return disk_payload_write(&bc->files, bc->payload);
}

static int boot_stage(const struct run *r, const struct boot *b, struct boot_ctx *bc,
		      struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];

	if (mkdir_p(bc->dir, 0755))
		return -1;
	guest_plan(&bc->plan, r->id, r->job, v, b->first, b->count, run_workload(r)->plan);
	if (boot_files(r, b, bc))
		return -1;
	if (r->disk_base) {
		progress_status(pg, "%s iteration %u%s: preparing the guest disk", v->name,
				b->first, b->count > 1 ? "+" : "");
		return stage_disk(r, b, bc);
	}
	return image_boot_initrd_files(r->img.path, &bc->files, bc->initrd);
}

/* ---- domain ------------------------------------------------------------- */

static int boot_xml(const struct run *r, struct boot_ctx *bc)
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
		.data_pipe = true,
		.disk_path = bc->overlay,
		.payload_path = bc->payload,
	};

	if (place) {
		spec.cpuset = place->cpuset;
		spec.vcpu_pins = place->vcpu_pins;
		spec.memnodes = place->memnodes;
	}
	bc->xml = topology_domain_xml(&spec);
	return bc->xml ? 0 : -1;
}

static int boot_domain(const struct run *r, struct boot_ctx *bc)
{
	if (boot_xml(r, bc))
		return -1;
	/*
	 * A killed earlier attempt (kill -9 of the runner, a requeued queue
	 * item) may leave its domain while libvirt tears it down: ours has
	 * another name, and theirs must not run beside ours.
	 */
	if (vm_ensure_connected(r->host) ||
	    vm_clear_attempts(r->host, bc->base, r->attempt ? r->attempt : 1, ATTEMPT_CLEAR_S) < 0)
		return -1;
	return 0;
}

/* a boot in the dir of an earlier one whose domain libvirt still holds */
static bool boot_dir_held(const struct run *r, const char *dir)
{
	for (size_t i = 0; i < r->boot_dirs.n; i++)
		if (!strcmp(r->boot_dirs.v[i].value, dir))
			return true;
	return false;
}

/* ---- the next boot, made ready during this one ------------------------------- */

/* a ready boot that will not run: its domain, tap and files go at once */
static void next_discard(struct boot_ctx *bc)
{
	if (bc->tap)
		data_tap_stop(bc->tap);
	bc->tap = NULL;
	stage_done(bc->dir);
	boot_ctx_free(bc);
	free(bc);
}

void run_drop_next(struct run *r)
{
	if (!r->next)
		return;
	vm_prestart_drop(r->host);
	next_discard(r->next);
	r->next = NULL;
}

/*
 * Stage boot b and create its domain paused (vm_prestart()), into
 * r->next. Only the first attempt: a later one first clears what earlier
 * attempts left, which may take seconds, and that belongs to its own boot.
 */
static void next_prepare(struct run *r, const struct boot *b, struct progress *pg)
{
	struct boot_ctx *bc = xmalloc(sizeof(*bc));
	double begin = now_monotonic();

	boot_ctx_init(bc, r, b);
	if ((r->attempt ? r->attempt : 1) != 1 || boot_dir_held(r, bc->dir)) {
		boot_ctx_free(bc);
		free(bc);
		return;
	}
	if (boot_stage(r, b, bc, pg) || boot_xml(r, bc) ||
	    vm_clear_attempts(r->host, bc->base, 1, 0) ||
	    !(bc->tap = data_tap_start(bc->data_path, AGENT_DATA_MAX))) {
		next_discard(bc);
		return;
	}
	bc->out.clock.prestage_s = now_monotonic() - begin;
	if (vm_prestart(r->host, bc->xml)) {
		next_discard(bc);
		return;
	}
	r->next = bc;
}

/* the boot made ready for b during the one before, or NULL */
static struct boot_ctx *next_take(struct run *r, const struct boot *b)
{
	struct boot_ctx *bc = r->next;

	if (!bc || bc->b.variant != b->variant || bc->b.first != b->first ||
	    bc->b.count != b->count) {
		run_drop_next(r);
		return NULL;
	}
	r->next = NULL;
	return bc;
}

/* ---- watch ---------------------------------------------------------------- */

struct tick_ctx {
	struct run *r;
	struct progress *pg;
	struct boot_ctx *bc;
	const struct boot *next; /* to make ready, or NULL */
	double deadline;
	int last;
};

/* the agent wrote on its data channel: the guest has booted */
static bool agent_up(const struct boot_ctx *bc)
{
	struct stat st;

	return stat(bc->data_path, &st) == 0 && st.st_size > 0;
}

/*
 * The status line of a running boot, once a second: booting or measuring.
 * At the first tick, while the guest still boots, the next boot is made
 * ready: never once the agent is up, so never during a measured phase.
 */
static int boot_tick(double elapsed_s, void *arg)
{
	struct tick_ctx *tc = arg;

	if (tc->next) {
		struct boot_clock *c = &tc->bc->out.clock;

		if (!agent_up(tc->bc)) {
			c->next_begin = now_monotonic();
			next_prepare(tc->r, tc->next, tc->pg);
			c->next_end = now_monotonic();
		}
		tc->next = NULL;
	}
	if ((int)elapsed_s == tc->last)
		return VM_TICK_CONTINUE;
	tc->last = (int)elapsed_s;
	progress_status(tc->pg, "%s: %s %ds (deadline %.0fs)", tc->bc->label,
			agent_up(tc->bc) ? "agent up," : "booting,", tc->last, tc->deadline);
	return VM_TICK_CONTINUE;
}

static int boot_watch(struct run *r, const struct boot *b, const struct boot *next,
		      struct boot_ctx *bc, struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	struct tick_ctx tc = {
		.r = r,
		.pg = pg,
		.bc = bc,
		.next = next,
		.last = -1,
		.deadline =
			r->job->timeouts.boot_s + (double)r->job->timeouts.iteration_s * b->count,
	};
	struct vm_result *vr = &bc->out.vr;
	struct data_tap *tap = bc->tap ? bc->tap : data_tap_start(bc->data_path, AGENT_DATA_MAX);
	int64_t dropped;

	bc->tap = NULL;
	if (!tap)
		return -1;
	progress_status(pg, "%s: booting", bc->label);
	/* the data channel's file (the tap made it): vm_run() times its writes */
	vm_set_tick(r->host, boot_tick, &tc);
	vm_set_output_watch(r->host, bc->data_path);
	/* the outcome says it all; -1 is only VM_ERROR */
	vm_run(r->host, bc->xml, tc.deadline, vr);
	vm_set_output_watch(r->host, NULL);
	vm_set_tick(r->host, NULL, NULL);
	dropped = data_tap_stop(tap);
	if (dropped > 0)
		lab_warn("variant '%s' iteration %u: the guest sent more than %llu GiB on its data "
			 "channel; the last %lld bytes were dropped",
			 v->name, b->first, AGENT_DATA_MAX >> 30, (long long)dropped);
	if (vr->outcome == VM_ERROR) {
		lab_err("variant '%s' iteration %u: the domain did not start: %s", v->name,
			b->first, vr->detail);
		/* the run's record must say so: a run of 0/0 iterations would look complete */
		record_not_started(r, b, vr->detail);
		return -1;
	}
	return vr->outcome == VM_INTERRUPTED ? 1 : 0;
}

/* ---- collect ------------------------------------------------------------------ */

/* the data channel's file, mapped read-only (at most AGENT_DATA_MAX bytes of it) */
static int map_data(struct boot_ctx *bc)
{
	int fd = open(bc->data_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *m;

	if (fd < 0 && errno == ENOENT)
		return 0; /* the guest never wrote: nothing to read */
	if (fd < 0 || fstat(fd, &st)) {
		lab_err("cannot read the data channel %s: %s", bc->data_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	bc->dlen = (uint64_t)st.st_size > AGENT_DATA_MAX ? AGENT_DATA_MAX : (size_t)st.st_size;
	if (bc->dlen > 0) {
		m = mmap(NULL, bc->dlen, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			lab_err("cannot map the data channel %s: %s", bc->data_path,
				strerror(errno));
			bc->dlen = 0;
			close(fd);
			return -1;
		}
		bc->data = m;
	}
	close(fd);
	return 0;
}

/*
 * The files the job collects, stored from the FILE records of the stream
 * during the walk (boot_walk()): their warnings and the iteration's
 * "files"; the iteration keeps the stream without them (they are stored as
 * files).
 */
static void collect_files(struct run *r, const struct job_variant *v, struct boot_ctx *bc,
			  const struct guest_file_list *files, const struct guest_files_stats *st)
{
	if (r->job->collect_files.n)
		bc->out.files = guest_file_list_json(files);
	for (size_t i = 0; i < files->n; i++) {
		const struct guest_file *f = &files->v[i];

		if (f->stored && f->stored_size < f->size)
			lab_warn("variant '%s': %s is %llu bytes in the guest; its first %u MiB "
				 "are stored",
				 v->name, f->path, (unsigned long long)f->size, MMFILE_MAX >> 20);
	}
	if (st->ignored + st->late)
		lab_warn("variant '%s': the guest sent %u file record(s) that were not asked for "
			 "or came too late; ignored",
			 v->name, st->ignored + st->late);
}

/*
 * The one pass over the boot's stream (guest/records.h): the iterations
 * (bc->out.agent, with the count of the file records), the workload
 * kind's part, the collected files under the boot's dir (files) and the
 * stream kept without them (agent.stored.bin).
 */
static void boot_walk(struct run *r, struct boot_ctx *bc, struct guest_file_list *files,
		      struct guest_files_stats *st)
{
	char *kept_path = xasprintf("%s/agent.stored.bin", bc->dir);
	struct guest_stream_parser *sp = guest_stream_begin(r->job->workload.name);
	struct guest_files *gf =
		guest_files_begin(bc->data, &r->job->collect_files, bc->dir, kept_path);
	const struct guest_record_handler h[] = {
		{ guest_stream_record, sp },
		{ run_workload(r)->collect, &bc->out },
		{ guest_files_record, gf },
	};
	struct mmrec_reader rd;
	int kept;

	guest_outputs_init(&bc->out.outputs);
	guest_records_walk(bc->data ? bc->data : "", bc->dlen, h, ARRAY_SIZE(h), &rd);
	guest_files_end(gf, bc->dlen, st, &kept, files);
	guest_stream_file_records(sp, st);
	bc->out.agent = guest_stream_end(sp, &rd);
	if (kept > 0)
		bc->out.data_file = "agent.stored.bin";
	free(kept_path);
}

static int boot_collect(struct run *r, const struct boot *b, struct boot_ctx *bc,
			struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	struct guest_files_stats st;
	const struct guest_stream_info *info;
	struct guest_file_list files;

	if (map_data(bc))
		return -1;
	if (r->job->collect_files.n)
		progress_status(pg, "%s iteration %u: storing the collected files", v->name,
				b->first);
	boot_walk(r, bc, &files, &st);
	info = &bc->out.agent->info;
	if (info->setup_error) {
		lab_err("variant '%s': the guest could not set up its %s: %s; fix the job and run it again",
			v->name, info->setup_what, info->setup_message);
		r->setup_failed = true;
		guest_file_list_free(&files);
		return -1;
	}
	collect_files(r, v, bc, &files, &st);
	guest_file_list_free(&files);
	if (path_exists(bc->console_path))
		bc->console = read_file(bc->console_path, NULL, CONSOLE_MAX);
	if (!bc->console)
		bc->console = xstrdup("");
	bc->out.console = bc->console;
	return 0;
}

void run_drop_boot_dirs(struct run *r, bool wait)
{
	struct kvlist keep = { 0 };

	if (wait)
		vm_reap(r->host);
	for (size_t i = 0; i < r->boot_dirs.n; i++) {
		struct kv *e = &r->boot_dirs.v[i];

		if (wait || vm_gone(r->host, e->key))
			stage_done(e->value);
		else
			kvlist_set(&keep, e->key, e->value);
	}
	kvlist_free(&r->boot_dirs);
	r->boot_dirs = keep;
}

int run_boot(struct run *r, const struct boot *b, const struct boot *next, struct progress *pg)
{
	struct boot_ctx *ready, bc;
	int ret = 0;

	run_drop_boot_dirs(r, false); /* the earlier boots' that libvirt let go */
	ready = next_take(r, b);
	if (ready) {
		/* staged, and its domain created, during the boot before */
		bc = *ready; /* its pointers are to the heap: it moves whole */
		free(ready);
		bc.out.clock.begin = bc.out.clock.staged = now_monotonic();
		/* a connection reopened since: vm_run() creates the domain again */
		ret = vm_ensure_connected(r->host);
	} else {
		boot_ctx_init(&bc, r, b);
		if (boot_dir_held(r, bc.dir))
			run_drop_boot_dirs(r, true); /* the same iteration booted again */
		bc.out.clock.begin = now_monotonic();
		ret = boot_stage(r, b, &bc, pg);
		bc.out.clock.staged = now_monotonic();
		if (!ret)
			ret = boot_domain(r, &bc);
	}
	if (!ret)
		ret = boot_watch(r, b, next, &bc, pg);
	if (!ret)
		ret = boot_collect(r, b, &bc, pg);
	bc.out.clock.collected = now_monotonic();
	if (!ret)
		ret = record_boot(r, b, &bc.out, pg);
	boot_ctx_release(r, &bc);
	return ret;
}
