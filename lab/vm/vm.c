// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - running one guest through the libvirt C API.
 *
 * One thread does everything: vm_run() creates the domain, then turns the
 * libvirt default event loop (virEventRunDefaultImpl) with a 100 ms timer
 * so it returns at least that often; between turns it checks the deadline,
 * the stop flag, the tick callback and the domain state. Lifecycle and
 * reboot events are the primary source of truth; virDomainGetState() is the
 * fallback when an event is lost (and the only source if the event loop
 * could not be registered).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "lib/util.h"
#include "vm/vm.h"
#include "vm/vm_int.h"

#define VM_DEFAULT_URI "qemu:///system"
#define VM_TICK_MS 100
/* after a domain vanished, how long to wait for its lifecycle event */
#define VM_EVENT_GRACE_S 0.5
/* after the connection to libvirtd broke, how long to try to reopen it */
#define VM_RECONNECT_S 60

/* what one vm_run() learnt from events, filled by the callbacks */
struct vm_watch {
	const char *name;
	bool stopped, crashed, paused_bad, reset;
	bool shut_down; /* the guest finished shutting down: libvirt destroys it */
	int shutdown_detail; /* VIR_DOMAIN_EVENT_SHUTDOWN_* */
	int stop_detail; /* VIR_DOMAIN_EVENT_STOPPED_* */
	char why[256];
	const char *output_path; /* the watched file, or NULL */
	double first_output; /* its first write */
	double create_real; /* CLOCK_REALTIME at the create call */
	/*
	 * the domain's UUID, once it exists: an event about an earlier domain
	 * of the same name (a paused one destroyed just before) is not its
	 */
	unsigned char uuid[VIR_UUID_BUFLEN];
	bool have_uuid;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void error_handler(void *arg, virErrorPtr err)
{
	(void)arg;
	if (err && err->message)
		snprintf(vm_errbuf, sizeof(vm_errbuf), "%s", err->message);
}

static void vm_global_init(void)
{
	virSetErrorFunc(NULL, error_handler);
	if (virInitialize() < 0)
		return;
	vm_event_loop_ok = virEventRegisterDefaultImpl() == 0;
}

const char *vm_last_error(void)
{
	return vm_errbuf;
}

void vm_request_stop(void)
{
	vm_stop_flag = 1;
}

bool vm_stop_requested(void)
{
	return vm_stop_flag != 0;
}

void vm_clear_stop(void)
{
	vm_stop_flag = 0;
}

const char *vm_outcome_name(enum vm_outcome o)
{
	switch (o) {
	case VM_POWEROFF:
		return "poweroff";
	case VM_CRASHED:
		return "crashed";
	case VM_TIMEOUT:
		return "timeout";
	case VM_INTERRUPTED:
		return "interrupted";
	case VM_ERROR:
		return "error";
	case VM_LOST:
		return "lost";
	}
	return "unknown";
}

struct vm_host *vm_connect(const char *uri)
{
	struct vm_host *h;
	virConnectPtr conn;

