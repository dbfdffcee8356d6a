/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm.h - running one guest through the libvirt C API.
 *
 * A guest is a transient domain started with VIR_DOMAIN_START_AUTODESTROY
 * (so it dies with our connection if mmlab is killed), destroyed before
 * vm_run() returns or, when it shut itself down, by libvirt and waited for
 * by vm_reap(). vm_run() watches lifecycle events from the libvirt default
 * event loop and polls the domain state every 100 ms as a fallback, so a
 * deadline or a stop request is honoured within ~0.2 s.
 */
#ifndef MMLAB_VM_H
#define MMLAB_VM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct vm_host;

/*
 * Connect to libvirt. uri NULL = $MMLAB_LIBVIRT_URI, else qemu:///system.
 * Registers the libvirt default event loop (before the first connection)
 * and an error handler so libvirt never prints on stderr by itself; its
 * last message is kept for ours. NULL after one message saying libvirtd is
 * unreachable at URI and how to start it.
 */
struct vm_host *vm_connect(const char *uri);
void vm_disconnect(struct vm_host *h);
/*
 * Reopen the connection when libvirt closed it: without a turning event
 * loop the client misses keepalives, and libvirtd drops a connection left
 * idle for ~30 s (a long libguestfs step, a kernel build between boots).
 * A libvirtd that is restarting is waited for, up to 60 s.
 * 0, or -1 after a message.
 */
int vm_ensure_connected(struct vm_host *h);
const char *vm_uri(struct vm_host *h);
/* the last error libvirt reported (in this process), "" if none */
const char *vm_last_error(void);

/*
 * {"libvirt": "9.0.0", "qemu": "7.2.22", "uri": ..., "hostname": ...};
 * a new reference, NULL after lab_err() if libvirt cannot say. The QEMU
 * version costs libvirt a lookup in its QEMU capabilities cache, which is
 * a QEMU probe of a second or more when the cache is stale: the runner
 * asks vm_host_facts_cached() (facts.c). Returns a new reference, or NULL.
 */
json_t *vm_host_facts(struct vm_host *h);
/*
 * the same without "qemu": what libvirt answers without a capabilities
 * lookup; a new reference, or NULL
 */
json_t *vm_host_id(struct vm_host *h);
/*
 * vm_host_facts(), kept in <cache_dir>/host-facts.json for a local URI
 * and reused while libvirt's version and the host's QEMU binaries (their
 * ctime, size and inode: what libvirt's own cache checks) are unchanged.
 * cache_dir NULL, or a remote URI: vm_host_facts(). A new reference, or NULL.
 */
json_t *vm_host_facts_cached(struct vm_host *h, const char *cache_dir);
/* the URI names this host (qemu:///system, not qemu+ssh://...) */
bool vm_is_local(const struct vm_host *h);

/*
 * 1 when libvirt can create KVM domains (x86_64, machine pc), else 0 with
 * libvirt's reason in why. Says nothing about whether KVM guests boot.
 */
int vm_kvm_available(struct vm_host *h, char *why, size_t len);

enum vm_outcome {
	VM_POWEROFF, /* the guest stopped by itself (poweroff, or a
				   reset/reboot: see guest_reset) */
	VM_CRASHED, /* panic reported (pvpanic), or QEMU stopped
				   the guest on an error (KVM internal error) */
	VM_TIMEOUT, /* deadline passed (or the tick said so) */
	VM_INTERRUPTED, /* vm_request_stop() (or the tick said so) */
	VM_ERROR, /* the domain could not be created */
	VM_LOST, /* the connection to libvirtd broke while the guest ran
				   (libvirtd killed or restarted): mmlab reconnected
				   and destroyed the domain, or says it could not */
};
const char *vm_outcome_name(enum vm_outcome o); /* "poweroff", ... */

/*
 * When vm_run() reached each of its steps, in now_monotonic() seconds; 0
 * for a step it did not reach or could not see.
 */
struct vm_times {
	double create; /* virDomainCreateXML() called */
	double started; /* it returned: QEMU runs the guest */
	double first_output; /* the watched file's first write (vm_set_output_watch) */
	double last_output; /* its last write before the outcome */
	double outcome; /* the watch loop knew the outcome */
	double torn_down; /* the domain destroyed, its events deregistered */
	/* seconds vm_prestart() took to create the domain, paused; 0 if it did not */
	double prestart_s;
};

