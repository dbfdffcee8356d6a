// SPDX-License-Identifier: GPL-2.0
/*
 * accel.c - decide whether guests run under KVM or TCG (see accel.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <jansson.h>

#include "vm/accel.h"
#include "vm/accel_json.h"
#include "lib/timefmt.h"
#include "lib/util.h"

#define PROBE_CMDLINE "console=ttyS0 panic=-1"
#define PROBE_MEMORY_KIB (256u * 1024)

/*
 * The line QEMU itself printed in a libvirt error ("... qemu-system-x86_64:
 * error: failed to set MSR 0x10a to 0x69 qemu-system-x86_64: ..."), or the
 * whole message when there is none.
 */
static const char *qemu_said(const char *detail, char *buf, size_t len)
{
	const char *tag = "qemu-system-x86_64: ";
	const char *p = strstr(detail, tag), *end;

	if (!p)
		return detail;
	p += strlen(tag);
	if (!strncmp(p, "error: ", 7))
		p += 7;
	end = strstr(p, tag);
	snprintf(buf, len, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	/* trailing blanks before the next QEMU line */
	for (size_t n = strlen(buf); n && (buf[n - 1] == ' ' || buf[n - 1] == '\n'); n--)
		buf[n - 1] = '\0';
	return buf;
}

static void set_reason(struct accel_choice *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_reason(struct accel_choice *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

/* 0 when this host's /dev/kvm opens (or the URI is remote); -1 with out->reason */
static int kvm_device_usable(struct vm_host *h, struct accel_choice *out)
{
	int fd;

	if (!vm_is_local(h))
		return 0;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		set_reason(out, "/dev/kvm is not usable (%s)", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * 0 when libvirt offers KVM guests; -1 with out->reason set when not. It
 * costs libvirt a QEMU capabilities lookup (a QEMU probe when its cache is
 * stale), so a cached verdict goes without it.
 */
static int kvm_libvirt_usable(struct vm_host *h, struct accel_choice *out)
{
	char why[256];

	if (!vm_kvm_available(h, why, sizeof(why))) {
		set_reason(out, "libvirt at %s offers no KVM guests (%s)", vm_uri(h), why);
		return -1;
	}
	return 0;
}

/* the cache key: what a KVM verdict depends on */
static json_t *cache_key(struct vm_host *h, const char *cache_dir)
{
	struct utsname u;
	json_t *facts = vm_host_facts_cached(h, cache_dir), *key;

	if (!facts)
		return NULL;
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	key = accel_cache_key(facts, u.release);
	json_decref(facts);
	return key;
}

/* 1 and *out filled when cache_dir holds a verdict for key */
static int cache_load(const char *path, const json_t *key, struct accel_choice *out)
{
	struct accel_cache c;
	char err[256];
	size_t len;
	char *text;
	int ret, hit = 0;

	if (!path_exists(path))
		return 0;
	text = read_file(path, &len, ACCEL_CACHE_MAX);
	if (!text) {
		lab_warn("ignoring the accelerator cache %s: %s; probing again", path,
			 strerror(errno));
		return 0;
	}
	ret = accel_cache_parse(text, len, &c, err, sizeof(err));
	free(text);
	if (ret < 0)
		lab_warn("ignoring the accelerator cache %s: %s; probing again", path, err);
	if (!ret && json_equal(c.key, key)) {
		out->accel = c.accel;
		set_reason(out, "%s (cached in %s)", c.reason, path);
		out->cached = true;
		hit = 1;
	}
	accel_cache_free(&c);
	return hit;
}

static int cache_store(const char *cache_dir, const char *path, json_t *key,
		       const struct accel_choice *c, double probe_s)
{
	struct accel_cache v = { .key = key, .accel = c->accel, .probe_s = probe_s };
	char *text;
	int rc;

	if (mkdir_p(cache_dir, 0755) < 0)
		return -1;
	time_iso(time(NULL), v.probed_at);
	snprintf(v.reason, sizeof(v.reason), "%s", c->reason);
	text = accel_cache_dump(&v); /* v borrows key: not freed */
	if (!text) {
		lab_err("cannot encode the accelerator verdict for %s", path);
		return -1;
	}
	rc = write_file_atomic(path, text, strlen(text), 0644);
	free(text);
	return rc;
}

/* the last non-empty line of the console, printable ASCII only */
static void console_tail(const char *path, char *buf, size_t len)
{
	char data[4096], *line = NULL, *p;
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	if (fseek(f, -(long)(sizeof(data) - 1), SEEK_END) < 0)
		rewind(f);
	n = fread(data, 1, sizeof(data) - 1, f);
	fclose(f);
	data[n] = '\0';
	for (p = data; p < data + n; p++)
		if (*p == '\0' || ((unsigned char)*p < 0x20 && *p != '\n') ||
		    (unsigned char)*p > 0x7e)
			*p = ' ';
	for (p = strtok(data, "\n"); p; p = strtok(NULL, "\n"))
		if (strspn(p, " ") != strlen(p))
			line = p;
	if (line)
		snprintf(buf, len, "%s", line + strspn(line, " "));
}

static void probe_verdict(const struct vm_result *r, int ok, const char *console,
			  struct accel_choice *out)
{
	char tail[160];

	console_tail(console, tail, sizeof(tail));
	if (ok == 1) {
		out->accel = DOM_ACCEL_KVM;
		set_reason(out, "a probe boot reached the guest agent under KVM in %.1f s",
			   r->elapsed_s);
		return;
	}
	out->accel = DOM_ACCEL_TCG;
	switch (r->outcome) {
	case VM_TIMEOUT:
		set_reason(
			out,
			"KVM probe: the guest never reached the agent under KVM within %.0f s (console: %s)",
			ACCEL_PROBE_DEADLINE_S, *tail ? tail : "empty");
		break;
	case VM_CRASHED:
		set_reason(out, "KVM probe: the guest crashed under KVM: %s (console: %s)",
			   r->detail, *tail ? tail : "empty");
		break;
	case VM_ERROR: {
		char qemu[256];

		set_reason(out, "KVM probe: QEMU could not start a KVM guest: %s",
			   qemu_said(r->detail, qemu, sizeof(qemu)));
		break;
	}
	default:
		set_reason(
			out,
			"KVM probe: the guest stopped under KVM before the agent said hello (%s; console: %s)",
			r->detail, *tail ? tail : "empty");
		break;
	}
}

static char *probe_xml(enum dom_accel accel, const char *kernel, const char *initrd,
		       const char *console, const char *data)
{
	struct job_topology *t = xcalloc(1, sizeof(*t));
	struct domain_spec s = { 0 };
	char *name = xasprintf("mmlab-accel-probe-%ld", (long)getpid());
	char *xml;

	t->nnodes = 1;
	t->nodes[0].cpus = 1;
	t->nodes[0].memory_kib = PROBE_MEMORY_KIB;
	s.name = name;
	s.topo = t;
	s.accel = accel;
	s.kernel = kernel;
	s.initrd = initrd;
	s.cmdline = PROBE_CMDLINE;
	s.console_path = console;
	s.data_path = data;
	xml = topology_domain_xml(&s);
	free(name);
	free(t);
	return xml;
}

static int stop_at_once(double elapsed_s, void *arg)
{
	(void)elapsed_s;
	(void)arg;
	return VM_TICK_STOP;
}

/*
 * The KVM guest could not even be created. If the same guest cannot be
 * created under TCG either, the cause is not KVM (a path the QEMU user
 * cannot read, a broken libvirt): say so and do not cache a verdict.
 */
static int tcg_creates(struct vm_host *h, const char *kernel, const char *initrd,
		       const char *console, const char *data, const char *kvm_error)
{
	char *xml = probe_xml(DOM_ACCEL_TCG, kernel, initrd, console, data);
	struct vm_result r;

	if (!xml)
		return -1;
	vm_set_tick(h, stop_at_once, NULL);
	vm_run(h, xml, ACCEL_PROBE_DEADLINE_S, &r);
	vm_set_tick(h, NULL, NULL);
	free(xml);
	if (r.outcome != VM_ERROR)
		return 0;
	lab_err("the KVM probe guest could not be started under KVM (%s) nor under TCG (%s); check that %s and %s are readable by the QEMU user (libvirt-qemu) and that libvirtd works",
		kvm_error, r.detail, kernel, initrd ? initrd : "(no initrd)");
	return -1;
}

/* run the probe; 0 with out filled, -1 when interrupted or broken */
static int probe(struct vm_host *h, const char *kernel, const char *initrd, const char *workdir,
		 accel_probe_fn probe_ok, void *arg, struct accel_choice *out, double *secs)
{
	char *dir = realpath(workdir, NULL);
	char *console, *data, *xml;
	struct vm_result r;
	int rc = -1, ok = 0;

	if (!dir) {
		lab_err("cannot use %s for the KVM probe's files: %s; the caller must create it first",
			workdir, strerror(errno));
		return -1;
	}
	console = xasprintf("%s/accel-probe-console.log", dir);
	data = xasprintf("%s/accel-probe-data.bin", dir);
	xml = probe_xml(DOM_ACCEL_KVM, kernel, initrd, console, data);
	if (!xml)
		goto out;
	unlink(console);
	unlink(data);
	lab_info("probing KVM with a test boot (up to %.0f s, cached per host)",
		 ACCEL_PROBE_DEADLINE_S);
	vm_set_quiet(h, true);
	vm_set_tick(h, NULL, NULL);
	vm_run(h, xml, ACCEL_PROBE_DEADLINE_S, &r);
	*secs = r.elapsed_s;
	if (r.outcome == VM_ERROR && tcg_creates(h, kernel, initrd, console, data, r.detail) < 0) {
		vm_set_quiet(h, false);
		goto out;
	}
	vm_set_quiet(h, false);
	if (r.outcome == VM_INTERRUPTED) {
		lab_err("the KVM probe was interrupted; run again to decide between KVM and TCG, or set accel: tcg in the job");
		goto out;
	}
	if (r.outcome != VM_ERROR)
		ok = probe_ok(data, console, arg);
	probe_verdict(&r, ok, console, out);
	out->probed = true;
	rc = 0;
out:
	free(xml);
	free(dir);
	free(console);
	free(data);
	return rc;
}

static char *cache_path(const char *cache_dir)
{
	return xasprintf("%s/%s", cache_dir, ACCEL_CACHE_FILE);
}

int accel_decide(struct vm_host *h, enum accel_mode requested, const char *cache_dir,
		 bool force_probe, struct accel_choice *out)
{
	char *path;
	json_t *key;
	int hit;

	memset(out, 0, sizeof(*out));
	out->accel = DOM_ACCEL_TCG;
	if (requested == ACCEL_TCG) {
		set_reason(out, "requested by the job");
		return 1;
	}
	if (requested == ACCEL_KVM) {
		out->accel = DOM_ACCEL_KVM;
		set_reason(out, "requested by the job (not probed)");
		return 1;
	}
	if (kvm_device_usable(h, out) < 0)
		return 1;
	if (cache_dir && !force_probe) {
		key = cache_key(h, cache_dir);
		if (!key)
			return -1;
		path = cache_path(cache_dir);
		hit = cache_load(path, key, out);
		json_decref(key);
		free(path);
		if (hit)
			return 1;
	}
	return kvm_libvirt_usable(h, out) < 0 ? 1 : 0;
}

int accel_probe(struct vm_host *h, const char *cache_dir, const char *kernel,
		const char *probe_initrd, const char *workdir, accel_probe_fn probe_ok, void *arg,
		struct accel_choice *out)
{
	char *path;
	json_t *key = NULL;
	double secs = 0;

	if (cache_dir) {
		key = cache_key(h, cache_dir);
		if (!key)
			return -1;
	}
	if (probe(h, kernel, probe_initrd, workdir, probe_ok, arg, out, &secs) < 0) {
		json_decref(key);
		return -1;
	}
	if (cache_dir) {
		path = cache_path(cache_dir);
		if (cache_store(cache_dir, path, key, out, secs) < 0)
			lab_warn(
				"the accelerator verdict was not cached; the next run probes again");
		free(path);
	}
	json_decref(key);
	return 0;
}