	pthread_once(&init_once, vm_global_init);
	if (!uri)
		uri = getenv("MMLAB_LIBVIRT_URI");
	if (!uri || !*uri)
		uri = VM_DEFAULT_URI;
	vm_errbuf[0] = '\0';
	conn = virConnectOpen(uri);
	if (!conn) {
		lab_err("libvirtd is unreachable at %s (%s); start it: as root without systemd `virtlogd -d && libvirtd -d`, with systemd `systemctl start libvirtd`, or set MMLAB_LIBVIRT_URI",
			uri, *vm_errbuf ? vm_errbuf : "no error text");
		return NULL;
	}
	h = xcalloc(1, sizeof(*h));
	h->conn = conn;
	h->uri = xstrdup(uri);
	h->watch = -1;
	return h;
}

/*
 * Deregister the lifecycle callback of domains libvirt is destroying
 * (watching()) from the connection it is on, before that one is closed.
 */
static void unwatch(struct vm_host *h)
{
	if (h->watch >= 0 && h->watched)
		virConnectDomainEventDeregisterAny(h->watched, h->watch);
	h->watch = -1;
	h->watched = NULL;
}

/*
 * Open uri again, trying for up to VM_RECONNECT_S while libvirtd restarts
 * (systemd's restart, or a daemon killed and started by hand). NULL when
 * it did not come back or mmlab was told to stop; vm_errbuf says why.
 */
static virConnectPtr reopen(const char *uri)
{
	double end = now_monotonic() + VM_RECONNECT_S;
	virConnectPtr conn = NULL;

	while (!conn && !vm_stop_flag) {
		vm_errbuf[0] = '\0';
		conn = virConnectOpen(uri);
		if (conn || now_monotonic() >= end)
			break;
		usleep(500000);
	}
	return conn;
}

int vm_ensure_connected(struct vm_host *h)
{
	unsigned long ver;
	virConnectPtr conn;

	/* IsAlive alone trusts a socket the idle client has not read from:
	 * a real call finds out */
	if (virConnectIsAlive(h->conn) == 1 && virConnectGetLibVersion(h->conn, &ver) == 0)
		return 0;
	conn = reopen(h->uri);
	if (!conn) {
		lab_err("the connection to libvirtd at %s was lost and cannot be reopened within %d s (%s); check that libvirtd is running",
			h->uri, VM_RECONNECT_S, *vm_errbuf ? vm_errbuf : "no error text");
		return -1;
	}
	unwatch(h);
	virConnectClose(h->conn);
	h->conn = conn;
	return 0;
}

static void tick_cb(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

/*
 * Close a working connection whose event callbacks are all deregistered.
 * An event that reaches libvirt 9.0's client while it closes the
 * connection makes it take a reference to the connection being freed and
 * wait on its own lock: a queue worker hung so in virConnectClose(), with
 * "g_object_ref: assertion '!object_already_finalized' failed" in its log,
 * on an event about another worker's domain. The server sends none once
 * the callbacks are deregistered, but one it had on its way before may
 * still come: a round trip receives it, and one turn of the loop
 * dispatches it, while the connection is alive.
 */
static void close_quiet(virConnectPtr conn)
{
	unsigned long ver;
	int t;

	if (virConnectIsAlive(conn) == 1 && virConnectGetLibVersion(conn, &ver) == 0 &&
	    vm_event_loop_ok) {
		t = virEventAddTimeout(0, tick_cb, NULL, NULL);
		if (t >= 0) {
			virEventRunDefaultImpl();
			virEventRemoveTimeout(t);
		}
	}
	vm_errbuf[0] = '\0';
	virConnectClose(conn);
}

void vm_disconnect(struct vm_host *h)
{
	if (!h)
		return;
	vm_prestart_drop(h);
	vm_reap(h);
	unwatch(h);
	close_quiet(h->conn);
	free(h->output_path);
	free(h->uri);
	free(h);
}

const char *vm_uri(struct vm_host *h)
{
	return h->uri;
}

void vm_set_tick(struct vm_host *h, vm_tick_fn fn, void *arg)
{
	h->tick = fn;
	h->tick_arg = arg;
}

void vm_set_output_watch(struct vm_host *h, const char *path)
{
	free(h->output_path);
	h->output_path = path ? xstrdup(path) : NULL;
}

void vm_set_quiet(struct vm_host *h, bool quiet)
{
	h->quiet = quiet;
}

/* libvirt messages may span lines (QEMU's stderr): make them one line */
static void flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static void set_version(json_t *o, const char *key, unsigned long v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%lu.%lu.%lu", v / 1000000, (v / 1000) % 1000, v % 1000);
	json_object_set_new(o, key, json_string(buf));
}

json_t *vm_host_id(struct vm_host *h)
{
	unsigned long lib = 0;
	char *host;
	json_t *o;

	if (virConnectGetLibVersion(h->conn, &lib) < 0) {
		lab_err("cannot get the libvirt version from %s: %s; check that libvirtd is still running",
			h->uri, vm_errbuf);
		return NULL;
	}
	host = virConnectGetHostname(h->conn);
	o = json_object();
	set_version(o, "libvirt", lib);
	json_object_set_new(o, "uri", json_string(h->uri));
	json_object_set_new(o, "hostname", json_string(host ? host : ""));
	free(host);
	return o;
}

json_t *vm_host_facts(struct vm_host *h)
{
	unsigned long hv = 0;
	json_t *o = vm_host_id(h);

	if (!o)
		return NULL;
	if (virConnectGetVersion(h->conn, &hv) < 0) {
		lab_err("cannot get the QEMU version from %s: %s; check that libvirtd is still running",
			h->uri, vm_errbuf);
		json_decref(o);
		return NULL;
	}
	set_version(o, "qemu", hv);
	return o;
}

bool vm_is_local(const struct vm_host *h)
{
	return strstr(h->uri, ":///") != NULL && !strchr(h->uri, '+');
}

int vm_kvm_available(struct vm_host *h, char *why, size_t len)
{
	char *caps;

	caps = virConnectGetDomainCapabilities(h->conn, NULL, "x86_64", "pc", "kvm", 0);
	if (!caps) {
		snprintf(why, len, "%s", vm_errbuf);
		flatten(why);
		return 0;
	}
	free(caps);
	snprintf(why, len, "libvirt lists domain type kvm");
	return 1;
}

static const char *stopped_name(int detail)
{
	switch (detail) {
	case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN:
		return "shutdown";
	case VIR_DOMAIN_EVENT_STOPPED_DESTROYED:
		return "destroyed";
	case VIR_DOMAIN_EVENT_STOPPED_CRASHED:
		return "crashed";
	case VIR_DOMAIN_EVENT_STOPPED_FAILED:
		return "failed";
	default:
		return "other";
	}
}

/* the event is about the watched domain: its name, and its UUID once known */
static bool watched_domain(virDomainPtr dom, const struct vm_watch *w)
{
	unsigned char uuid[VIR_UUID_BUFLEN];

	if (strcmp(virDomainGetName(dom), w->name))
		return false;
	return !w->have_uuid ||
	       (virDomainGetUUID(dom, uuid) == 0 && !memcmp(uuid, w->uuid, VIR_UUID_BUFLEN));
}

static void lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct vm_watch *w = opaque;

	(void)conn;
	if (!watched_domain(dom, w))
		return;
	switch (event) {
	case VIR_DOMAIN_EVENT_SHUTDOWN:
		w->shut_down = true;
		w->shutdown_detail = detail;
		break;
	case VIR_DOMAIN_EVENT_STOPPED:
		w->stopped = true;
		w->stop_detail = detail;
		if (detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED ||
		    detail == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
			w->crashed = true;
			if (!*w->why)
				snprintf(w->why, sizeof(w->why), "libvirt: domain stopped (%s)",
					 stopped_name(detail));
		}
		break;
	case VIR_DOMAIN_EVENT_CRASHED:
		w->crashed = true;
		snprintf(w->why, sizeof(w->why), "libvirt: guest crashed (%s)",
			 detail == VIR_DOMAIN_EVENT_CRASHED_PANICKED ?
				 "kernel panic reported by pvpanic" :
				 "crash loaded");
		break;
	case VIR_DOMAIN_EVENT_SUSPENDED:
		if (detail == VIR_DOMAIN_EVENT_SUSPENDED_IOERROR ||
		    detail == VIR_DOMAIN_EVENT_SUSPENDED_WATCHDOG) {
			w->paused_bad = true;
			snprintf(w->why, sizeof(w->why), "libvirt: guest paused (%s)",
				 detail == VIR_DOMAIN_EVENT_SUSPENDED_IOERROR ? "I/O error" :
										"watchdog");
		}
		break;
	default:
		break;
	}
}

static void reboot_cb(virConnectPtr conn, virDomainPtr dom, void *opaque)
{
	struct vm_watch *w = opaque;

	(void)conn;
	if (watched_domain(dom, w))
		w->reset = true;
}

static const char *paused_reason_name(int r)
{
	switch (r) {
	case VIR_DOMAIN_PAUSED_UNKNOWN:
		return "unknown reason (QEMU internal error?)";
	case VIR_DOMAIN_PAUSED_IOERROR:
		return "I/O error";
	case VIR_DOMAIN_PAUSED_WATCHDOG:
		return "watchdog";
	case VIR_DOMAIN_PAUSED_CRASHED:
		return "crashed";
	default:
		return NULL; /* a pause we do not treat as a failure */
	}
}

/*
 * Poll the state. Returns 1 when the domain is gone or shut off, 2 when
 * it is paused for a failure (w->why set), 3 when the connection to
 * libvirtd broke, 0 while it runs.
 */
static int poll_state(virDomainPtr dom, struct vm_watch *w)
{
	int state, reason;
	const char *why;

	if (virDomainGetState(dom, &state, &reason, 0) < 0) {
		if (virConnectIsAlive(virDomainGetConnect(dom)) != 1)
			return 3; /* libvirtd went away: the guest may run on */
		return 1; /* a transient domain vanishes when it stops */
	}
	if (state == VIR_DOMAIN_SHUTOFF)
		return 1;
	if (state == VIR_DOMAIN_CRASHED) {
		snprintf(w->why, sizeof(w->why), "libvirt: guest crashed (%s)",
			 reason == VIR_DOMAIN_CRASHED_PANICKED ?
				 "kernel panic reported by pvpanic" :
				 "unknown reason");
		return 2;
	}
	if (state == VIR_DOMAIN_PMSUSPENDED) {
		snprintf(w->why, sizeof(w->why), "libvirt: guest suspended itself (ACPI S3/S4)");
		return 2;
	}
	if (state != VIR_DOMAIN_PAUSED)
		return 0;
	why = paused_reason_name(reason);
	if (!why)
		return 0;
	snprintf(w->why, sizeof(w->why), "libvirt: guest paused (%s)", why);
	return 2;
}

/*
 * Best effort: QEMU writes "KVM internal error ..." to the domain's log,
 * not to libvirt's API. For a local qemu:///system, append the last such
 * line to detail.
 */
static void add_qemu_log_error(const struct vm_host *h, const char *name, char *detail, size_t len)
{
	char *path, *buf, *p, *line = NULL;
	size_t n;

	if (strcmp(h->uri, "qemu:///system"))
		return;
	path = xasprintf("/var/log/libvirt/qemu/%s.log", name);
	if (access(path, R_OK) < 0) {
		free(path);
		return;
	}
	buf = read_file(path, &n, 16u << 20);
	free(path);
	if (!buf)
		return;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (strstr(p, "error") || strstr(p, "failure"))
			line = p;
	if (line)
		snprintf(detail + strlen(detail), len - strlen(detail), "; QEMU log: %.200s", line);
	free(buf);
}

struct vm_events {
	virConnectPtr conn; /* the one they were registered on */
	int lifecycle, reboot, timer;
	int output, output_fd; /* the inotify handle and fd of the watched file */
};

/*
 * The watched file's first write: the first change that leaves it
 * non-empty. libvirt may replace the file when it opens it for QEMU, so
 * its directory is watched for a new one, and the file's watch follows
 * the path. Then the handle sleeps: a serial port's file is written a
 * byte at a time.
 */
static void output_cb(int watch, int fd, int events, void *opaque)
{
	struct vm_watch *w = opaque;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct stat st;

	(void)events;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	inotify_add_watch(fd, w->output_path, IN_MODIFY);
	if (stat(w->output_path, &st) || !st.st_size)
		return;
	w->first_output = now_monotonic();
	virEventUpdateHandle(watch, 0);
}

/* watch path for writes and its directory for a new file of that name */
static int output_watch(int fd, const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int ret = -1;

	if (slash) {
		*slash = '\0';
		if (inotify_add_watch(fd, *dir ? dir : "/", IN_CREATE | IN_MOVED_TO) >= 0 &&
		    inotify_add_watch(fd, path, IN_MODIFY) >= 0)
			ret = 0;
	}
	free(dir);
	return ret;
}

static void output_register(struct vm_host *h, struct vm_watch *w, struct vm_events *ev)
{
	ev->output = ev->output_fd = -1;
	if (!h->output_path)
		return;
	ev->output_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ev->output_fd < 0)
		return;
	w->output_path = h->output_path;
	if (!output_watch(ev->output_fd, h->output_path))
		ev->output = virEventAddHandle(ev->output_fd, VIR_EVENT_HANDLE_READABLE, output_cb,
					       w, NULL);
	if (ev->output < 0) {
		close(ev->output_fd);
		ev->output_fd = -1;
	}
}

