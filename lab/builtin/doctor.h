/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor.h - what "mmlab doctor" found on this host, as a struct: the text
 * report reads its fields; doctor_json.c turns it into the --json document
 * and reads the two JSON documents it is given (the kernels in /boot,
 * libvirt's facts) at the edge.
 */
#ifndef MMLAB_BUILTIN_DOCTOR_H
#define MMLAB_BUILTIN_DOCTOR_H

#include <stdbool.h>

#include <jansson.h>

#include "lib/util.h"
#include "vm/accel.h"

#define DOCTOR_NTOOLS 9

struct doctor_report {
	const char *results, *cache; /* borrowed: the global options */
	const char *guest_dir; /* borrowed */
	bool agent; /* the guest agent is built */
	bool kvm_present, kvm_usable;
	json_t *kernels; /* kernel_list_distro()'s [{"path","release"}], for --json */
	struct strlist kernel_paths; /* their paths, newest first */
	const char *const *tools; /* DOCTOR_NTOOLS program names */
	char *tool_paths[DOCTOR_NTOOLS]; /* where each is, or NULL */
	bool reachable; /* libvirtd answered */
	json_t *facts; /* vm_host_facts(), for --json; {} when unreachable */
	char *libvirt, *uri, *qemu; /* from the facts, or NULL */
	bool accel_known; /* the probe gave accel */
	struct accel_choice accel;
	const char *accel_note; /* else why not: "the probe failed", ... */
	bool ok; /* 'mmlab run' can work here */
};

/* the kernels of kernel_list_distro() (taken: the report owns list) */
void doctor_set_kernels(struct doctor_report *d, json_t *list);
/* libvirt's facts (vm_host_facts(), taken), or NULL when unreachable */
void doctor_set_facts(struct doctor_report *d, json_t *facts);
/* the --json document: a new reference */
json_t *doctor_json(const struct doctor_report *d);
void doctor_release(struct doctor_report *d);

#endif
