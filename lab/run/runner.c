// SPDX-License-Identifier: GPL-2.0
/*
 * runner.c - execute a job into the results store: boot every variant of
 * the job on its NUMA guest, run the workload, store each iteration as it
 * finishes. "mmlab run" is its command line (cmd-run.c).
 *
 * The flow (DESIGN.md, "The flow of one run"): parse and validate the job;
 * resolve each variant's kernel; find or build the initramfs; connect to
 * libvirt and decide KVM or TCG; then for each boot, in a seeded random
 * order across variants: write the guest plan, make the domain XML, run the
 * domain to poweroff, crash or deadline, parse what the agent sent on
 * ttyS1, and store the iteration. An interrupted run is left "incomplete"
 * and "mmlab run --resume RUN" finishes it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "vm/accel.h"
#include "guest/plan.h"
#include "guest/stream.h"
#include "builtin/builtin.h"
#include "image/diskimage.h"
#include "run/runner.h"
#include "image/initramfs.h"
#include "job/job.h"
#include "kernel/kernel.h"
#include "lib/order.h"
#include "analysis/precision.h"
#include "vm/probe.h"
#include "run/stage.h"
#include "lib/progress.h"
#include "store/results.h"
#include "lib/spawn.h"
#include "vm/domain_xml.h"
#include "lib/strbuf.h"
#include "lib/timefmt.h"
#include "lib/util.h"
#include "vm/vm.h"
#include "kernel/wlmodule.h"

#define AGENT_DATA_MAX (64u << 20)
#define CONSOLE_MAX (16u << 20)
#define EXCERPT_MAX 8192
/* how long a boot waits for an earlier attempt's domain to go */
#define ATTEMPT_CLEAR_S 30

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
	vm_request_stop();
}

struct boot {
	size_t variant;
	unsigned int first, count;
};

struct run {
	struct job *job;
	struct store *store;
	char *id;
	json_t *runjson;
	struct vm_host *host;
	struct kernel_info *kernels;
	struct image img;
	char *stage;
	struct accel_choice accel;
	struct boot *boots;
	size_t nboots;
	unsigned long seed;
	bool sequential;
	unsigned int failed_iterations;
	const struct boot_opts *bo;	/* runner_boot(): placement of the boot */
	bool from_queue;		/* runner_boot(): the queue owns the run */
	unsigned int attempt;	/* of this run or queue item: names the domains */
	bool defer_builds;	/* runner_create(): source kernels become build requests */
	const char *only_variant;	/* runner_boot(): the one kernel to resolve */
	bool setup_failed;	/* the guest refused the plan (SETUP_ERROR) */
	char **modules;		/* per variant: the workload's .ko, or NULL */
	struct disk_image disk;	/* image.kind debootstrap: the cached base */
	char *disk_base;	/* it, linked into the stage for QEMU */
};

static json_t *kv_json(const struct kvlist *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

static json_t *collectors_json(const struct job *job)
{
	json_t *tp = json_array();

	for (size_t i = 0; i < job->collectors.tracepoints.n; i++)
		json_array_append_new(tp, json_string(job->collectors.tracepoints.v[i]));
	return json_pack("{s:b, s:o}", "enabled", !job->collectors.disabled,
			 "tracepoints", tp);
}

static json_t *job_json(const struct job *job)
{
	json_t *vars = json_array(), *nodes = json_array(), *dist = json_array();
	const struct job_topology *t = &job->topo;

	for (size_t i = 0; i < job->nvariants; i++) {
		const struct job_variant *v = &job->variants[i];
		json_t *thp = json_object();

		if (v->thp_enabled)
			json_object_set_new(thp, "enabled", json_string(v->thp_enabled));
		if (v->thp_defrag)
			json_object_set_new(thp, "defrag", json_string(v->thp_defrag));
		json_array_append_new(vars, json_pack("{s:s, s:s, s:s?, s:s?, s:o, s:o}",
			"name", v->name,
			"kernel", v->kernel_kind == KERNEL_DISTRO ? "distro" :
				  v->kernel_kind == KERNEL_SOURCE ? "source" : v->kernel_path,
			"ref", v->ref,
			"cmdline", v->cmdline, "sysctl", kv_json(&v->sysctl), "thp", thp));
	}
	for (unsigned int i = 0; i < t->nnodes; i++) {
		json_t *row = json_array();

		json_array_append_new(nodes, json_pack("{s:i, s:I}", "cpus",
			(int)t->nodes[i].cpus, "memory_kib", (json_int_t)t->nodes[i].memory_kib));
		for (unsigned int j = 0; j < t->nnodes; j++)
			json_array_append_new(row, json_integer(t->distances[i * t->nnodes + j]));
		json_array_append_new(dist, row);
	}
	return json_pack("{s:s, s:o, s:{s:o, s:o}, s:{s:s, s:o}, s:i, s:i, s:{s:i, s:i}, s:s, s:o}",
		"name", job->name, "variants", vars,
		"topology", "nodes", nodes, "distances", dist,
		"workload", "name", job->workload.name, "params", kv_json(&job->workload.params),
		"iterations", (int)job->iterations,
		"iterations_per_boot", (int)job->iterations_per_boot,
		"timeouts", "boot_s", (int)job->timeouts.boot_s,
		"iteration_s", (int)job->timeouts.iteration_s,
		"accel", accel_mode_name(job->accel), "collectors", collectors_json(job));
}

static json_t *job_image_json(const struct job *job)
{
	json_t *pk = json_array(), *cf = json_array();

	if (job->image.kind != IMAGE_DEBOOTSTRAP)
		return json_pack("{s:s}", "kind", "initramfs");
	for (size_t i = 0; i < job->image.packages.n; i++)
		json_array_append_new(pk, json_string(job->image.packages.v[i]));
	for (size_t i = 0; i < job->collect_files.n; i++)
		json_array_append_new(cf, json_string(job->collect_files.v[i]));
	return json_pack("{s:s, s:s, s:o, s:I, s:o}", "kind", "debootstrap",
			 "suite", job->image.suite, "packages", pk,
			 "size", (json_int_t)job->image.size_bytes, "collect_files", cf);
}

static void host_cpu(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			c += 1 + strspn(c + 1, " \t");
			c[strcspn(c, "\n")] = '\0';
			snprintf(buf, len, "%s", c);
			break;
		}
	}
	fclose(f);
}