static void events_register(struct vm_host *h, struct vm_watch *w, struct vm_events *ev)
{
	ev->lifecycle = ev->reboot = ev->timer = ev->output = ev->output_fd = -1;
	ev->conn = h->conn;
	if (!vm_event_loop_ok)
		return;
	output_register(h, w, ev);
	ev->lifecycle = virConnectDomainEventRegisterAny(
		h->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
		VIR_DOMAIN_EVENT_CALLBACK((void (*)(void))lifecycle_cb), w, NULL);
	ev->reboot = virConnectDomainEventRegisterAny(
		h->conn, NULL, VIR_DOMAIN_EVENT_ID_REBOOT,
		VIR_DOMAIN_EVENT_CALLBACK((void (*)(void))reboot_cb), w, NULL);
	ev->timer = virEventAddTimeout(VM_TICK_MS, tick_cb, NULL, NULL);
}

static void events_unregister(struct vm_host *h, struct vm_events *ev)
{
	(void)h;
	if (ev->lifecycle >= 0)
		virConnectDomainEventDeregisterAny(ev->conn, ev->lifecycle);
	if (ev->reboot >= 0)
		virConnectDomainEventDeregisterAny(ev->conn, ev->reboot);
	if (ev->timer >= 0)
		virEventRemoveTimeout(ev->timer);
	/* a removed handle is never polled again: its fd may close now */
	if (ev->output >= 0)
		virEventRemoveHandle(ev->output);
	if (ev->output_fd >= 0)
		close(ev->output_fd);
}

