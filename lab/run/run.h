/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run.h - the parts of the runner (lab/run/), shared between its files.
 * runner.h is the runner's interface; this is how it is built:
 *
 *   runner.c    the entry points (runner_run, runner_create, runner_boot):
 *               which steps, in which order, and the run's status
 *   setup.c     set-up, written once: the job and its record, the initramfs,
 *               libvirt, KVM or TCG, the stage, the disk image
 *   kernels.c   each variant's kernel (and the workload's module for it)
 *   schedule.c  the boots of a run, their order, running them; the observer twins
 *   boot.c      one boot: stage -> domain -> watch -> collect -> record
 *   record.c    storing the iterations of a boot (record)
 *   workload.c  the workload kinds' ops (struct workload_ops), the built-in's
 *   mmtests.c   an mmtests workload: the image's packages, the tree, the import
 *   own.c       a command workload: its build and files before the boots,
 *               its plan, its outputs and metrics in each iteration's record
 *   until.c     --until-significant: rounds of boots until precise
 *   stage.c     the staging directories
 *   signals.c   SIGINT and SIGTERM during a run
 *
 * The three entry points differ in what they ask of these steps, and that
 * is data (struct run_spec), not modes of the steps.
 */
#ifndef MMLAB_RUN_RUN_H
#define MMLAB_RUN_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "guest/outputs.h"
#include "guest/plan.h"
#include "guest/records.h"
#include "guest/stream.h"
#include "image/diskimage.h"
#include "image/initramfs.h"
#include "job/job.h"
#include "kernel/kernel.h"
#include "lib/progress.h"
#include "run/runner.h"
#include "store/store.h"
#include "store/run_record.h"
#include "vm/accel.h"
#include "vm/vm.h"

/* how a run gets its variants' kernels */
enum run_kernels {
	RUN_KERNELS_RESOLVE, /* find or build each one now (mmlab run, bisect, repro) */
	RUN_KERNELS_REQUEST, /* source variants become build requests (the queue builds) */
	RUN_KERNELS_RECORDED, /* the kernel the queue's build item recorded in run.json */
};

/* what an entry point asks of the set-up and the boots */
struct run_spec {
	const char *cache_dir; /* kernels, images, the accel verdict */
	const char *connect_uri; /* libvirt (NULL: vm_connect()'s default) */
	const char *accel; /* "auto", "kvm", "tcg"; NULL: the job's. A run
					   that recorded its accel keeps it */
	bool reprobe; /* redo the KVM probe */
	enum run_kernels kernels;
	const char *variant; /* resolve only this variant's kernel (NULL: all) */
	bool boots; /* set up to boot: stage, kernels, modules, disk */
	bool queued; /* the queue owns the run and its status */
	/*
	 * The attempt that names the domains (vm.h): 0 = the run's next
	 * (recorded in run.json "attempt"); N = a queue item's Nth.
	 */
	unsigned int attempt;
	const struct boot_opts *place; /* the queue's placement of the boot, or NULL */
};

/* one boot: iterations first..first+count-1 of a variant */
struct boot {
	size_t variant;
	unsigned int first, count;
};

struct boot_ctx;

struct run {
	const struct run_spec *spec;
	struct store *store; /* the caller's */
	struct job *job;
	char *id; /* the run */
	struct run_record rec; /* its run.json */
	struct kernel_info *kernels; /* per variant */
	char **modules; /* per variant: the workload's .ko, or NULL */
	/*
	 * A command workload's files for every boot, guest path (from /) ->
	 * host path: its files: and built program (own.c). boot.c hands them,
	 * with the module, to the image code in one list.
	 */
	struct kvlist guest_files;
	/* directory trees the same way, guest dir -> host dir: an mmtests checkout (mmtests.c) */
	struct kvlist guest_trees;
	struct image img; /* the initramfs */
	struct vm_host *host;
	struct accel_choice accel;
	char *stage; /* staged kernels, the disk base, the boots' dirs */
	/*
	 * the dirs of earlier boots, by their domain's name: libvirt may still
	 * be tearing the domain down, and restores its files' owners when it is
	 * done (vm_gone()), so a dir goes at a later boot or at run_free():
	 * run_drop_boot_dirs()
	 */
	struct kvlist boot_dirs;
	/* the next boot, made ready during the one before (run_boot()) */
	struct boot_ctx *next;
	struct disk_image disk; /* image.kind debootstrap: the cached base */
	char *disk_base; /* it, linked into the stage for QEMU */
	unsigned int attempt; /* names the domains */
	struct boot *boots; /* in run order */
	size_t nboots;
	unsigned int failed_iterations;
	bool setup_failed; /* the guest refused the plan (SETUP_ERROR) */
};

/* signals.c: SIGINT and SIGTERM caught while a run boots */
struct run_signals {
	struct sigaction old_int, old_term;
};
void run_signals_catch(struct run_signals *s);
void run_signals_restore(const struct run_signals *s);
bool run_interrupted(void);
void run_interrupt_reset(void);

/* setup.c: 0, or -1 after a message */
int run_load_new(struct run *r, const struct run_opts *o);
int run_load_resume(struct run *r, const char *run_arg);
int run_connect(struct run *r);
int run_prepare(struct run *r);
int run_create_record(struct run *r);
void run_record_host(struct run *r);
int run_write_status(struct run *r, const char *status);
void run_free(struct run *r);

/* kernels.c */
int run_resolve_kernels(struct run *r);
int run_check_modules(struct run *r);
int run_build_modules(struct run *r);
int run_stage_kernels(struct run *r);