/* ------------------------------------------------------------------ */

static int resolve_accel(struct run *r, enum accel_mode mode, bool reprobe)
{
	char *distro = NULL;
	const char *kernel;
	size_t k = 0;
	int ret;

	if (mode == ACCEL_AUTO)
		lab_info("choosing KVM or TCG (a probe boot unless the verdict is cached)");
	while (k + 1 < r->job->nvariants && !r->kernels[k].path)
		k++;
	kernel = r->kernels[k].path;
	if (!kernel && r->defer_builds) {
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
	ret = probe_accel(r->host, mode, gopts.cache_dir, kernel, &r->img, reprobe, &r->accel);
	free(distro);
	if (ret)
		return -1;
	lab_info("accel: %s (%s)%s", r->accel.accel == DOM_ACCEL_KVM ? "kvm" : "tcg",
		 r->accel.reason, r->accel.cached ? " [cached verdict]" : "");
	return 0;
}

/* ------------------------------------------------------------------ */

static const char *const panic_marks[] = {
	"Kernel panic", "Oops:", "BUG:", "general protection fault",
	"kernel BUG at", "Unable to handle kernel",
};

/* the console lines around the first sign of a crash, or NULL */
static char *crash_excerpt(const char *console)
{
	const char *hit = NULL, *start, *end;
	int lines;

	for (size_t i = 0; i < ARRAY_SIZE(panic_marks); i++) {
		const char *h = strstr(console, panic_marks[i]);

		if (h && (!hit || h < hit))
			hit = h;
	}
	if (!hit)
		return NULL;
	start = hit;
	for (lines = 0; start > console && lines < 6; start--)
		if (start[-1] == '\n')
			lines++;
	end = hit;
	for (lines = 0; *end && lines < 30; end++)
		if (*end == '\n')
			lines++;
	if (end - start > EXCERPT_MAX)
		end = start + EXCERPT_MAX;
	return xstrndup(start, (size_t)(end - start));
}

static char *console_tail(const char *console, size_t max)
{
	size_t len = strlen(console);

	return xstrdup(len > max ? console + len - max : console);
}

static json_t *find_iteration(json_t *agent, unsigned int index)
{
	size_t i;
	json_t *it;

	json_array_foreach(json_object_get(agent, "iterations"), i, it)
		if (json_integer_value(json_object_get(it, "index")) == (json_int_t)index)
			return it;
	return NULL;
}

static json_t *guest_json(json_t *agent)
{
	json_t *hello = json_object_get(agent, "hello");
	json_t *nodes = json_object_get(agent, "nodes");
	const char *rel = json_string_value(json_object_get(hello, "release"));

	return json_pack("{s:s?, s:O?, s:O?}", "kernel_release", rel,
			 "nodes", json_is_array(nodes) ? nodes : NULL,
			 "boot_s", json_object_get(hello, "boot_s"));
}

/* copy the tree under src (regular files and directories) to dst_dir/<basename of src> */
static int copy_tree(const char *src, const char *dst_dir)
{
	const char *argv[] = { "cp", "-r", "--", src, dst_dir, NULL };
	struct spawn_opts o = { .timeout_s = 600 };

	return spawn_run(argv, &o, NULL);
}

/* store one iteration of a finished boot */
static int store_iteration(struct run *r, const struct boot *b, unsigned int index,
			   const struct vm_result *vr, json_t *agent, const char *console,
			   const char *stage_dir, char *status_out, size_t status_len)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	json_t *ait = find_iteration(agent, index);
	char *excerpt = crash_excerpt(console);
	char *dir = store_iteration_path(r->store, r->id, v->name, index);
	const char *status, *why = NULL;
	json_t *it;
	int ret = -1;

	if (ait && json_string_value(json_object_get(ait, "status")) &&
	    json_is_true(json_object_get(ait, "ended"))) {
		status = json_string_value(json_object_get(ait, "status"));
	} else if (vr->outcome == VM_CRASHED || excerpt) {
		status = "crashed";
		why = excerpt ? "the guest kernel crashed (console excerpt stored)"
			      : vr->detail;
	} else if (vr->outcome == VM_TIMEOUT) {
		status = "timeout";
		why = vr->detail;
	} else {
		status = "failed";
		why = ait ? "the workload did not finish its iteration"
			  : "the guest stopped without reporting this iteration";
	}
	it = json_pack("{s:i, s:s, s:o, s:{s:s, s:s, s:f, s:s}}",
		"index", (int)index, "status", status, "guest", guest_json(agent),
		"boot", "domain", json_string_value(json_object_get(agent, "_domain")) ?
			json_string_value(json_object_get(agent, "_domain")) : "",
		"outcome", vm_outcome_name(vr->outcome), "elapsed_s", vr->elapsed_s,
		"detail", vr->detail);
	json_object_set(it, "metrics", ait && json_object_get(ait, "metrics") ?
			json_object_get(ait, "metrics") : json_object());
	if (ait && json_object_get(ait, "timeseries"))
		json_object_set(it, "timeseries", json_object_get(ait, "timeseries"));
	if (ait) {
		json_t *ex = json_object_get(ait, "exit");

		if (ex)
			json_object_set(it, "exit", ex);
		if (json_object_get(ait, "signal"))
			json_object_set(it, "signal", json_object_get(ait, "signal"));
	}
	if (r->bo && r->bo->placement)
		json_object_set(json_object_get(it, "boot"), "placement", r->bo->placement);
	if (why)
		json_object_set_new(it, "reason", json_string(why));
	if (excerpt)
		json_object_set_new(it, "console_excerpt", json_string(excerpt));
	if (strcmp(status, "ok") && !excerpt) {
		char *tail = console_tail(console, 2048);

		json_object_set_new(it, "console_tail", json_string(tail));
		free(tail);
	}
	json_object_set(it, "log", json_object_get(agent, "log") ?
			json_object_get(agent, "log") : json_array());
	json_object_set(it, "stream", json_object_get(agent, "stream") ?
			json_object_get(agent, "stream") : json_object());

	if (mkdir_p(dir, 0755))
		goto out;
	{
		char *src = xasprintf("%s/console.log", stage_dir);
		char *dst = xasprintf("%s/console.log", dir);

		if (path_exists(src))
			copy_file(src, dst, 0644);
		free(src);
		free(dst);
		src = xasprintf("%s/agent.bin", stage_dir);
		dst = xasprintf("%s/agent.bin", dir);
		if (path_exists(src))
			copy_file(src, dst, 0644);
		free(src);
		free(dst);
	}
	if (json_object_get(agent, "_files")) {
		char *src = xasprintf("%s/files", stage_dir);

		int bad;

		json_object_set(it, "files", json_object_get(agent, "_files"));
		bad = is_dir(src) && copy_tree(src, dir);
		free(src);
		if (bad)
			goto out;
	}
	if (ait && agent_save_snapshots(ait, dir))
		goto out;
	ret = store_iteration_write(r->store, r->id, v->name, index, it);
	snprintf(status_out, status_len, "%s", status);
	if (strcmp(status, "ok"))
		r->failed_iterations++;
out:
	json_decref(it);
	free(excerpt);
	free(dir);
	return ret;
}

