/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run_record.h - run.json as a struct: what the runner records about a run
 * and reads back when it resumes the run or boots one of its queue items
 * (status, the process, the order and its seed, the variants' kernels, the
 * queue's boot plan, --until-significant, the observer check, the attempt).
 * JSON is converted in run_record_json.c only (the store reads and writes the
 * file: store_record_read(), store.h); the runner works on the struct.
 *
 * run.json has other writers (the queue records its builds' kernels, repro
 * its verdict) and readers (results show, compare, queue status): every key
 * the struct does not hold, and every known key whose value is not one this
 * file would write back, stays in "rest" as it was and is written back
 * unchanged. A record read and written again is the same JSON
 * (tests/unit/store/test_run_record.c).
 *
 * Conventions: a NULL string, a 0 pid/attempt/cpus and a false flag are
 * keys that are not written; a NULL array is an array that is not there.
 */
#ifndef MMLAB_RUN_RECORD_H
#define MMLAB_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "job/job.h"
#include "kernel/kernel.h"
#include "lib/util.h"

enum run_order_mode {
	RUN_ORDER_NONE, /* no "order" */
	RUN_ORDER_RANDOM, /* the variants' boots interleaved, shuffled with seed */
	RUN_ORDER_SEQUENTIAL, /* variant by variant */
};

/* "order": {"mode", "seed", "sequence"} */
struct run_order {
	enum run_order_mode mode;
	unsigned long seed;
	bool has_sequence;
	struct strlist sequence; /* "variant/i" or "variant/i..j", in run order */
	json_t *rest;
};

/* "variants"[].kernel: the record kernel_info_json() writes (kernel.h) */
struct run_kernel {
	char *path; /* of the image */
	char *release; /* its kernel release (uname -r), or NULL */
	char *sha256; /* of the image; NULL while it is to be built */
	char *cache_key; /* built by the kernel cache (kcache.h) */
	char *build_log;
	bool build_failed; /* the build failed (the queue's build item, too) */
	bool build_pending; /* the queue's build item builds it ... */
	char *request; /* ... for this request */
	char *base_commit; /* the commit the kernel is (or is to be) built from */
	json_t *operations; /* the job's kernel operations (an array), or NULL */
	json_t *package; /* a package kernel's package record (kernel/package.h), or NULL */
	bool has_cache_hit, cache_hit; /* built: whether the cache had it */
	json_t *rest; /* version, ... */
};

struct run_variant {
	char *name;
	bool has_kernel;
	struct run_kernel kernel;
	json_t *rest;
};

/* "host": where the run measures */
struct run_host {
	char *accel; /* "kvm" or "tcg": a resumed run keeps it */
	char *accel_reason;
	char *qemu, *libvirt; /* their versions (vm_host_facts()), or NULL */
	char *hostname;
	char *cpu; /* model name */
	long cpus; /* online CPUs */
	char *kernel; /* the host's release */
	char *image; /* hash of the guest initramfs */
	char *disk_image; /* hash of the disk image, or NULL */
	json_t *rest; /* libvirt's facts (vm_host_facts()) */
};

/* "boots": the queue's boot plan, in run order (runner_create()) */
struct run_boot {
	char *variant;
	unsigned int first, count;
	char *build; /* the build request the boot waits for, or NULL */
	json_t *rest;
};

/* "until_significant": where --until-significant stands (docs/compare.md) */
struct run_until {
	bool present;
	double precision; /* the target relative half-width */
	unsigned int max_iterations;
	char *metrics; /* the target globs */
	double confidence;
	unsigned int iterations; /* per variant, so far */
	unsigned int rounds; /* added so far */
	bool reached;
	char *stopped; /* why it stopped; NULL (null) while it goes on */
	json_t *worst; /* precision_check()'s widest entry, or NULL */
	json_t *metrics_detail; /* and its entry per metric and variant */
	json_t *rest;
};

/* until_significant's "worst" entry, typed (run_until_worst()); strings borrowed */
struct run_until_worst {
	const char *metric, *variant; /* NULL when not a string */
	bool finite; /* halfwidth_rel is a number; else the half-width is infinite */
	double halfwidth_rel;
	long long n; /* the samples; 0 when not an integer */
};

struct run_record {
	char *run; /* the run id */
	char *job; /* the job's name */
	char *status; /* queued, running, incomplete, complete, failed */
	char *created, *finished; /* ISO 8601 (timefmt.h) */
	char *job_file; /* the job file as given */
	char *job_dir; /* its directory (relative paths in it) */
	long long pid; /* the process running it */
	char *host_boot_id; /* of the host it runs on */
	unsigned int attempt; /* boot attempts: names the domains (vm.h) */
	bool observer_check; /* each variant has a twin "<name>.nocollect" */
	struct run_order order;
	json_t *job_resolved; /* the job as it ran, for readers (run_record_set_job()) */
	struct run_variant *variants;
	size_t nvariants;
	bool has_host;
	struct run_host host;
	struct run_boot *boots;
	size_t nboots;
	struct run_until until;
	json_t *recipe, *repro; /* repro's recipe and its verdict (repro/), or NULL */
	json_t *rest; /* what other writers add: kept as it is */
};

/* rec from run.json's object (borrowed); -1 (no message) when j is not an object */
int run_record_from_json(const json_t *j, struct run_record *rec);
/* run.json's object of rec: a new reference */
json_t *run_record_to_json(const struct run_record *rec);
void run_record_release(struct run_record *rec);

/*
 * the document "mmlab results show --json" prints: j, rec's JSON, gets each
 * variant's "iterations" (iterations[i], an array of iteration.json, borrowed)
 */
void run_record_add_iterations(json_t *j, json_t *iterations);

/* k from a kernel record (kernel_info_json()'s; j borrowed); -1 (no message) if not an object */
int run_kernel_from_json(const json_t *j, struct run_kernel *k);
/* k as a build item's outcome in the queue (without the job's operations): a new reference */
json_t *run_kernel_build_result(const struct run_kernel *k);
/* k, which waited for a build, becomes the kernel built, keeping k's operations */
void run_kernel_built(struct run_kernel *k, const struct run_kernel *built);

/* a package kernel's package sha256 (borrowed from k), or NULL */
const char *run_kernel_package_sha256(const struct run_kernel *k);
/*
 * <run>/kernels/<variant>.json ({"request", "kernel"}, untrusted: read
 * only when it is that shape) for a kernel that waits for that request:
 * k becomes the built kernel, with its own operations. file is borrowed.
 */
void run_kernel_from_file(struct run_kernel *k, const json_t *file);

/* free what a part holds, and zero it (before it is written anew) */
void run_host_reset(struct run_host *h);
void run_until_reset(struct run_until *u);
void run_order_release(struct run_order *o);
void run_kernel_release(struct run_kernel *k);
void run_variant_release(struct run_variant *v);
void run_boot_release(struct run_boot *b);

/*
 * The run's status, the one answer to it: the recorded one, except that a
 * "running" run whose process is gone or whose host rebooted since is
 * "incomplete"; "unknown" when none is recorded.
 */
const char *run_record_status(const struct run_record *rec);
/* the variant of that name, or NULL */
struct run_variant *run_record_variant(const struct run_record *rec, const char *name);

/* u's widest entry into w (borrowing from u): true, or false when it has none */
bool run_until_worst(const struct run_until *u, struct run_until_worst *w);

/* repro's recipe and verdict (objects, borrowed); 0, or -1 if either is not an object */
int run_record_set_verdict(struct run_record *rec, json_t *recipe, json_t *verdict);

/* job_resolved: the job's variants, topology, workload, ... as run.json has them */
void run_record_set_job(struct run_record *rec, const struct job *job);
/* the workload the job ran (job_resolved.workload.name; borrowed), NULL for a command */
const char *run_record_workload(const struct run_record *rec);
/* an mmtests workload's mmtests directory (borrowed), or NULL */
const char *run_record_mmtests_dir(const struct run_record *rec);

/* the record of a resolved (or requested, or failed) kernel */
void run_kernel_set(struct run_kernel *k, bool *has, const struct kernel_info *ki);
/*
 * The kernel a record names, if it is still at its path with its sha256
 * (kernel_info_from_json()): 0 and ki filled; else -1, no message.
 */
int run_kernel_load(const struct run_kernel *k, struct kernel_info *ki);

#endif
