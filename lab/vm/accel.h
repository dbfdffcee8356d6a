/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accel.h - decide whether guests run under KVM or TCG.
 *
 * "auto" trusts KVM only after a probe boot under KVM reached the guest
 * agent: /dev/kvm can exist and open yet be unable to run an unmodified
 * guest (a paravirtual nested KVM: QEMU aborts on MSR 0x10a with
 * host-passthrough, or the kernel hangs in its decompressor). The verdict
 * is cached per host in <cache_dir>/accel.json, keyed by hostname, host
 * kernel release, QEMU version and libvirt version.
 */
#ifndef MMLAB_ACCEL_H
#define MMLAB_ACCEL_H

#include <stdbool.h>

#include "topo/topology.h"
#include "vm/domain_xml.h"
#include "vm/vm.h"

#define ACCEL_PROBE_DEADLINE_S 30.0
#define ACCEL_CACHE_FILE "accel.json"

struct accel_choice {
	enum dom_accel accel;
	char reason[512]; /* one line, for "using TCG: <reason>" */
	bool probed; /* a probe boot ran now */
	bool cached; /* the verdict came from accel.json */
};

/*
 * probe_ok(data_path, console_path, arg) returns 1 when the guest agent
 * reached userspace (the caller checks the data file for a HELLO record),
 * 0 otherwise.
 */
typedef int (*accel_probe_fn)(const char *data_path, const char *console_path, void *arg);

/*
 * Whether a probe boot must decide: requested tcg -> TCG; kvm -> KVM
 * without a probe; auto -> TCG when /dev/kvm is missing or cannot be
 * opened read-write (local URIs), else the verdict cached in cache_dir
 * (NULL = no cache) unless force_probe, else TCG when libvirt offers no
 * KVM domain type (asked only then: it costs libvirt a capabilities
 * lookup). Returns 1 with *out filled when no boot is needed, 0 when
 * accel_probe() must boot (so a caller stages the probe's kernel and
 * initrd only then), -1 after one message (libvirt gone).
 */
int accel_decide(struct vm_host *h, enum accel_mode requested, const char *cache_dir,
		 bool force_probe, struct accel_choice *out);

/*
 * The probe: kernel + probe_initrd under KVM on a 1-node, 1-vCPU, 256 MiB
 * guest with "console=ttyS0 panic=-1" and a 30 s deadline, its console and
 * data files in workdir (which the QEMU user must be able to reach). The
 * verdict is written to cache_dir (created if needed; NULL = no cache).
 * When the KVM guest cannot even be created, the same guest is created
 * (and destroyed at once) under TCG: if that fails too the cause is not
 * KVM, and accel_probe() fails instead of caching a wrong verdict. Leaves
 * no vm_set_tick() callback set. Returns 0 with *out filled, or -1 after
 * one message (probe interrupted or impossible, libvirt gone).
 */
int accel_probe(struct vm_host *h, const char *cache_dir, const char *kernel,
		const char *probe_initrd, const char *workdir, accel_probe_fn probe_ok, void *arg,
		struct accel_choice *out);

#endif