struct vm_result {
	enum vm_outcome outcome;
	double elapsed_s; /* create call to the outcome (not the destroy) */
	struct vm_times t;
	char detail[512]; /* what libvirt said, human-readable */
	/*
	 * libvirt sent a REBOOT event. Measured with libvirt 9.0 and
	 * on_reboot=destroy: a guest reboot, and so a kernel panic with
	 * panic=-1 in a kernel without the pvpanic driver, is reported as an
	 * ordinary guest shutdown and this stays false. VM_POWEROFF alone
	 * therefore does not mean success: check the console for "Kernel
	 * panic" and the data channel for DONE. Kernels with pvpanic
	 * (CONFIG_PVPANIC_MMIO=y) give VM_CRASHED instead.
	 */
	bool guest_reset;
};

/*
 * Optional callback, called about ten times a second while the guest runs
 * (e.g. to show progress or watch the data file). Return VM_TICK_CONTINUE,
 * or VM_TICK_TIMEOUT / VM_TICK_STOP to destroy the guest and end the run
 * as VM_TIMEOUT / VM_INTERRUPTED.
 */
#define VM_TICK_CONTINUE 0
#define VM_TICK_TIMEOUT 1
#define VM_TICK_STOP 2
typedef int (*vm_tick_fn)(double elapsed_s, void *arg);
void vm_set_tick(struct vm_host *h, vm_tick_fn fn, void *arg);

/*
 * A local file the guest writes to (a serial port's file), or NULL: vm_run()
 * times its first write (inotify) and its last one (its mtime at the
 * outcome) into res->t. The file must exist before vm_run(); it is not
 * read. Without inotify, or for a remote URI, the times stay 0.
 */
void vm_set_output_watch(struct vm_host *h, const char *path);

/* quiet: vm_run() does not print when creation fails (res->detail says why) */
void vm_set_quiet(struct vm_host *h, bool quiet);

/*
 * Create a transient domain from xml and wait until it stops, the deadline
 * (seconds from now) passes, or vm_request_stop() is called. The domain is
 * destroyed on every path: by vm_run(), or, when the guest shut itself
 * down, by libvirt (on_poweroff), which takes a few hundred ms that
 * vm_run() does not wait for, nor does the next vm_run() (unless it
 * creates a domain of the same name): libvirt's teardown of one boot
 * overlaps the start of the next. vm_gone() says when it is over;
 * vm_reap() and vm_disconnect() wait for it. Returns 0 when an outcome was
 * reached (res says which), -1 only for VM_ERROR (creation failed; the
 * message includes libvirt's error and res->detail holds it too).
 */
int vm_run(struct vm_host *h, const char *xml, double deadline_s, struct vm_result *res);
/*
 * Create the domain of the next vm_run() now, paused, while another guest
 * runs: libvirt's start (QEMU's own start, and libvirt 9.0's check of the
 * guest CPU, ~400 QMP round trips: 0.2-0.3 s) is then paid during that
 * guest, and the vm_run() with the same xml only resumes it. One at a
 * time: a vm_run() of another domain, a second vm_prestart(),
 * vm_prestart_drop() and vm_disconnect() destroy it. 0, or -1 when it was
 * not created (the vm_run() creates it, and says why if that fails too).
 */
int vm_prestart(struct vm_host *h, const char *xml);
void vm_prestart_drop(struct vm_host *h);
/*
 * Whether libvirt is done with the domain name of an earlier vm_run():
 * it is gone, and libvirt has restored the owners of the files it
 * labelled for it. Does not wait.
 */
bool vm_gone(struct vm_host *h, const char *name);
/*
 * Wait until libvirt has destroyed every domain of an earlier vm_run()
 * whose guest shut down (up to 10 s, then destroy them); nothing when
 * there is none.
 */
void vm_reap(struct vm_host *h);

/* async-signal-safe: make the running (or next) vm_run() stop */
void vm_request_stop(void);
bool vm_stop_requested(void);
void vm_clear_stop(void);

/*
 * Destroy every running domain whose name starts with prefix (left over
 * by a killed run). Returns how many were destroyed, or -1.
 */
int vm_destroy_matching(struct vm_host *h, const char *prefix);
/*
 * The domain of one boot is named "BASE+ATTEMPT": each attempt of a boot
 * (a requeued queue item, a resumed run) gets a name of its own, so it
 * never collides with what libvirt still holds of an earlier one. The
 * separator is not allowed in mmlab's run and variant names.
 */
#define VM_ATTEMPT_SEP '+'
/*
 * Destroy the domains of the attempts of base before attempt (named base,
 * or base+1 ... base+(attempt-1): attempts are numbered upward, see
 * above; killed runs leave them while libvirt tears them down) and wait up
 * to wait_s seconds until libvirt has none of them. Returns how many are
 * still there (after a warning naming them), or -1 after an error message.
 */
int vm_clear_attempts(struct vm_host *h, const char *base, unsigned int attempt, double wait_s);

#endif