struct tick_ctx {
	struct progress *pg;
	const char *data_path;
	char *label;
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
	progress_status(tc->pg, "%s: %s %ds (deadline %.0fs)", tc->label,
			stat(tc->data_path, &st) == 0 && st.st_size > 0 ? "agent up," : "booting,",
			tc->last, tc->deadline);
	return VM_TICK_CONTINUE;
}

/* a variant whose kernel failed to build: its iterations, failed, with the log */
static int store_build_failed(struct run *r, const struct boot *b, struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	const struct kernel_info *ki = &r->kernels[b->variant];
	int ret = 0;

	for (unsigned int i = 0; i < b->count; i++) {
		unsigned int idx = b->first + i;
		json_t *it = json_pack("{s:i, s:s, s:s, s:s?, s:o}", "index", (int)idx,
			"status", "failed", "reason", "the kernel build failed",
			"build_log", ki->build_log, "metrics", json_object());
		char *dir = store_iteration_path(r->store, r->id, v->name, idx);

		if (mkdir_p(dir, 0755) || store_iteration_write(r->store, r->id, v->name, idx, it))
			ret = -1;
		r->failed_iterations++;
		progress_step_done(pg, 0, "%s iteration %u: failed (kernel build; log %s)",
				   v->name, idx, ki->build_log ? ki->build_log : "none");
		json_decref(it);
		free(dir);
	}
	return ret;
}

/*
 * A debootstrap image boots from a per-boot overlay of the cached base,
 * through the kernel's own distro initrd when it has one (it loads
 * virtio_blk and ext4, modules in Debian's kernels), else straight from
 * the kernel (which must have them built in).
 */
static int disk_boot_prepare(struct run *r, const struct boot *b, const char *dir,
			     const struct kvlist *plan, char **initrd, char **overlay)
{
	const struct kernel_info *ki = &r->kernels[b->variant];
	char *src = disk_kernel_initrd(ki->path, ki->release);
	char *mods = disk_kernel_modules(ki->path, ki->release);
	struct kvlist extra = { 0 };
	int ret = -1;

	*overlay = xasprintf("%s/disk.qcow2", dir);
	free(*initrd);
	*initrd = NULL;
	if (src) {
		*initrd = xasprintf("%s/initrd", dir);
		if (copy_file(src, *initrd, 0644))
			goto out;
	}
	if (r->modules && r->modules[b->variant]) {
		char *gp = xasprintf("mmlab/modules/%s.ko",
				     wlmodule_for_workload(r->job->workload.name));

		kvlist_set(&extra, gp, r->modules[b->variant]);
		free(gp);
	}
	ret = disk_overlay_prepare(r->disk_base, *overlay, plan, mods, &extra);
out:
	kvlist_free(&extra);
	free(src);
	free(mods);
	return ret;
}

static int prepare_disk(struct run *r)
{
	struct disk_recipe rc = {
		.suite = r->job->image.suite, .packages = &r->job->image.packages,
		.size_bytes = r->job->image.size_bytes,
	};

	if (r->job->image.kind != IMAGE_DEBOOTSTRAP)
		return 0;
	disk_set_tcg(r->accel.accel == DOM_ACCEL_TCG);
	if (disk_image_get(gopts.cache_dir, &rc, &r->disk))
		return -1;
	if (r->disk.built)
		lab_info("built the disk image %s", r->disk.path);
	/* the cache may sit where QEMU's user cannot go (~root): link or copy */
	r->disk_base = xasprintf("%s/base.qcow2", r->stage);
	if (link(r->disk.path, r->disk_base) && copy_file(r->disk.path, r->disk_base, 0644))
		return -1;
	return 0;
}

