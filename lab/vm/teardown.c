// SPDX-License-Identifier: GPL-2.0
/*
 * teardown.c - the domains around the one vm_run() watches: those libvirt
 * still tears down after their guest shut down (vm_gone(), vm_reap()),
 * those of a killed earlier attempt (vm_clear_attempts()), and the next
 * boot's, created paused while a guest runs (vm_prestart()).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "lib/util.h"
#include "vm/vm.h"
#include "vm/vm_int.h"

static int pending_index(const struct vm_host *h, const char *name)
{
	for (unsigned int i = 0; name && i < h->npending; i++)
		if (!strcmp(h->pending[i], name))
			return (int)i;
	return -1;
}

static void drop_pending(struct vm_host *h, unsigned int i)
{
	free(h->pending[i]);
	memmove(&h->pending[i], &h->pending[i + 1], (h->npending - i - 1) * sizeof(h->pending[0]));
	h->npending--;
}

/*
 * libvirt says STOPPED when it is done with a domain: QEMU reaped and the
 * owners of the files it labelled restored. Asking it instead (a lookup)
 * waits for that while it tears the domain down, and holds up the next
 * domain's creation meanwhile: the event costs nothing.
 */
static void pending_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct vm_host *h = opaque;
	int i;

	(void)conn;
	(void)detail;
	if (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_UNDEFINED)
		return;
	i = pending_index(h, virDomainGetName(dom));
	if (i >= 0)
		drop_pending(h, (unsigned int)i);
}

/* whether pending_cb() watches h->conn (registered now if not) */
static bool watching(struct vm_host *h)
{
	if (h->watch >= 0 && h->watched == h->conn)
		return true;
	if (!vm_event_loop_ok)
		return false;
	h->watch = virConnectDomainEventRegisterAny(
		h->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
		VIR_DOMAIN_EVENT_CALLBACK((void (*)(void))pending_cb), h, NULL);
	h->watched = h->watch >= 0 ? h->conn : NULL;
	return h->watch >= 0;
}

/* libvirt is done with the domain: it is gone, or shut off (a lookup) */
static bool domain_gone(struct vm_host *h, const char *name)
{
	virDomainPtr dom = virDomainLookupByName(h->conn, name);
	int state, reason;
	bool gone;

	if (!dom) {
		vm_errbuf[0] = '\0'; /* the lookup's "no domain" */
		return true;
	}
	gone = virDomainGetState(dom, &state, &reason, 0) < 0 || state == VIR_DOMAIN_SHUTOFF;
	virDomainFree(dom);
	return gone;
}

/*
 * Wait until libvirt is done with pending domain name (destroy it after
 * end). It works on a copy: pending_cb() may drop the entry meanwhile.
 */
static void reap_one(struct vm_host *h, const char *pending_name, double end)
{
	char *name = xstrdup(pending_name);
	virDomainPtr dom;
	int i;

	while (!domain_gone(h, name)) {
		if (now_monotonic() >= end) {
			dom = virDomainLookupByName(h->conn, name);
			if (dom) {
				vm_destroy_domain(dom);
				virDomainFree(dom);
			}
			vm_errbuf[0] = '\0';
			break;
		}
		usleep(20000);
	}
	i = pending_index(h, name);
	if (i >= 0)
		drop_pending(h, (unsigned int)i);
	free(name);
}

void vm_reap_pending(struct vm_host *h, const char *name)
{
	if (h && pending_index(h, name) >= 0)
		reap_one(h, name, now_monotonic() + VM_REAP_S);
}

void vm_add_pending(struct vm_host *h, const char *name)
{
	if (h->npending == VM_PENDING_MAX)
		reap_one(h, h->pending[0], now_monotonic() + VM_REAP_S);
	h->pending[h->npending++] = xstrdup(name);
	watching(h);
}

bool vm_gone(struct vm_host *h, const char *name)
{
	int i = h ? pending_index(h, name) : -1;

	if (i < 0)
		return true;
	if (watching(h))
		return false; /* pending_cb() drops it at its STOPPED event */
	if (!domain_gone(h, name))
		return false;
	drop_pending(h, (unsigned int)i);
	return true;
}

void vm_reap(struct vm_host *h)
{
	double end = now_monotonic() + VM_REAP_S;

	while (h && h->npending)
		reap_one(h, h->pending[0], end);
}

int vm_prestart(struct vm_host *h, const char *xml)
{
	char *name = vm_xml_domain_name(xml);
	virDomainPtr dom;
	double t0;

	vm_prestart_drop(h);
	if (vm_stop_flag || pending_index(h, name) >= 0) {
		free(name);
		return -1;
	}
	vm_errbuf[0] = '\0';
	t0 = now_monotonic();
	dom = virDomainCreateXML(h->conn, xml,
				 VIR_DOMAIN_START_AUTODESTROY | VIR_DOMAIN_START_PAUSED);
	if (!dom) {
		vm_errbuf[0] = '\0'; /* its vm_run() creates it, and says why if it fails */
		free(name);
		return -1;
	}
	h->prestarted = dom;
	h->prestarted_name = name;
	h->prestart_s = now_monotonic() - t0;
	return 0;
}