static double realtime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The last write to the watched file, from its mtime (the kernel's coarse
 * clock: a few ms) moved from the realtime to the monotonic clock; 0 when
 * it was not written since create_real.
 */
static double last_output(const struct vm_host *h, double create_real)
{
	struct stat st;
	double mtime, now_mono = now_monotonic();

	if (!h->output_path || stat(h->output_path, &st) || !st.st_size)
		return 0;
	mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
	if (mtime < create_real)
		return 0;
	return now_mono - (realtime_now() - mtime);
}

/*
 * One turn: run the event loop for VM_TICK_MS, or less when an event says
 * the domain stopped, crashed or paused (or sleep without an event loop).
 * One virEventRunDefaultImpl() is not a turn: every RPC this thread makes
 * (virDomainGetState() in the checks) wakes the loop through its eventfd,
 * so it returns at once and the checks would spin at a thousand RPCs a
 * second, costing libvirtd and us more CPU than a TCG guest's own vCPU.
 */
static void turn(const struct vm_events *ev, const struct vm_watch *w)
{
	double until = now_monotonic() + VM_TICK_MS / 1000.0;

	if (ev->timer < 0) {
		usleep(VM_TICK_MS * 1000);
		return;
	}
	do
		virEventRunDefaultImpl();
	while (!w->stopped && !w->shut_down && !w->crashed && !w->paused_bad && !vm_stop_flag &&
	       now_monotonic() < until);
}

