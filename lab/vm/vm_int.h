/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_int.h - what vm.c (the connection and the watch of one guest) and
 * teardown.c (the domains libvirt still tears down, the earlier attempts'
 * domains, the next boot's domain created paused) share. Not for callers
 * outside lab/vm: they use vm.h.
 */
#ifndef MMLAB_VM_INT_H
#define MMLAB_VM_INT_H

#include <signal.h>
#include <stdbool.h>

#include <libvirt/libvirt.h>

#include "vm/vm.h"

/* how long vm_reap() leaves libvirt to destroy a guest that shut down */
#define VM_REAP_S 10.0
/* domains libvirt may still be destroying; one more waits for the oldest */
#define VM_PENDING_MAX 16

struct vm_host {
	virConnectPtr conn;
	char *uri;
	vm_tick_fn tick;
	void *tick_arg;
	char *output_path; /* vm_set_output_watch() */
	/* domains libvirt is destroying, oldest first (see vm_reap()) */
	char *pending[VM_PENDING_MAX];
	unsigned int npending;
	/* the lifecycle callback that drops them at STOPPED, on conn watched */
	virConnectPtr watched;
	int watch;
	bool quiet;
	/* vm_prestart(): a later vm_run()'s domain, created paused */
	virDomainPtr prestarted;
	char *prestarted_name;
	double prestart_s; /* what its creation took */
};

/* domain.c (set by vm.c) */
extern volatile sig_atomic_t vm_stop_flag; /* vm_request_stop() */
extern char vm_errbuf[512]; /* libvirt's last message in this process */
extern bool vm_event_loop_ok; /* the default event loop is registered */
/* destroy a running domain, warning when libvirt cannot */
void vm_destroy_domain(virDomainPtr dom);
/* the <name> of a domain XML (malloc'd; "?" without one) */
char *vm_xml_domain_name(const char *xml);

/* teardown.c */
/* wait until libvirt is done with the pending domain name, if it is one */
void vm_reap_pending(struct vm_host *h, const char *name);
/* libvirt is destroying domain name: vm_gone() and vm_reap() follow it */
void vm_add_pending(struct vm_host *h, const char *name);
/* vm_prestart()'s domain for name, resumed; NULL (and destroyed) if not */
virDomainPtr vm_resume_prestarted(struct vm_host *h, const char *name, struct vm_result *res);

#endif