void vm_prestart_drop(struct vm_host *h)
{
	virDomainPtr dom;

	if (!h || !h->prestarted)
		return;
	/* synchronous: libvirt is done with its files when it returns */
	if (virDomainGetConnect(h->prestarted) == h->conn) {
		vm_destroy_domain(h->prestarted);
	} else {
		/*
		 * created on a connection that broke since (libvirtd restarted):
		 * the new libvirtd found the paused QEMU again, without the
		 * autodestroy of the dead connection
		 */
		dom = virDomainLookupByName(h->conn, h->prestarted_name);
		if (dom) {
			vm_destroy_domain(dom);
			virDomainFree(dom);
		}
	}
	virDomainFree(h->prestarted);
	h->prestarted = NULL;
	free(h->prestarted_name);
	h->prestarted_name = NULL;
	vm_errbuf[0] = '\0';
}

/*
 * The domain vm_prestart() created for name, resumed (NULL when there is
 * none, or it did not resume: it is destroyed, and vm_run() creates one)
 */
virDomainPtr vm_resume_prestarted(struct vm_host *h, const char *name, struct vm_result *res)
{
	virDomainPtr dom;

	if (!h->prestarted || strcmp(h->prestarted_name, name) ||
	    virDomainGetConnect(h->prestarted) != h->conn) {
		vm_prestart_drop(h); /* another boot's, or on a broken connection */
		return NULL;
	}
	if (virDomainResume(h->prestarted) < 0) {
		vm_prestart_drop(h);
		return NULL;
	}
	dom = h->prestarted;
	res->t.prestart_s = h->prestart_s;
	h->prestarted = NULL;
	free(h->prestarted_name);
	h->prestarted_name = NULL;
	return dom;
}

int vm_destroy_matching(struct vm_host *h, const char *prefix)
{
	virDomainPtr *doms = NULL;
	int i, n, count = 0;

	n = virConnectListAllDomains(h->conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		lab_err("cannot list domains at %s: %s; check that libvirtd is running", h->uri,
			vm_errbuf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, strlen(prefix))) {
			if (virDomainDestroy(doms[i]) == 0)
				count++;
			else
				lab_warn(
					"cannot destroy leftover domain %s: %s; try `virsh -c %s destroy %s`",
					name, vm_errbuf, h->uri, name);
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return count;
}

/*
 * Destroy the running domains of the attempts of base before attempt
 * (base itself, base+1 ... base+(attempt-1)); returns how many are still
 * there (running, or transient and being torn down), -1 when libvirt
 * cannot say. Each is looked up by name: listing every domain would wait
 * for libvirt to finish tearing down any of them, ours or another run's
 * (about 200 ms after a guest shut down, libvirt 9.0).
 */
static int destroy_attempts(struct vm_host *h, const char *base, unsigned int attempt,
			    unsigned int *destroyed)
{
	virDomainPtr dom;
	int left = 0;

	for (unsigned int k = 0; k < attempt; k++) {
		char *name = k ? xasprintf("%s%c%u", base, VM_ATTEMPT_SEP, k) : xstrdup(base);

		dom = virDomainLookupByName(h->conn, name);
		free(name);
		if (!dom) {
			if (virGetLastErrorCode() != VIR_ERR_NO_DOMAIN)
				return -1;
			vm_errbuf[0] = '\0';
			continue;
		}
		/* a defined, shut-off domain holds nothing and is not ours */
		if (virDomainIsActive(dom) == 1 || virDomainIsPersistent(dom) != 1) {
			left++;
			if (virDomainIsActive(dom) == 1 && virDomainDestroy(dom) == 0)
				(*destroyed)++;
		}
		virDomainFree(dom);
	}
	return left;
}

int vm_clear_attempts(struct vm_host *h, const char *base, unsigned int attempt, double wait_s)
{
	double end = now_monotonic() + wait_s;
	unsigned int destroyed = 0;
	int left;

	for (;;) {
		left = destroy_attempts(h, base, attempt, &destroyed);
		if (left < 0) {
			lab_err("cannot look up the domains of %s at %s: %s; check that libvirtd is running",
				base, h->uri, vm_errbuf);
			return -1;
		}
		if (!left || now_monotonic() >= end)
			break;
		usleep(100000); /* libvirt is still tearing one down */
	}
	if (destroyed)
		lab_info("destroyed %u domain%s of an earlier attempt of %s", destroyed,
			 destroyed == 1 ? "" : "s", base);
	if (left)
		lab_warn("%d domain%s of an earlier attempt of %s still listed after %.0f s; "
			 "see `virsh -c %s list --all`",
			 left, left == 1 ? "" : "s", base, wait_s, h->uri);
	return left;
}