static int run_boot(struct run *r, const struct boot *b, struct progress *pg)
{
	const struct job *job = r->job;
	const struct job_variant *v = &job->variants[b->variant];
	char *dir = xasprintf("%s/%s-%u", r->stage, v->name, b->first);
	char *initrd = xasprintf("%s/initrd", dir);
	char *console_path = xasprintf("%s/console.log", dir);
	char *data_path = xasprintf("%s/agent.bin", dir);
	char *kernel = xasprintf("%s/kernel-%zu", r->stage, b->variant);
	char *base = xasprintf("mmlab-%s-%s-%u", r->id, v->name, b->first);
	char *name = xasprintf("%s%c%u", base, VM_ATTEMPT_SEP, r->attempt ? r->attempt : 1);
	char *cmdline = xasprintf("console=ttyS0,115200 panic=-1 %s%s%s",
				  r->disk_base ? "root=/dev/vda1 rw init=/" DISK_AGENT_PATH :
				  "rdinit=/init", v->cmdline ? " " : "", v->cmdline ? v->cmdline : "");
	char *overlay = NULL;
	struct kvlist plan = { 0 };
	struct vm_result vr = { 0 };
	struct domain_spec spec = {
		.name = name, .topo = &job->topo, .accel = r->accel.accel,
		.kernel = kernel, .initrd = initrd, .cmdline = cmdline,
		.console_path = console_path, .data_path = data_path,
	};
	char *xml = NULL, *data = NULL, *console = NULL;
	json_t *agent = NULL;
	double deadline = job->timeouts.boot_s + (double)job->timeouts.iteration_s * b->count;
	size_t dlen = 0;
	int ret = -1;

	if (r->bo) {
		spec.cpuset = r->bo->cpuset;
		spec.vcpu_pins = r->bo->vcpu_pins;
		spec.memnodes = r->bo->memnodes;
	}
	if (mkdir_p(dir, 0755))
		goto out;
	guest_plan(&plan, r->id, job, v, b->first, b->count);
	if (r->disk_base) {
		progress_status(pg, "%s iteration %u%s: preparing the guest disk", v->name,
				b->first, b->count > 1 ? "+" : "");
		if (disk_boot_prepare(r, b, dir, &plan, &initrd, &overlay))
			goto out;
		spec.initrd = initrd;
		spec.disk_path = overlay;
	} else if (r->modules && r->modules[b->variant]) {
		struct kvlist extra = { 0 };
		char *gp = xasprintf("mmlab/modules/%s.ko", wlmodule_for_workload(job->workload.name));
		int bad;

		kvlist_set(&extra, gp, r->modules[b->variant]);
		bad = image_boot_initrd_extra(r->img.path, &plan, &extra, initrd);
		kvlist_free(&extra);
		free(gp);
		if (bad)
			goto out;
	} else if (image_boot_initrd(r->img.path, &plan, initrd)) {
		goto out;
	}
	xml = topology_domain_xml(&spec);
	if (!xml)
		goto out;
	struct tick_ctx tc = {
		.pg = pg, .data_path = data_path, .deadline = deadline, .last = -1,
		.label = xasprintf("%s iteration %u%s (%s)", v->name, b->first,
				   b->count > 1 ? "+" : "", r->kernels[b->variant].release),
	};

	progress_status(pg, "%s: booting", tc.label);
	/*
	 * A killed earlier attempt (kill -9 of the runner, a requeued queue
	 * item) may leave its domain while libvirt tears it down: ours has
	 * another name, and theirs must not run beside ours.
	 */
	if (vm_ensure_connected(r->host) ||
	    vm_clear_attempts(r->host, base, ATTEMPT_CLEAR_S) < 0) {
		free(tc.label);
		goto out;
	}
	vm_set_tick(r->host, boot_tick, &tc);
	/* the outcome says it all; -1 is only VM_ERROR */
	vm_run(r->host, xml, deadline, &vr);
	vm_set_tick(r->host, NULL, NULL);
	free(tc.label);
	if (vr.outcome == VM_ERROR) {
		lab_err("variant '%s' iteration %u: the domain did not start: %s", v->name,
			b->first, vr.detail);
		goto out;
	}
	if (vr.outcome == VM_INTERRUPTED) {
		ret = 1;
		goto out;
	}
	if (path_exists(data_path))
		data = read_file(data_path, &dlen, AGENT_DATA_MAX);
	agent = agent_parse_stream(data ? data : "", data ? dlen : 0, job->workload.name);
	json_object_set_new(agent, "_domain", json_string(name));
	if (json_object_get(agent, "setup_error")) {
		json_t *se = json_object_get(agent, "setup_error");

		lab_err("variant '%s': the guest could not set up its %s: %s; fix the job and run it again",
			v->name, json_string_value(json_object_get(se, "what")),
			json_string_value(json_object_get(se, "message")));
		r->setup_failed = true;
		goto out;
	}
	if (overlay && job->collect_files.n) {
		json_t *files;

		progress_status(pg, "%s iteration %u: collecting files", v->name, b->first);
		files = disk_collect(overlay, &job->collect_files, dir);
		json_object_set_new(agent, "_files", files ? files : json_pack("{s:s}",
				    "error", "the guest disk could not be read"));
	}
	console = path_exists(console_path) ? read_file(console_path, NULL, CONSOLE_MAX) : NULL;
	if (!console)
		console = xstrdup("");
	ret = 0;
	for (unsigned int i = 0; i < b->count; i++) {
		unsigned int idx = b->first + i;
		char st[16] = "?";

		if (store_iteration(r, b, idx, &vr, agent, console, dir, st, sizeof(st)))
			ret = -1;
		progress_step_done(pg, vr.elapsed_s / b->count, "%s iteration %u: %s",
				   v->name, idx, st);
	}
out:
	kvlist_free(&plan);
	json_decref(agent);
	free(xml);
	free(data);
	free(console);
	stage_done(dir);
	free(dir);
	free(initrd);
	free(console_path);
	free(data_path);
	free(kernel);
	free(base);
	free(name);
	free(cmdline);
	free(overlay);
	return ret;
}

/* ------------------------------------------------------------------ */

static void shuffle_boots(struct boot *boots, size_t n, unsigned long seed)
{
	size_t *perm = xcalloc(n ? n : 1, sizeof(*perm));
	struct boot *copy = xcalloc(n ? n : 1, sizeof(*copy));

	order_permute(perm, n, seed);
	for (size_t i = 0; i < n; i++)
		copy[i] = boots[perm[i]];
	memcpy(boots, copy, n * sizeof(*boots));
	free(copy);
	free(perm);
}

