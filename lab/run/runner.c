// SPDX-License-Identifier: GPL-2.0
/*
 * runner.c - execute a job into the results store: boot every variant of
 * the job on its NUMA guest, run the workload, store each iteration as it
 * finishes. "mmlab run" is its command line (cmd-run.c); the queue creates
 * runs and boots them item by item; bisect and repro run jobs.
 *
 * The flow (docs/architecture.md, "The flow of one run"): parse and validate the job;
 * resolve each variant's kernel; find or build the initramfs; connect to
 * libvirt and decide KVM or TCG (setup.c); then for each boot, in a seeded
 * random order across variants (schedule.c), stage it, run its domain to
 * poweroff, crash or deadline, collect what the agent sent on ttyS1 and
 * store its iterations (boot.c, record.c). An interrupted run is left
 * "incomplete" and "mmlab run --resume RUN" finishes it.
 *
 * This file holds the entry points: which steps each takes, in which
 * order, and the status of the run they leave. What differs between them
 * is a struct run_spec (run.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/progress.h"
#include "lib/util.h"
#include "run/run.h"
#include "run/runner.h"

/* the runner's options need the places the command layer knows */
static bool spec_ok(const struct run_spec *spec)
{
	if (spec->cache_dir)
		return true;
	lab_err("the runner was called without a cache directory (run_opts.cache_dir or "
		"boot_opts.cache_dir); this is a bug in the calling command");
	return false;
}

/* ------------------------------------------------------------------ */

/* a new run created, or one to resume loaded, and set up: status "running" */
static int run_start(struct run *r, const struct run_opts *o)
{
	if (!o->resume && run_create_record(r))
		return -1;
	if (o->observer_check)
		r->rec.observer_check = true;
	if (run_prepare(r))
		return -1;
	run_record_host(r);
	/* a resumed run's domains must not take the names of the killed one's */
	r->attempt = o->resume ? (r->rec.attempt ? r->rec.attempt : 1) + 1 : 1;
	r->rec.attempt = r->attempt;
	return run_write_status(r, "running");
}

/* the boots of the plan whose iterations are not all stored */
static size_t boots_not_stored(struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nboots; i++)
		n += !run_boot_done(r, &r->boots[i]);
	return n;
}

/* the boots, then the status they leave */
static enum run_outcome run_measure(struct run *r, const struct run_opts *o, struct run_result *res)
{
	struct run_signals sig;
	enum run_outcome ret = RUN_FAILED;
	size_t missing;

	run_signals_catch(&sig);
	run_plan_boots(r);
	run_record_order(r, 0);
	if (run_boots(r) || (o->until_significant && run_until_significant(r, o))) {
		run_write_status(r, "incomplete");
		res->interrupted = true;
		lab_err("run %s interrupted; 'mmlab run --resume %s' finishes it", r->id, r->id);
	} else if (!r->setup_failed && (missing = boots_not_stored(r))) {
		/* not complete: a boot whose iterations could not be stored (a full store) */
		run_write_status(r, "incomplete");
		lab_err("run %s: %zu boot%s not stored (above); 'mmlab run --resume %s' measures "
			"%s again",
			r->id, missing, missing == 1 ? "" : "s", r->id,
			missing == 1 ? "it" : "them");
	} else if (r->setup_failed) {
		ret = RUN_BAD_INPUT;
		run_write_status(r, "failed");
	} else if (!run_write_status(r, "complete")) {
		ret = r->failed_iterations ? RUN_FAILED : RUN_OK;
	}
	run_signals_restore(&sig);
	return ret;
}

enum run_outcome runner_run(struct store *s, const struct run_opts *o, struct run_result *res)
{
	struct run_spec spec = {
		.cache_dir = o->cache_dir,
		.connect_uri = o->connect_uri,
		.accel = o->accel,
		.reprobe = o->reprobe,
		.kernels = RUN_KERNELS_RESOLVE,
		.boots = true,
	};
	struct run r = { .spec = &spec, .store = s };
	enum run_outcome ret;