/*
 * The guest shut down: QEMU stopped it, and libvirt, which destroys it
 * (on_poweroff), kills QEMU and says STOPPED only after sleeping 200 ms in
 * its kill loop: the outcome is known without waiting for that. Events
 * already received are handled, without blocking. (A kernel panic is not
 * a shutdown: with pvpanic QEMU pauses the guest and libvirt says CRASHED,
 * measured with libvirt 9.0 and QEMU 7.2; without it the console shows it.)
 */
static void drain_events(const struct vm_events *ev)
{
	if (ev->timer < 0)
		return;
	virEventUpdateTimeout(ev->timer, 0);
	virEventRunDefaultImpl();
	virEventUpdateTimeout(ev->timer, VM_TICK_MS);
}

/* the domain stopped by itself: classify with what the events said */
static void classify_stop(const struct vm_events *ev, struct vm_watch *w, struct vm_result *res)
{
	double until = now_monotonic() + VM_EVENT_GRACE_S;

	if (w->shut_down)
		drain_events(ev);
	while (ev->lifecycle >= 0 && !w->stopped && !w->shut_down && now_monotonic() < until)
		turn(ev, w);
	res->guest_reset = w->reset;
	if (w->crashed) {
		res->outcome = VM_CRASHED;
		snprintf(res->detail, sizeof(res->detail), "%s", w->why);
	} else {
		res->outcome = VM_POWEROFF;
		if (w->stopped)
			snprintf(res->detail, sizeof(res->detail), "libvirt: domain stopped: %s",
				 stopped_name(w->stop_detail));
		else if (w->shut_down)
			snprintf(res->detail, sizeof(res->detail), "libvirt: guest shut down (%s)",
				 w->shutdown_detail == VIR_DOMAIN_EVENT_SHUTDOWN_HOST ?
					 "asked by the host" :
					 "by itself");
		else
			snprintf(res->detail, sizeof(res->detail),
				 "domain went away (no lifecycle event seen)");
		if (w->reset)
			snprintf(
				res->detail + strlen(res->detail),
				sizeof(res->detail) - strlen(res->detail),
				" after a guest reset (reboot, or a kernel panic with panic=-1: check the console)");
	}
}