static void plan_boots(struct run *r)
{
	const struct job *job = r->job;
	unsigned int per = job->iterations_per_boot ? job->iterations_per_boot : 1;
	size_t n = 0;

	r->boots = xcalloc(job->nvariants * (job->iterations / per + 1), sizeof(*r->boots));
	/* sequential: variant by variant; interleaved: iteration-major, then shuffled */
	for (unsigned int first = 0; first < job->iterations; first += per) {
		for (size_t v = 0; v < job->nvariants; v++) {
			struct boot *b = &r->boots[n++];

			b->variant = v;
			b->first = first;
			b->count = job->iterations - first < per ? job->iterations - first : per;
		}
	}
	r->nboots = n;
	if (r->sequential) {
		/* stable reorder by variant */
		struct boot *s = xcalloc(n, sizeof(*s));
		size_t k = 0;

		for (size_t v = 0; v < job->nvariants; v++)
			for (size_t i = 0; i < n; i++)
				if (r->boots[i].variant == v)
					s[k++] = r->boots[i];
		free(r->boots);
		r->boots = s;
		return;
	}
	/* Fisher-Yates with GSL's MT19937, seeded and recorded in the run */
	shuffle_boots(r->boots, n, r->seed);
}

/* "variant/i", or "variant/i..j" for a boot running iterations i to j */
static json_t *boot_label(const struct run *r, const struct boot *b)
{
	const char *name = r->job->variants[b->variant].name;
	char *s = b->count > 1 ? xasprintf("%s/%u..%u", name, b->first,
					   b->first + b->count - 1)
			       : xasprintf("%s/%u", name, b->first);
	json_t *j = json_string(s);

	free(s);
	return j;
}

/* order.sequence in run.json: the boots in the order they run */
static void record_order(struct run *r, size_t from)
{
	json_t *order = json_object_get(r->runjson, "order");
	json_t *seq = json_object_get(order, "sequence");

	if (!json_is_object(order))
		return;
	if (!seq) {
		seq = json_array();
		json_object_set_new(order, "sequence", seq);
	} else if (!from) {
		return;		/* resumed: the order it started with stays */
	}
	for (size_t i = from; i < r->nboots; i++)
		json_array_append_new(seq, boot_label(r, &r->boots[i]));
}

static bool boot_done(struct run *r, const struct boot *b)
{
	const char *name = r->job->variants[b->variant].name;

	for (unsigned int i = 0; i < b->count; i++)
		if (!store_iteration_done(r->store, r->id, name, b->first + i))
			return false;
	return true;
}

/*
 * The observer check: every variant gets a twin "<name>.nocollect" that
 * boots the same kernel with the same settings but counts no tracepoint;
 * the run summary compares their workload times.
 */
static void add_observer_twins(struct job *job)
{
	size_t n = job->nvariants;

	job->variants = xrealloc(job->variants, 2 * n * sizeof(*job->variants));
	for (size_t i = 0; i < n; i++) {
		struct job_variant *t = &job->variants[n + i];

		variant_dup(t, &job->variants[i]);
		free(t->name);
		t->name = xasprintf("%s.nocollect", job->variants[i].name);
		t->no_tracepoints = true;
	}
	job->nvariants = 2 * n;
}

static int load_resume(struct run *r, const char *run_arg)
{
	json_t *rj;
	const char *file, *dir;
	char *copy, *buf;
	json_int_t n;
	size_t len;

	r->id = store_run_resolve(r->store, run_arg);
	if (!r->id)
		return EXIT_USAGE;
	rj = store_run_read(r->store, r->id);
	if (!rj)
		return EXIT_USAGE;
	if (!r->from_queue && !strcmp(store_effective_status(rj), "running")) {
		lab_err("run %s is still running (pid %lld); wait for it or stop it first",
			r->id, (long long)json_integer_value(json_object_get(rj, "pid")));
		json_decref(rj);
		return EXIT_USAGE;
	}
	file = json_string_value(json_object_get(rj, "job_file"));
	dir = json_string_value(json_object_get(rj, "job_dir"));
	copy = xasprintf("%s/%s/job.yaml", store_dir(r->store), r->id);
	buf = read_file(copy, &len, 1u << 20);
	if (!buf || job_load_buffer(file ? file : copy, buf, len, dir ? dir : ".", &r->job)) {
		free(buf);
		free(copy);
		json_decref(rj);
		return EXIT_USAGE;
	}
	free(buf);
	free(copy);
	if (json_is_true(json_object_get(rj, "observer_check")))
		add_observer_twins(r->job);
	r->seed = (unsigned long)json_integer_value(
		json_object_get(json_object_get(rj, "order"), "seed"));
	r->sequential = !strcmp(json_string_value(json_object_get(
		json_object_get(rj, "order"), "mode")) ?: "", "sequential");
	r->runjson = rj;
	/* iterations --until-significant added before the run was interrupted */
	n = json_integer_value(json_object_get(json_object_get(rj, "until_significant"),
					       "iterations"));
	if (n > (json_int_t)r->job->iterations && n <= 1000000)
		r->job->iterations = (unsigned int)n;
	return 0;
}

static int resolve_kernels(struct run *r)
{
	json_t *stored = r->runjson ? json_object_get(r->runjson, "variants") : NULL;

	r->kernels = xcalloc(r->job->nvariants, sizeof(*r->kernels));
	for (size_t i = 0; i < r->job->nvariants; i++) {
		json_t *rec = json_object_get(json_array_get(stored, i), "kernel");
		const char *was = json_string_value(json_object_get(rec, "sha256"));

		if (r->only_variant && strcmp(r->job->variants[i].name, r->only_variant))
			continue;	/* another item's kernel, maybe still building */

		if (r->defer_builds) {
			int rc = kernel_request_job(r->job, i, &r->kernels[i]);

			if (rc < 0)
				return -1;
			if (rc == 0)
				continue;	/* the queue builds it */
		}
		if (r->from_queue && json_is_true(json_object_get(rec, "build_failed"))) {
			/* the queue's build item failed: no second try here */
			r->kernels[i].build_failed = true;
			r->kernels[i].build_log = xstrdup(json_string_value(json_object_get(
				rec, "build_log")) ?: "");
			continue;
		}
		/* the queue built it for this run: boot exactly that image */
		if (r->from_queue && json_object_get(rec, "cache_key") &&
		    kernel_info_from_json(rec, &r->kernels[i]) == 0)
			continue;
		if (kernel_resolve_job(r->job, i, gopts.cache_dir, &r->kernels[i])) {
			if (!r->kernels[i].build_failed)
				return -1;
			lab_warn("variant '%s': no kernel (the build failed); its iterations are "
				 "recorded as failed and the run goes on with the others",
				 r->job->variants[i].name);
			continue;
		}
		if (was && strcmp(was, r->kernels[i].sha256)) {
			lab_err("variant '%s': the kernel %s changed since run %s started; "
				"start a new run instead of resuming", r->job->variants[i].name,
				r->kernels[i].path, r->id);
			return -1;
		}
	}
	return 0;
}

