// SPDX-License-Identifier: GPL-2.0
/*
 * setup.c - the set-up of a run, written once for every entry point: the
 * job and its record (a new run, or one to resume or boot), the initramfs
 * and the libvirt connection, then for booting the stage, the kernels and
 * modules in it, KVM or TCG, and the disk image; and the run's status in
 * run.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/timefmt.h"
#include "lib/util.h"
#include "run/run.h"
#include "run/stage.h"
#include "run/probe.h"

int run_load_new(struct run *r, const struct run_opts *o)
{
	if (o->job)
		r->job = o->job;
	else if (job_load(o->job_path, &r->job))
		return -1;
	if (o->observer_check)
		run_add_observer_twins(r->job);
	r->rec.order.mode = o->sequential ? RUN_ORDER_SEQUENTIAL : RUN_ORDER_RANDOM;
	r->rec.order.seed = o->seeded ? o->seed :
					(unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	return 0;
}

/* the job as the run copied it (DIR/<run>/job.yaml), relative paths as they were */
static int load_run_job(struct run *r)
{
	char *copy = xasprintf("%s/%s/job.yaml", store_dir(r->store), r->id);
	const char *file = r->rec.job_file, *dir = r->rec.job_dir;
	size_t len;
	char *buf = read_file(copy, &len, 1u << 20);
	int ret = -1;

	if (buf && !job_load_buffer(file ? file : copy, buf, len, dir ? dir : ".", &r->job))
		ret = 0;
	free(buf);
	free(copy);
	return ret;
}

int run_load_resume(struct run *r, const char *run_arg)
{
	unsigned int n;

	r->id = store_run_resolve(r->store, run_arg);
	if (!r->id || store_record_read(r->store, r->id, &r->rec))
		return -1;
	if (!r->spec->queued && !strcmp(run_record_status(&r->rec), "running")) {
		lab_err("run %s is still running (pid %lld); wait for it or stop it first", r->id,
			r->rec.pid);
		return -1;
	}
	if (load_run_job(r))
		return -1;
	if (r->rec.observer_check)
		run_add_observer_twins(r->job);
	/* iterations --until-significant added before the run was interrupted */
	n = r->rec.until.present ? r->rec.until.iterations : 0;
	if (n > r->job->iterations && n <= 1000000)
		r->job->iterations = n;
	return 0;
}

/*
 * The guest's initramfs, of the job's recipe (images/NAME.yaml; a disk
 * job's is the default), and the libvirt connection.
 */
int run_connect(struct run *r)
{
	const struct job_image *im = &r->job->image;

	if (image_initramfs_get(r->spec->cache_dir, im->kind == IMAGE_INITRAMFS ? im->recipe : NULL,
				&r->img))
		return -1;
	if (r->img.built)
		lab_info("built the guest image %s", r->img.path);
	r->host = vm_connect(r->spec->connect_uri);
	return r->host ? 0 : -1;
}

/* a run measures under the accel it started with; else as asked, or the job's */
static enum accel_mode pick_accel(const struct run *r)
{
	const char *was = r->rec.host.accel, *o = r->spec->accel;

	if (was)
		return !strcmp(was, "kvm") ? ACCEL_KVM : ACCEL_TCG;
	if (o)
		return !strcmp(o, "kvm") ? ACCEL_KVM : !strcmp(o, "tcg") ? ACCEL_TCG : ACCEL_AUTO;
	return r->job->accel;
}

static int resolve_accel(struct run *r)
{
	enum accel_mode mode = pick_accel(r);
	char *distro = NULL;
	const char *kernel;
	size_t k = 0;
	int ret;

	if (mode == ACCEL_AUTO)
		lab_info("choosing KVM or TCG (a probe boot unless the verdict is cached)");
	while (k + 1 < r->job->nvariants && !r->kernels[k].path)
		k++;
	kernel = r->kernels[k].path;
	if (!kernel && r->spec->kernels == RUN_KERNELS_REQUEST) {
		/* every kernel is still to be built: probe with the host's */
		distro = kernel_find_distro();
		if (!distro)
			return -1;
		kernel = distro;
	}
	if (!kernel) {
		lab_err("no variant of the job has a kernel (every build failed); see the "
			"build logs named above");
		return -1;
	}
	ret = probe_accel(r->host, mode, r->spec->cache_dir, kernel, &r->img, r->spec->reprobe,
			  &r->accel);
	free(distro);
	if (ret)
		return -1;
	lab_info("accel: %s (%s)%s", r->accel.accel == DOM_ACCEL_KVM ? "kvm" : "tcg",
		 r->accel.reason, r->accel.cached ? " [cached verdict]" : "");
	return 0;
}

