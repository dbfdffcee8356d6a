/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job.h - a job file (YAML) parsed and validated into typed structs.
 *
 * Format: docs/job-format.md. job_load() validates the whole file before
 * returning; every error is printed as "FILE:LINE:COLUMN: error: ..." naming
 * the field and what is allowed. Unknown keys are errors.
 */
#ifndef MMLAB_JOB_H
#define MMLAB_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "lib/util.h"
#include "topo/topology.h"

struct job_own;

#define JOB_MAX_VARIANTS 64
#define JOB_NAME_MAX 64 /* job and variant names: [A-Za-z0-9._-]+ */

enum kernel_kind {
	KERNEL_DISTRO, /* newest /boot/vmlinuz-* on the host */
	KERNEL_PATH, /* a prebuilt image */
	KERNEL_SOURCE, /* built from the job's kernels.tree at ref (docs/kernels.md) */
	KERNEL_PACKAGE, /* a distribution's package: apt's, a .deb or an .rpm (kernel/package.h) */
};

struct job_variant {
	char *name;
	enum kernel_kind kernel_kind;
	char *kernel_path; /* KERNEL_PATH: absolute (resolved against the job's directory) */
	/* where kernel: was given in the job file (1-based), 0 when not from one */
	unsigned int kernel_line, kernel_col;
	char *cmdline; /* extra kernel arguments, or NULL */
	struct kvlist sysctl; /* "vm.compaction_proactiveness" -> "20" */
	char *thp_enabled; /* always|madvise|never, or NULL = kernel default */
	char *thp_defrag; /* always|defer|defer+madvise|madvise|never, or NULL */
	bool no_tracepoints; /* observer check's twin: the job's collectors minus tracepoints */
	/* KERNEL_SOURCE: the ref, then these operations in this order */
	char *ref;
	struct strlist revert; /* commit-ish */
	struct strlist cherry_pick; /* commit-ish */
	struct strlist apply; /* absolute paths of patch files (mbox or diff) */
	/* KERNEL_PACKAGE: exactly one of pkg_name, pkg_deb, pkg_rpm */
	char *pkg_name; /* package: a Debian package that apt fetches */
	char *pkg_version; /* version: its version, or NULL for apt's candidate */
	char *pkg_deb; /* deb: a .deb file, absolute */
	char *pkg_rpm; /* rpm: an .rpm file, absolute */
	char *pkg_modules; /* modules: the rpm holding the modules (kernel-modules), or NULL */
};
/*
 * dst = a deep copy of every field of src (lab/job/variant.c; the build
 * fails there when a field is added to the struct but not to the copy).
 * variant_release() frees what a variant owns and zeroes it.
 */
void variant_dup(struct job_variant *dst, const struct job_variant *src);
void variant_release(struct job_variant *v);

/* top-level "kernels:": where source variants are built from */
struct job_kernels {
	char *tree; /* absolute path of a git tree, or NULL */
	char *config_base; /* tinyconfig (default), defconfig, distro or a path */
	struct strlist fragments; /* absolute paths */
};

/*
 * Workload parameters, validated against the workload's table in
 * workload.c and resolved: sizes become decimal bytes (percentages of guest
 * memory resolved against the topology's total), lists become
 * comma-separated values, booleans "0"/"1". Every parameter the workload
 * defines is present (defaults filled in), in the table's order.
 */
struct job_workload {
	char *name; /* a built-in's, or the metric prefix of a command */
	struct kvlist params;
	struct job_own *own; /* command:/module: given (NULL: a built-in); job_own.h */
	struct job_mmtests *mmtests; /* mmtests: given (own then runs it); job_mmtests.h */
};

/*
 * The kinds of workload, one per implementation of the runner's
 * struct workload_ops (run/run.h, docs/architecture.md "Workloads"): a
 * built-in (workloads/<name>), a command (own: command: or module:), an
 * mmtests config (run through the command workload's launcher).
 */
enum workload_kind {
	WORKLOAD_BUILTIN,
	WORKLOAD_OWN,
	WORKLOAD_MMTESTS,
	WORKLOAD_NKINDS,
};
enum workload_kind job_workload_kind(const struct job_workload *w);