static json_t *new_runjson(struct run *r)
{
	json_t *vars = json_array();
	char now[TIME_STR_LEN], *bid = host_boot_id();
	json_t *rj;

	time_iso_now(now);
	for (size_t i = 0; i < r->job->nvariants; i++)
		json_array_append_new(vars, json_pack("{s:s, s:o}", "name",
			r->job->variants[i].name, "kernel", kernel_info_json(&r->kernels[i])));
	rj = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:{s:s, s:I}, s:o, s:o}",
		"run", r->id, "job", r->job->name, "status", "running", "created", now,
		"job_file", r->job->path, "job_dir", r->job->dir,
		"pid", (json_int_t)getpid(), "host_boot_id", bid,
		"order", "mode", r->sequential ? "sequential" : "random",
		"seed", (json_int_t)r->seed,
		"job_resolved", job_json(r->job), "variants", vars);
	json_object_set_new(json_object_get(rj, "job_resolved"), "image", job_image_json(r->job));
	free(bid);
	return rj;
}

static int stage_kernels(struct run *r)
{
	for (size_t i = 0; i < r->job->nvariants; i++) {
		char *dst = xasprintf("%s/kernel-%zu", r->stage, i);
		int ret = !r->kernels[i].path ? 0 : copy_file(r->kernels[i].path, dst, 0644);

		free(dst);
		if (ret)
			return -1;
	}
	return 0;
}