static int prepare_disk(struct run *r)
{
	struct disk_recipe rc = {
		.recipe = r->job->image.recipe,
		.suite = r->job->image.suite,
		.packages = &r->job->image.packages,
		.size_bytes = r->job->image.size_bytes,
	};

	if (r->job->image.kind != IMAGE_DEBOOTSTRAP)
		return 0;
	if (disk_image_get(r->spec->cache_dir, &rc, r->accel.accel == DOM_ACCEL_TCG, &r->disk))
		return -1;
	/* minutes without a call: libvirtd's keepalive has dropped the connection */
	if (r->disk.built) {
		lab_info("built the disk image %s", r->disk.path);
		if (vm_ensure_connected(r->host))
			return -1;
	}
	/* the cache may sit where QEMU's user cannot go (~root): link or copy */
	r->disk_base = xasprintf("%s/base.qcow2", r->stage);
	if (link(r->disk.path, r->disk_base) && copy_file(r->disk.path, r->disk_base, 0644))
		return -1;
	return 0;
}

/* what booting needs, after the kernels and the connection: stage, accel, disk */
int run_prepare(struct run *r)
{
	if (r->spec->boots) {
		r->stage = stage_create();
		if (!r->stage || run_stage_kernels(r) || run_build_modules(r))
			return -1;
	}
	if (resolve_accel(r))
		return -1;
	return r->spec->boots ? prepare_disk(r) : 0;
}

/* a new run in the store: its directory, the job file's copy, its record */
int run_create_record(struct run *r)
{
	struct run_record *rec = &r->rec;
	char now[TIME_STR_LEN], *copy, *text;
	size_t len;
	int ret;

	r->id = store_run_create(r->store, r->job->name);
	if (!r->id)
		return -1;
	copy = xasprintf("%s/%s/job.yaml", store_dir(r->store), r->id);
	text = read_file(r->job->path, &len, 1u << 20);
	ret = text ? write_file_atomic(copy, text, len, 0644) : -1;
	free(text);
	free(copy);
	if (ret)
		return -1;
	rec->run = xstrdup(r->id);
	rec->job = xstrdup(r->job->name);
	rec->status = xstrdup("running");
	rec->created = xstrdup(time_iso_now(now));
	rec->job_file = xstrdup(r->job->path);
	rec->job_dir = xstrdup(r->job->dir);
	rec->pid = getpid();
	rec->host_boot_id = host_boot_id();
	run_record_set_job(rec, r->job);
	rec->variants = xcalloc(r->job->nvariants + 1, sizeof(*rec->variants));
	rec->nvariants = r->job->nvariants;
	for (size_t i = 0; i < r->job->nvariants; i++) {
		rec->variants[i].name = xstrdup(r->job->variants[i].name);
		run_kernel_set(&rec->variants[i].kernel, &rec->variants[i].has_kernel,
			       &r->kernels[i]);
	}
	return 0;
}

static char *host_cpu(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], *model = NULL;

	while (f && !model && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c += 1 + strspn(c + 1, " \t");
			c[strcspn(c, "\n")] = '\0';
			model = xstrndup(c, 255);
		}
	}
	if (f)
		fclose(f);
	return model ? model : xstrdup("unknown");
}

/* "host": libvirt's facts, the accel and why, the CPU, the images */
void run_record_host(struct run *r)
{
	struct run_host *h = &r->rec.host;
	struct utsname u;

	run_host_reset(h);
	h->rest = vm_host_facts_cached(r->host, r->spec->cache_dir);
	h->accel = xstrdup(r->accel.accel == DOM_ACCEL_KVM ? "kvm" : "tcg");
	h->accel_reason = xstrdup(r->accel.reason);
	h->cpu = host_cpu();
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u) == 0)
		h->kernel = xstrdup(u.release);
	h->image = xstrdup(r->img.hash);
	if (r->disk.path)
		h->disk_image = xstrdup(r->disk.hash);
	r->rec.has_host = true;
}

int run_write_status(struct run *r, const char *status)
{
	struct run_record *rec = &r->rec;
	char now[TIME_STR_LEN];

	free(rec->status);
	rec->status = xstrdup(status);
	if (strcmp(status, "running")) {
		free(rec->finished);
		rec->finished = xstrdup(time_iso_now(now));
	} else {
		rec->pid = getpid();
		free(rec->host_boot_id);
		rec->host_boot_id = host_boot_id();
	}
	return store_record_write(r->store, r->id, rec);
}

void run_free(struct run *r)
{
	run_drop_next(r);
	run_drop_boot_dirs(r, true); /* before the kernels they boot go */
	for (size_t i = 0; r->modules && i < r->job->nvariants; i++)
		free(r->modules[i]);
	free(r->modules);
	kvlist_free(&r->guest_files);
	kvlist_free(&r->guest_trees);
	stage_done(r->stage);
	free(r->stage);
	if (r->kernels)
		for (size_t i = 0; i < r->job->nvariants; i++)
			kernel_info_release(&r->kernels[i]);
	free(r->kernels);
	image_release(&r->img);
	disk_image_release(&r->disk);
	free(r->disk_base);
	if (r->host)
		vm_disconnect(r->host);
	/* the store is the caller's */
	run_record_release(&r->rec);
	job_free(r->job);
	free(r->boots);
	free(r->id);
}
