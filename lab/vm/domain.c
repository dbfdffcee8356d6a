// SPDX-License-Identifier: GPL-2.0
/*
 * domain.c - what vm.c and teardown.c share (vm_int.h): the process's
 * libvirt state, and two steps on one domain.
 */
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "lib/util.h"
#include "vm/vm_int.h"

volatile sig_atomic_t vm_stop_flag;
char vm_errbuf[512];
bool vm_event_loop_ok;

void vm_destroy_domain(virDomainPtr dom)
{
	int state, reason;

	if (virDomainGetState(dom, &state, &reason, 0) < 0 || state == VIR_DOMAIN_SHUTOFF)
		return;
	if (virDomainDestroy(dom) < 0 && virDomainGetState(dom, &state, &reason, 0) == 0 &&
	    state != VIR_DOMAIN_SHUTOFF)
		lab_warn(
			"cannot destroy domain %s: %s; it dies when mmlab exits (autodestroy), or run `virsh destroy %s`",
			virDomainGetName(dom), vm_errbuf, virDomainGetName(dom));
}

char *vm_xml_domain_name(const char *xml)
{
	const char *p = strstr(xml, "<name>"), *e;

	if (!p)
		return xstrdup("?");
	p += strlen("<name>");
	e = strstr(p, "</name>");
	return e ? xstrndup(p, (size_t)(e - p)) : xstrdup("?");
}