static json_t *host_json(struct run *r)
{
	json_t *h = vm_host_facts(r->host);
	struct utsname u;
	char cpu[256];

	if (!h)
		h = json_object();
	host_cpu(cpu, sizeof(cpu));
	json_object_set_new(h, "accel", json_string(r->accel.accel == DOM_ACCEL_KVM ?
						    "kvm" : "tcg"));
	json_object_set_new(h, "accel_reason", json_string(r->accel.reason));
	json_object_set_new(h, "cpu", json_string(cpu));
	json_object_set_new(h, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	if (uname(&u) == 0)
		json_object_set_new(h, "kernel", json_string(u.release));
	json_object_set_new(h, "image", json_string(r->img.hash));
	if (r->disk.path)
		json_object_set_new(h, "disk_image", json_string(r->disk.hash));
	return h;
}

static int write_status(struct run *r, const char *status)
{
	char now[TIME_STR_LEN];

	json_object_set_new(r->runjson, "status", json_string(status));
	if (strcmp(status, "running")) {
		time_iso_now(now);
		json_object_set_new(r->runjson, "finished", json_string(now));
	} else {
		char *bid = host_boot_id();

		json_object_set_new(r->runjson, "pid", json_integer(getpid()));
		json_object_set_new(r->runjson, "host_boot_id", json_string(bid));
		free(bid);
	}
	return store_run_write(r->store, r->id, r->runjson);
}

/* the workload's kernel module: is there a tree to build it against? */
static int check_modules(struct run *r)
{
	const char *mod = wlmodule_for_workload(r->job->workload.name);

	for (size_t i = 0; mod && i < r->job->nvariants; i++) {
		const struct kernel_info *ki = &r->kernels[i];
		char *kdir;

		if (ki->build_failed)
			continue;
		kdir = wlmodule_build_dir(ki->path, ki->release);
		if (kdir) {
			free(kdir);
		} else if (ki->cache_key) {
			lab_err("variant '%s': cannot run %s on its kernel %s: it was built "
				"without loadable modules; add CONFIG_MODULES=y to the job's "
				"config fragments (kernels/lab.config has it)",
				r->job->variants[i].name, r->job->workload.name, ki->cache_key);
			return -1;
		} else {
			lab_err("variant '%s': cannot run %s on this kernel: no build tree or headers for %s; install linux-headers-%s (Debian) or set MMLAB_KBUILD_DIR to the kernel's build directory",
				r->job->variants[i].name, r->job->workload.name,
				ki->release, ki->release);
			return -1;
		}
	}
	return 0;
}

static int build_modules(struct run *r)
{
	const char *mod = wlmodule_for_workload(r->job->workload.name);

	if (!mod)
		return 0;
	r->modules = xcalloc(r->job->nvariants, sizeof(*r->modules));
	for (size_t i = 0; i < r->job->nvariants; i++) {
		const struct kernel_info *ki = &r->kernels[i];
		char *dir;

		if (ki->build_failed)
			continue;
		dir = xasprintf("%s/modules-%zu", r->stage, i);
		r->modules[i] = wlmodule_build(mod, ki->path, ki->release, dir);
		free(dir);
		if (!r->modules[i])
			return -1;
	}
	return 0;
}

static void run_free(struct run *r)
{
	for (size_t i = 0; r->modules && i < r->job->nvariants; i++)
		free(r->modules[i]);
	free(r->modules);
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
	json_decref(r->runjson);
	job_free(r->job);
	free(r->boots);
	free(r->id);
}

static int run_boots(struct run *r)
{
	struct progress pg;
	unsigned int todo = 0;

	for (size_t i = 0; i < r->nboots; i++)
		if (!boot_done(r, &r->boots[i]))
			todo += r->boots[i].count;
	progress_init(&pg, todo);
	lab_info("run %s: %u iteration%s to run (%zu variant%s, order %s)", r->id, todo,
		 todo == 1 ? "" : "s", r->job->nvariants, r->job->nvariants == 1 ? "" : "s",
		 r->sequential ? "sequential" : "random");
	for (size_t i = 0; i < r->nboots && !interrupted && !r->setup_failed; i++) {
		if (boot_done(r, &r->boots[i]))
			continue;
		if (r->kernels[r->boots[i].variant].build_failed) {
			store_build_failed(r, &r->boots[i], &pg);
			continue;
		}
		if (run_boot(r, &r->boots[i], &pg) < 0 && !interrupted)
			r->failed_iterations += r->boots[i].count;
	}
	progress_clear(&pg);
	return interrupted ? -1 : 0;
}

/* add one boot of one iteration per variant, shuffled with seed + round */
static void add_round(struct run *r, unsigned int round)
{
	size_t nv = r->job->nvariants, from = r->nboots;

	r->boots = xrealloc(r->boots, (r->nboots + nv) * sizeof(*r->boots));
	for (size_t v = 0; v < nv; v++)
		r->boots[r->nboots++] = (struct boot){ .variant = v,
			.first = r->job->iterations, .count = 1 };
	if (!r->sequential)
		shuffle_boots(r->boots + from, nv, r->seed + round);
	r->job->iterations++;
	record_order(r, from);
}

static void say_precision(json_t *us, double target)
{
	json_t *w = json_object_get(us, "worst");
	json_t *hw = json_object_get(w, "halfwidth_rel");

	if (!w)
		return;
	lab_info("precision after %d iteration%s per variant: worst %s in %s "
		 "+-%s%.2f%% (target %.2f%%)",
		 (int)json_integer_value(json_object_get(us, "iterations")),
		 json_integer_value(json_object_get(us, "iterations")) == 1 ? "" : "s",
		 json_string_value(json_object_get(w, "metric")),
		 json_string_value(json_object_get(w, "variant")),
		 json_is_real(hw) ? "" : "inf",
		 json_is_real(hw) ? 100 * json_real_value(hw) : 0.0, 100 * target);
}

/*
 * --until-significant: check the stored iterations, add a round, repeat.
 * The state after every check goes to run.json "until_significant", so an
 * interrupted run can be resumed with its extra iterations.
 */
static int until_significant(struct run *r, const struct run_opts *o)
{
	struct precision_opts po = { .globs = o->metrics, .precision = o->precision,
				     .conf = 0.95 };
	json_t *us = json_pack("{s:f, s:i, s:s, s:f}", "precision", o->precision,
			       "max_iterations", (int)o->max_iterations, "metrics",
			       o->metrics ? o->metrics : PRECISION_DEFAULT_METRICS,
			       "confidence", po.conf);
	unsigned int round = 0;
	bool no_metric = false;
	int ret = 0;

	json_object_set_new(r->runjson, "until_significant", us);
	for (;;) {
		json_t *run = store_load_run(r->store, r->id), *detail = NULL;
		int rc = run ? precision_check(run, &po, &detail) : -1;
		const char *stop = NULL;

		json_decref(run);
		json_object_set_new(us, "iterations", json_integer(r->job->iterations));
		json_object_set_new(us, "rounds", json_integer(round));
		json_object_set_new(us, "reached", json_boolean(rc == 1));
		json_object_del(us, "worst");
		if (detail && json_object_get(detail, "worst"))
			json_object_set(us, "worst", json_object_get(detail, "worst"));
		json_object_set(us, "metrics_detail", detail ? json_object_get(detail,
				"metrics") : json_array());
		json_decref(detail);
		no_metric = rc < 0;
		if (rc < 0)
			stop = "no target metric in any ok iteration";
		else if (rc == 1)
			stop = "precision reached";
		else if (r->job->iterations >= o->max_iterations)
			stop = "max_iterations reached";
		else if (interrupted)
			stop = "interrupted";
		json_object_set_new(us, "stopped", stop ? json_string(stop) : json_null());
		say_precision(us, o->precision);
		if (store_run_write(r->store, r->id, r->runjson))
			return -1;
		if (stop)
			break;
		add_round(r, ++round);
		if (run_boots(r)) {
			ret = -1;
			break;
		}
	}
	if (no_metric)
		lab_err("--until-significant: no metric matches '%s' in run %s; name "
			"metrics it has with --metrics (see 'mmlab results show %s')",
			json_string_value(json_object_get(us, "metrics")), r->id, r->id);
	return ret;
}

static int load_new(struct run *r, const struct run_opts *o)
{
	if (o->job) {
		r->job = o->job;
	} else if (job_load(o->job_path, &r->job)) {
		return EXIT_USAGE;
	}
	if (o->observer_check)
		add_observer_twins(r->job);
	r->sequential = o->sequential;
	r->seed = o->seeded ? o->seed
			    : (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	return 0;
}

static enum accel_mode pick_accel(struct run *r, const struct run_opts *o)
{
	enum accel_mode mode = r->job->accel;
	const char *was;

	if (o->accel)
		mode = !strcmp(o->accel, "kvm") ? ACCEL_KVM :
		       !strcmp(o->accel, "tcg") ? ACCEL_TCG : ACCEL_AUTO;
	if (!o->resume)
		return mode;
	/* a resumed run measures under the accel it started with */
	was = json_string_value(json_object_get(json_object_get(r->runjson, "host"), "accel"));
	if (was)
		mode = !strcmp(was, "kvm") ? ACCEL_KVM : ACCEL_TCG;
	return mode;
}

static int create_run(struct run *r)
{
	char *copy, *text;
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
	if (!ret)
		r->runjson = new_runjson(r);
	return ret;
}

int runner_run(struct store *s, const struct run_opts *o, struct run_result *res)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct run r = { .store = s };
	enum accel_mode mode;
	int ret = EXIT_RUN_FAILED;

	memset(res, 0, sizeof(*res));
	interrupted = 0;
	ret = o->resume ? load_resume(&r, o->resume) : load_new(&r, o);
	if (ret) {
		run_free(&r);
		return ret;
	}
	ret = EXIT_RUN_FAILED;
	mode = pick_accel(&r, o);
	if (resolve_kernels(&r) || check_modules(&r)) {
		run_free(&r);
		return EXIT_USAGE;
	}
	if (image_initramfs(gopts.cache_dir, &r.img))
		goto out;
	if (r.img.built)
		lab_info("built the guest image %s", r.img.path);
	r.host = vm_connect(gopts.connect_uri);
	if (!r.host)
		goto out;
	if (!o->resume && create_run(&r))
		goto out;
	if (o->observer_check)
		json_object_set_new(r.runjson, "observer_check", json_true());
	r.stage = stage_create();
	if (!r.stage || stage_kernels(&r) || build_modules(&r) ||
	    resolve_accel(&r, mode, o->reprobe) || prepare_disk(&r))
		goto out;
	json_object_set_new(r.runjson, "host", host_json(&r));
	/* a resumed run's domains must not take the names of the killed one's */
	r.attempt = (unsigned int)json_integer_value(json_object_get(r.runjson, "attempt"));
	r.attempt = o->resume ? (r.attempt ? r.attempt : 1) + 1 : 1;
	json_object_set_new(r.runjson, "attempt", json_integer(r.attempt));
	if (write_status(&r, "running"))
		goto out;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	plan_boots(&r);
	record_order(&r, 0);
	if (run_boots(&r) || (o->until_significant && until_significant(&r, o))) {
		write_status(&r, "incomplete");
		res->interrupted = true;
		lab_err("run %s interrupted; 'mmlab run --resume %s' finishes it", r.id, r.id);
	} else if (r.setup_failed) {
		ret = EXIT_USAGE;
		write_status(&r, "failed");
	} else if (!write_status(&r, "complete")) {
		ret = r.failed_iterations ? EXIT_RUN_FAILED : 0;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	if (ret == EXIT_RUN_FAILED && r.runjson && r.id && !interrupted &&
	    !strcmp(json_string_value(json_object_get(r.runjson, "status")) ?: "", "running"))
		write_status(&r, "failed");
	res->failed_iterations = r.failed_iterations;
	res->run_id = r.id ? xstrdup(r.id) : NULL;
	run_free(&r);
	return ret;
}

void run_result_release(struct run_result *res)
{
	free(res->run_id);
	res->run_id = NULL;
}

/* ------------------------------------------------------------------ */
/* the queue's entry points (lab/batch/queue.c): create now, boot item by item */

static json_t *boots_json(const struct run *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nboots; i++) {
		const struct kernel_info *ki = &r->kernels[r->boots[i].variant];

		json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:s?}", "variant",
			r->job->variants[r->boots[i].variant].name,
			"first", (int)r->boots[i].first, "count", (int)r->boots[i].count,
			"build", ki->build_pending ? ki->request : NULL));
	}
	return a;
}