	memset(res, 0, sizeof(*res));
	run_interrupt_reset();
	if (!spec_ok(&spec))
		return RUN_BAD_INPUT;
	if ((o->resume ? run_load_resume(&r, o->resume) : run_load_new(&r, o)) ||
	    run_workload(&r)->prepare(&r) || run_resolve_kernels(&r) || run_check_modules(&r)) {
		run_free(&r);
		return RUN_BAD_INPUT;
	}
	ret = RUN_FAILED;
	if (!run_connect(&r) && !run_start(&r, o))
		ret = run_measure(&r, o, res);
	if (ret == RUN_FAILED && r.id && !run_interrupted() && r.rec.status &&
	    !strcmp(r.rec.status, "running"))
		run_write_status(&r, "failed");
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

enum run_outcome runner_create(struct store *s, const struct run_opts *o, char **run_id)
{
	struct run_spec spec = {
		.cache_dir = o->cache_dir,
		.connect_uri = o->connect_uri,
		.accel = o->accel,
		.reprobe = o->reprobe,
		.kernels = o->defer_builds ? RUN_KERNELS_REQUEST : RUN_KERNELS_RESOLVE,
	};
	struct run r = { .spec = &spec, .store = s };
	enum run_outcome ret;

	*run_id = NULL;
	if (!spec_ok(&spec))
		return RUN_BAD_INPUT;
	if (run_load_new(&r, o) || run_workload(&r)->prepare(&r) || run_resolve_kernels(&r)) {
		run_free(&r);
		return RUN_BAD_INPUT;
	}
	ret = RUN_FAILED;
	if (run_connect(&r) || run_prepare(&r) || run_create_record(&r))
		goto out;
	run_record_host(&r);
	run_plan_boots(&r);
	run_record_boots(&r);
	r.rec.pid = 0; /* no process runs it: the queue does, later */
	if (run_write_status(&r, "queued"))
		goto out;
	*run_id = xstrdup(r.id);
	ret = RUN_OK;
out:
	run_free(&r);
	return ret;
}

/* the boot's kernel (and the workload's module for it) */
static enum run_outcome boot_kernel(struct run *r, const struct boot *b)
{
	const struct kernel_info *ki;

	if (run_resolve_kernels(r))
		return RUN_BAD_INPUT;
	ki = &r->kernels[b->variant];
	if (!ki->path) {
		lab_err("variant '%s' of run %s has no kernel: its build failed (log %s)",
			r->job->variants[b->variant].name, r->id,
			ki->build_log ? ki->build_log : "none");
		return RUN_FAILED;
	}
	return run_check_modules(r) ? RUN_BAD_INPUT : RUN_OK;
}

enum run_outcome runner_boot(struct store *s, const char *run_id, const char *variant,
			     unsigned int first, const struct boot_opts *bo)
{
	struct run_spec spec = {
		.cache_dir = bo ? bo->cache_dir : NULL,
		.connect_uri = bo ? bo->connect_uri : NULL,
		.kernels = RUN_KERNELS_RECORDED,
		.variant = variant,
		.boots = true,
		.queued = true,
		.attempt = bo && bo->attempt ? bo->attempt : 1,
		.place = bo,
	};
	struct run r = { .spec = &spec, .store = s, .attempt = spec.attempt };
	struct run_signals sig;
	struct progress pg;
	struct boot b;
	enum run_outcome ret = RUN_BAD_INPUT;

	run_interrupt_reset();
	if (!spec_ok(&spec))
		return RUN_BAD_INPUT;
	if (run_load_resume(&r, run_id) || run_find_boot(&r, variant, first, &b))
		goto out;
	ret = RUN_OK;
	if (run_boot_done(&r, &b))
		goto out;
	ret = run_workload(&r)->prepare(&r) ? RUN_BAD_INPUT : boot_kernel(&r, &b);
	if (ret)
		goto out;
	ret = RUN_FAILED;
	if (run_connect(&r) || run_prepare(&r))
		goto out;
	run_signals_catch(&sig);
	progress_init(&pg, b.count);
	if (run_boot(&r, &b, NULL, &pg) < 0 && !run_interrupted())
		r.failed_iterations += b.count;
	progress_clear(&pg);
	run_signals_restore(&sig);
	ret = run_interrupted() ? RUN_INTERRUPTED : r.failed_iterations ? RUN_FAILED : RUN_OK;
out:
	run_free(&r);
	return ret;
}