/* 1 when the run has an outcome in res */
static int check_once(struct vm_host *h, virDomainPtr dom, const struct vm_events *ev,
		      struct vm_watch *w, double t0, double deadline, struct vm_result *res)
{
	double now = now_monotonic();
	int st, t;

	if (w->crashed || w->paused_bad) {
		res->outcome = VM_CRASHED;
		snprintf(res->detail, sizeof(res->detail), "%s", w->why);
		return 1;
	}
	st = w->stopped || w->shut_down ? 1 : poll_state(dom, w);
	if (st == 3) {
		res->outcome = VM_LOST;
		snprintf(
			res->detail, sizeof(res->detail),
			"the connection to libvirtd broke after %.1f s (libvirtd stopped or restarted)",
			now - t0);
		return 1;
	}
	if (st == 1) {
		classify_stop(ev, w, res);
		return 1;
	}
	if (st == 2) {
		res->outcome = VM_CRASHED;
		snprintf(res->detail, sizeof(res->detail), "%s", w->why);
		return 1;
	}
	if (vm_stop_flag) {
		res->outcome = VM_INTERRUPTED;
		snprintf(res->detail, sizeof(res->detail),
			 "stop requested after %.1f s; domain destroyed", now - t0);
		return 1;
	}
	if (now >= deadline) {
		res->outcome = VM_TIMEOUT;
		snprintf(res->detail, sizeof(res->detail),
			 "deadline of %.1f s passed; domain destroyed", deadline - t0);
		return 1;
	}
	t = h->tick ? h->tick(now - t0, h->tick_arg) : VM_TICK_CONTINUE;
	if (t == VM_TICK_CONTINUE)
		return 0;
	res->outcome = t == VM_TICK_TIMEOUT ? VM_TIMEOUT : VM_INTERRUPTED;
	snprintf(res->detail, sizeof(res->detail),
		 "%s by the caller after %.1f s; domain destroyed",
		 t == VM_TICK_TIMEOUT ? "timed out" : "stopped", now - t0);
	return 1;
}

/*
 * libvirtd went away while the guest ran. QEMU runs on, and a libvirtd that
 * comes back finds it again, without the autodestroy of our dead
 * connection: reconnect (for up to VM_RECONNECT_S) and destroy it by name,
 * so that no domain is left behind. The result says what happened.
 */