int runner_create(struct store *s, const struct run_opts *o, char **run_id)
{
	struct run r = { .store = s, .defer_builds = o->defer_builds };
	enum accel_mode mode;
	int ret;

	*run_id = NULL;
	ret = load_new(&r, o);
	if (ret) {
		run_free(&r);
		return ret;
	}
	mode = pick_accel(&r, o);
	if (resolve_kernels(&r)) {
		run_free(&r);
		return EXIT_USAGE;
	}
	ret = EXIT_RUN_FAILED;
	if (image_initramfs(gopts.cache_dir, &r.img))
		goto out;
	r.host = vm_connect(gopts.connect_uri);
	if (!r.host || resolve_accel(&r, mode, o->reprobe) || create_run(&r))
		goto out;
	json_object_set_new(r.runjson, "host", host_json(&r));
	plan_boots(&r);
	json_object_set_new(r.runjson, "boots", boots_json(&r));
	json_object_del(r.runjson, "pid");
	if (write_status(&r, "queued"))
		goto out;
	*run_id = xstrdup(r.id);
	ret = 0;
out:
	run_free(&r);
	return ret;
}

int runner_boot(struct store *s, const char *run_id, const char *variant,
		unsigned int first, const struct boot_opts *bo)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct run_opts o = { .resume = run_id };
	struct run r = { .store = s, .bo = bo, .from_queue = true, .only_variant = variant,
			 .attempt = bo && bo->attempt ? bo->attempt : 1 };
	struct boot b = { .first = first };
	struct progress pg;
	json_t *it;
	size_t i;
	int ret;

	interrupted = 0;
	ret = load_resume(&r, run_id);
	if (ret) {
		run_free(&r);
		return ret;
	}
	ret = EXIT_USAGE;
	for (b.variant = 0; b.variant < r.job->nvariants; b.variant++)
		if (!strcmp(r.job->variants[b.variant].name, variant))
			break;
	json_array_foreach(json_object_get(r.runjson, "boots"), i, it)
		if (!strcmp(json_string_value(json_object_get(it, "variant")) ?: "", variant) &&
		    json_integer_value(json_object_get(it, "first")) == first)
			b.count = (unsigned int)json_integer_value(json_object_get(it, "count"));
	if (b.variant == r.job->nvariants || !b.count) {
		lab_err("run %s has no boot of variant '%s' at iteration %u; see 'mmlab results "
			"show %s'", r.id, variant, first, r.id);
		goto out;
	}
	if (boot_done(&r, &b)) {
		ret = 0;
		goto out;
	}
	if (resolve_kernels(&r))
		goto out;
	if (!r.kernels[b.variant].path) {
		lab_err("variant '%s' of run %s has no kernel: its build failed (log %s)",
			variant, r.id, r.kernels[b.variant].build_log ?: "none");
		ret = EXIT_RUN_FAILED;
		goto out;
	}
	ret = EXIT_RUN_FAILED;
	if (image_initramfs(gopts.cache_dir, &r.img))
		goto out;
	r.host = vm_connect(gopts.connect_uri);
	r.stage = r.host ? stage_create() : NULL;
	if (!r.stage || stage_kernels(&r) || resolve_accel(&r, pick_accel(&r, &o), false))
		goto out;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	progress_init(&pg, b.count);
	if (run_boot(&r, &b, &pg) < 0 && !interrupted)
		r.failed_iterations += b.count;
	progress_clear(&pg);
	ret = interrupted ? 3 : r.failed_iterations ? EXIT_RUN_FAILED : 0;
out:
	run_free(&r);
	return ret;
}