struct job_timeouts {
	unsigned int boot_s; /* kernel start to agent hello; default 120 */
	unsigned int iteration_s; /* one measured iteration; default 600 */
	bool iteration_given; /* the job set it (else a workload timeout may raise it) */
};

/*
 * collectors: { tracepoints: ["compaction:*", "migrate:mm_migrate_pages"],
 * enabled: true }. Patterns are "system:event" with shell globs; the guest
 * checks them against its kernel (an unknown one stops the run).
 */
#define JOB_MAX_TRACEPOINTS 64
struct job_collectors {
	struct strlist tracepoints;
	bool disabled; /* enabled: false - no optional collector at all */
};

/* the guest's root: the lab's initramfs, or a Debian disk (docs/image.md) */
enum image_kind {
	IMAGE_INITRAMFS, /* default */
	IMAGE_DEBOOTSTRAP, /* debootstrap'd qcow2, booted as a virtio-blk root */
};
#define JOB_MAX_PACKAGES 64
#define JOB_MAX_COLLECT 64

struct job_image {
	enum image_kind kind;
	char *recipe; /* image.recipe's file (images/NAME.yaml); NULL: the kind's */
	char *suite; /* debootstrap: default the recipe's (bookworm) */
	struct strlist packages; /* extra Debian packages, as given */
	uint64_t size_bytes; /* virtual disk size, default the recipe's (4G) */
};

struct job {
	char *path; /* as given */
	char *dir; /* absolute directory of the job file */
	char *name;
	struct job_variant *variants;
	size_t nvariants;
	struct job_topology topo;
	struct job_workload workload;
	unsigned int iterations; /* per variant, default 3 */
	unsigned int iterations_per_boot; /* default 1: each iteration a fresh boot */
	struct job_timeouts timeouts;
	enum accel_mode accel; /* default auto */
	struct job_collectors collectors;
	struct job_kernels kernels;
	struct job_image image; /* default: the initramfs */
	struct strlist collect_files; /* absolute guest paths (debootstrap) */
};

/* 0 on success; -1 after printing every error found (file:line:col) */
int job_load(const char *path, struct job **out);
/* the same from a buffer; name is used in messages */
int job_load_buffer(const char *name, const char *buf, size_t len, const char *dir,
		    struct job **out);
void job_free(struct job *job);
/*
 * A path as a job file means it (malloc'd): absolute as it is, ~/x under
 * $HOME, relative against dir (the file's directory). Track files and
 * recipes resolve theirs the same way.
 */
char *job_path(const char *dir, const char *p);

/*
 * A file in the job format with more top-level keys (a repro recipe,
 * lab/repro/recipe.c). parse() is called once per extra key, with its key and
 * value nodes (yaml_node_t *, NULL when the key is not given) and the root
 * mapping; check() once at the end with the job as parsed so far. Both
 * report problems through lab/job/job_yaml.h so they carry FILE:LINE:COLUMN.
 */
#define JOB_EXT_MAX 7
struct job_yaml;
struct job_ext {
	const char *const *keys; /* NULL-terminated, at most JOB_EXT_MAX */
	void (*parse)(struct job_yaml *y, const char *key, void *root, void *key_node, void *val,
		      void *arg);
	void (*check)(struct job_yaml *y, const struct job *job, void *arg);
	void *arg;
	const char *iterations_key; /* what "iterations" is called (NULL: iterations) */
	unsigned int iterations_def; /* its default (0: 3) */
	const char *default_name; /* "name" may be left out: this one (NULL: required) */
	const char *what; /* "recipe" in messages (NULL: "job file") */
	const char *doc; /* its format's page (NULL: docs/job-format.md) */
};
int job_load_ext(const char *path, const struct job_ext *ext, struct job **out);
/* a job-format file (at most 1 MiB) and its directory (both freed by the caller) */
char *job_read_file(const char *path, size_t *len, char **dir);
int job_load_buffer_ext(const char *name, const char *buf, size_t len, const char *dir,
			const struct job_ext *ext, struct job **out);

#endif