/* schedule.c */
void run_add_observer_twins(struct job *job);
void run_plan_boots(struct run *r);
void run_add_round(struct run *r, unsigned int round);
void run_record_order(struct run *r, size_t from);
void run_record_boots(struct run *r);
bool run_boot_done(struct run *r, const struct boot *b);
int run_boots(struct run *r);
int run_find_boot(struct run *r, const char *variant, unsigned int first, struct boot *b);

/*
 * boot.c: 0 stored, 1 interrupted, -1 not run or not stored (after a
 * message). next, when not NULL, is the boot that follows: while b's
 * guest boots, before its agent is up, next is staged and its domain
 * created paused (vm_prestart()), so that its run_boot() only resumes it.
 */
int run_boot(struct run *r, const struct boot *b, const struct boot *next, struct progress *pg);
/* drop the next boot made ready by run_boot() (its domain and files), if any */
void run_drop_next(struct run *r);
/*
 * Remove the dirs of earlier boots whose domains libvirt is done with;
 * with wait, wait for all of them first (vm_reap()).
 */
void run_drop_boot_dirs(struct run *r, bool wait);

/*
 * When a boot's host-side steps ended, in now_monotonic() seconds (0: not
 * reached); vm_result.t has the guest's. record.c makes boot.phases of them.
 */
struct boot_clock {
	double begin; /* run_boot() called */
	double staged; /* the boot's directory and guest image made */
	double collected; /* the agent's stream parsed, files and console read */
	double prestage_s; /* staged during the boot before (run_boot()'s next), else 0 */
	/* during this boot's guest, run_boot()'s next was made ready (else 0) */
	double next_begin, next_end;
};

/* what a boot leaves for its record */
struct boot_out {
	struct guest_outputs outputs; /* a command workload's (guest/outputs.h) */
	const char *dir; /* the boot's directory: console.log, agent.bin, files/ */
	const char *data_file; /* in dir: the stream stored as agent.bin (without FILE records) */
	const char *domain; /* its domain's name */
	struct boot_clock clock;
	struct vm_result vr;
	struct guest_report *agent; /* guest_stream_parse() of the data channel */
	json_t *files; /* collect_files: guest_files_store()'s answer, or NULL */
	const char *console; /* the console log, "" when there is none */
};

/*
 * One iteration as record.c stores it (iteration.json, results/README.md):
 * what it decides on as fields, which a workload kind's record hook may
 * change, and the rest of the document, which the hook may add to.
 */
struct iteration_out {
	unsigned int index;
	const char *status; /* ok, crashed, timeout, failed (a literal) */
	char *reason; /* why it is not ok (owned), or NULL */
	const struct guest_iteration *guest; /* what the agent reported of it, or NULL */
	json_t *metrics; /* "metrics" (owned) */
	json_t *log; /* "log": the boot's log, this iteration's copy (owned) */
	json_t *doc; /* the rest of iteration.json (owned) */
};

/* record.c */
/*
 * boot.phases (docs/performance.md): where the boot's wall time went, one
 * step after another, so that they add up to it; a step not reached (or not
 * seen) is left out. The guest's part is split at the agent's first and
 * last write on ttyS1 when both were seen, else it is one "guest" phase.
 * store_s is the iteration's own store. A new reference.
 */
json_t *record_phases(const struct boot_out *out, double store_s);
int record_boot(struct run *r, const struct boot *b, const struct boot_out *out,
		struct progress *pg);
int record_build_failed(struct run *r, const struct boot *b, struct progress *pg);
/*
 * every iteration of boot b stored as failed: its domain did not start
 * (detail: libvirt's error), so no guest ran and nothing else says why
 */
int record_not_started(struct run *r, const struct boot *b, const char *detail);

/*
 * A kind of workload (enum workload_kind, job/job.h), as the runner sees
 * it: what the kind does around the boots that every kind shares. One
 * implementation per kind: workload.c (built-in), own.c (a command),
 * mmtests.c (an mmtests config, which runs through own.c's command).
 * Every hook is set; docs/architecture.md ("Workloads") says what a new
 * kind implements.
 */
struct workload_ops {
	const char *name; /* in messages: "built-in", "command", "mmtests" */
	/*
	 * before any boot (every entry point, a resumed run too): the kind's
	 * guest files and trees (struct run), the image's packages, the
	 * checks against the image; 0, or -1 after a message
	 */
	int (*prepare)(struct run *r);
	/* the kind's lines of each boot's guest plan (guest/plan.h) */
	guest_plan_fn *plan;
	/*
	 * after a boot: each record of the agent's stream, in the one walk
	 * over it (guest/records.h); ctx is the boot's struct boot_out
	 */
	guest_record_fn *collect;
	/* each stored iteration: what the kind adds to it and to its dir */
	void (*record)(struct run *r, const struct boot_out *out, struct iteration_out *io,
		       const char *dir);
	/* a failed iteration's reason is the user's program's: shown on the terminal too */
	bool warn_failures;
};

/* workload.c: the job's kind's ops */
const struct workload_ops *run_workload(const struct run *r);

/* own.c: a command workload, and the parts of it mmtests.c runs too */
extern const struct workload_ops workload_own_ops;
int run_own_prepare(struct run *r);
void run_own_plan(struct kvlist *plan, const struct job_workload *w);
guest_record_fn run_own_collect;
void run_own_record(struct run *r, const struct boot_out *out, struct iteration_out *io,
		    const char *dir);

/* mmtests.c: an mmtests workload's packages, tree and script; its import */
extern const struct workload_ops workload_mmtests_ops;

/* until.c */
int run_until_significant(struct run *r, const struct run_opts *o);

#endif