static void recover_lost(struct vm_host *h, const char *name, struct vm_result *res)
{
	size_t len = strlen(res->detail);
	virConnectPtr conn = reopen(h->uri);
	virDomainPtr dom;

	if (!conn) {
		snprintf(res->detail + len, sizeof(res->detail) - len,
			 "; libvirtd did not come back within %d s, so domain %s may still run: "
			 "`virsh -c %s destroy %s` once it is back",
			 VM_RECONNECT_S, name, h->uri, name);
		return;
	}
	h->conn = conn; /* vm_run() closes the broken one */
	dom = virDomainLookupByName(conn, name);
	if (dom) {
		vm_destroy_domain(dom);
		virDomainFree(dom);
		snprintf(res->detail + len, sizeof(res->detail) - len,
			 "; reconnected and destroyed the domain");
	} else {
		snprintf(res->detail + len, sizeof(res->detail) - len,
			 "; reconnected, the domain was gone");
	}
}

static int run_created(struct vm_host *h, virDomainPtr dom, const struct vm_events *ev,
		       struct vm_watch *w, double t0, double deadline_s, struct vm_result *res)
{
	double deadline = t0 + deadline_s;

	while (!check_once(h, dom, ev, w, t0, deadline, res))
		turn(ev, w);
	res->t.outcome = now_monotonic();
	res->elapsed_s = res->t.outcome - t0;
	res->t.first_output = w->first_output;
	res->t.last_output = last_output(h, w->create_real);
	if (res->outcome == VM_LOST) {
		recover_lost(h, w->name, res);
		flatten(res->detail);
		return 0;
	}
	if (res->outcome == VM_POWEROFF && w->shut_down && !w->stopped)
		vm_add_pending(h, w->name); /* libvirt is destroying it */
	else
		vm_destroy_domain(dom);
	if (res->outcome == VM_CRASHED)
		add_qemu_log_error(h, w->name, res->detail, sizeof(res->detail));
	flatten(res->detail);
	return 0;
}

int vm_run(struct vm_host *h, const char *xml, double deadline_s, struct vm_result *res)
{
	struct vm_watch w = { 0 };
	struct vm_events ev;
	virDomainPtr dom;
	double t0;
	char *name = vm_xml_domain_name(xml);
	int rc;

	memset(res, 0, sizeof(*res));
	vm_reap_pending(h, name); /* a domain of that name still going */
	if (vm_stop_flag) {
		vm_prestart_drop(h);
		res->outcome = VM_INTERRUPTED;
		snprintf(res->detail, sizeof(res->detail),
			 "stop requested before the domain was created");
		free(name);
		return 0;
	}
	w.name = name;
	events_register(h, &w, &ev);
	vm_errbuf[0] = '\0';
	w.create_real = realtime_now();
	res->t.create = t0 = now_monotonic();
	dom = vm_resume_prestarted(h, name, res);
	if (!dom)
		dom = virDomainCreateXML(h->conn, xml, VIR_DOMAIN_START_AUTODESTROY);
	res->t.started = now_monotonic();
	if (!dom) {
		/* libvirtd gone mid-call: its files are not what is wrong */
		bool lost = virConnectIsAlive(h->conn) != 1;

		res->outcome = VM_ERROR;
		res->elapsed_s = now_monotonic() - t0;
		/* the error cut to what fits after the prefix */
		snprintf(res->detail, sizeof(res->detail), "%s%.440s",
			 lost ? "libvirtd closed the connection while it created the domain: " : "",
			 vm_errbuf);
		flatten(res->detail);
		if (!h->quiet && lost)
			lab_err("cannot start domain %s at %s: %s; is libvirtd running? (scripts/start-libvirt starts it)",
				name, h->uri, res->detail);
		else if (!h->quiet)
			lab_err("cannot start domain %s at %s: %s; check that the kernel and initrd are readable by the QEMU user (libvirt-qemu) and see /var/log/libvirt/qemu/%s.log",
				name, h->uri, res->detail, name);
		events_unregister(h, &ev);
		free(name);
		return -1;
	}
	w.have_uuid = virDomainGetUUID(dom, w.uuid) == 0;
	rc = run_created(h, dom, &ev, &w, t0, deadline_s, res);
	events_unregister(h, &ev);
	virDomainFree(dom);
	res->t.torn_down = now_monotonic();
	if (h->conn != ev.conn) {
		if (h->watched == ev.conn)
			unwatch(h); /* it goes with the broken connection */
		virConnectClose(ev.conn); /* broken, replaced by recover_lost() */
	}
	free(name);
	return rc;
}
