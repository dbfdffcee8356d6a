// SPDX-License-Identifier: GPL-2.0
/*
 * run_record_json.c - run.json to and from struct run_record (see run_record.h).
 *
 * Reading takes a copy of each object and moves the keys it knows out of
 * it, each only when its value is exactly what writing would give back
 * (a string, an integer in range, a true flag, ...); what is left is the
 * object's "rest". Writing starts from the rest and sets the known keys.
 * An object that must be whole (an "order" without its seed, a boot
 * without its count) stays in its parent's rest untouched.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_mmtests.h"
#include "job/job_own.h"
#include "store/run_record.h"

/* ---- reading: move a key out of o into a typed field ---------------- */

static bool take_str(json_t *o, const char *key, char **out)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		return false;
	*out = xstrdup(s);
	json_object_del(o, key);
	return true;
}

/* an integer in [min, max] */
static bool take_int(json_t *o, const char *key, long long min, long long max, long long *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return false;
	*out = json_integer_value(v);
	json_object_del(o, key);
	return true;
}

static bool take_uint(json_t *o, const char *key, unsigned int min, unsigned int *out)
{
	long long v;

	if (!take_int(o, key, min, UINT_MAX, &v))
		return false;
	*out = (unsigned int)v;
	return true;
}

/* a flag written only when true: a false one stays in the rest */
static bool take_true(json_t *o, const char *key, bool *out)
{
	if (!json_is_true(json_object_get(o, key)))
		return false;
	*out = true;
	json_object_del(o, key);
	return true;
}

static bool take_bool(json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return false;
	*out = json_is_true(v);
	json_object_del(o, key);
	return true;
}

static bool take_real(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_real(v))
		return false;
	*out = json_real_value(v);
	json_object_del(o, key);
	return true;
}

/* a JSON value of the given type, as it is */
static bool take_json(json_t *o, const char *key, json_type type, json_t **out)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_typeof(v) != type)
		return false;
	*out = json_incref(v);
	json_object_del(o, key);
	return true;
}

/* ---- writing --------------------------------------------------------- */

static json_t *rest_copy(const json_t *rest)
{
	return rest ? json_deep_copy(rest) : json_object();
}

static void put_str(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, json_string(s));
}

static void put_int(json_t *o, const char *key, long long v)
{
	if (v)
		json_object_set_new(o, key, json_integer((json_int_t)v));
}

static void put_true(json_t *o, const char *key, bool v)
{
	if (v)
		json_object_set_new(o, key, json_true());
}

static void put_json(json_t *o, const char *key, json_t *v)
{
	if (v)
		json_object_set(o, key, v);
}

/* ---- order ------------------------------------------------------------ */

static bool take_strlist(json_t *o, const char *key, struct strlist *out)
{
	json_t *a = json_object_get(o, key), *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, e)
		if (!json_is_string(e))
			return false;
	json_array_foreach(a, i, e)
		strlist_push(out, json_string_value(e));
	json_object_del(o, key);
	return true;
}

static bool order_read(const json_t *j, struct run_order *o)
{
	char *mode = NULL;
	long long seed;
	bool ok;

	o->rest = json_deep_copy(j);
	ok = take_str(o->rest, "mode", &mode) &&
	     take_int(o->rest, "seed", LLONG_MIN, LLONG_MAX, &seed);
	if (ok && !strcmp(mode, "random"))
		o->mode = RUN_ORDER_RANDOM;
	else if (ok && !strcmp(mode, "sequential"))
		o->mode = RUN_ORDER_SEQUENTIAL;
	else
		ok = false;
	free(mode);
	if (!ok) {
		run_order_release(o);
		return false;
	}
	o->seed = (unsigned long)seed;
	o->has_sequence = take_strlist(o->rest, "sequence", &o->sequence);
	return true;
}

static json_t *order_json(const struct run_order *o)
{
	json_t *j = rest_copy(o->rest);

	json_object_set_new(j, "mode",
			    json_string(o->mode == RUN_ORDER_SEQUENTIAL ? "sequential" : "random"));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	if (o->has_sequence) {
		json_t *a = json_array();

		for (size_t i = 0; i < o->sequence.n; i++)
			json_array_append_new(a, json_string(o->sequence.v[i]));
		json_object_set_new(j, "sequence", a);
	}
	return j;
}

/* ---- variants[].kernel -------------------------------------------------- */

static void kernel_read(const json_t *j, struct run_kernel *k)
{
	k->rest = json_deep_copy(j);
	take_str(k->rest, "path", &k->path);
	take_str(k->rest, "release", &k->release);
	take_str(k->rest, "sha256", &k->sha256);
	take_str(k->rest, "cache_key", &k->cache_key);
	take_str(k->rest, "build_log", &k->build_log);
	take_true(k->rest, "build_failed", &k->build_failed);
	take_true(k->rest, "build_pending", &k->build_pending);
	take_str(k->rest, "request", &k->request);
	take_str(k->rest, "base_commit", &k->base_commit);
	take_json(k->rest, "operations", JSON_ARRAY, &k->operations);
	take_json(k->rest, "package", JSON_OBJECT, &k->package);
	k->has_cache_hit = take_bool(k->rest, "cache_hit", &k->cache_hit);
}

int run_kernel_from_json(const json_t *j, struct run_kernel *k)
{
	memset(k, 0, sizeof(*k));
	if (!json_is_object(j))
		return -1;
	kernel_read(j, k);
	return 0;
}

static json_t *kernel_json(const struct run_kernel *k)
{
	json_t *j = rest_copy(k->rest);

	put_str(j, "path", k->path);
	put_str(j, "release", k->release);
	put_str(j, "sha256", k->sha256);
	put_str(j, "cache_key", k->cache_key);
	put_str(j, "build_log", k->build_log);
	put_true(j, "build_failed", k->build_failed);
	put_true(j, "build_pending", k->build_pending);
	put_str(j, "request", k->request);
	put_str(j, "base_commit", k->base_commit);
	put_json(j, "operations", k->operations);
	put_json(j, "package", k->package);
	if (k->has_cache_hit)
		json_object_set_new(j, "cache_hit", json_boolean(k->cache_hit));
	return j;
}

/* k becomes the kernel of j (an object), with its own operations, if it has some */
static void kernel_replace(struct run_kernel *k, const json_t *j)
{
	json_t *ops = k->operations ? json_incref(k->operations) : NULL;

	run_kernel_release(k);
	kernel_read(j, k);
	if (ops) {
		json_decref(k->operations);
		k->operations = ops;
	}
}

json_t *run_kernel_build_result(const struct run_kernel *k)
{
	json_t *j = kernel_json(k);

	json_object_del(j, "operations");
	return j;
}

void run_kernel_built(struct run_kernel *k, const struct run_kernel *built)
{
	json_t *j = kernel_json(built);

	kernel_replace(k, j);
	json_decref(j);
}

const char *run_kernel_package_sha256(const struct run_kernel *k)
{
	return json_string_value(json_object_get(k->package, "sha256"));
}

void run_kernel_from_file(struct run_kernel *k, const json_t *file)
{
	const char *req = json_string_value(json_object_get(file, "request"));
	json_t *n = json_object_get(file, "kernel");

	if (!json_is_object(n) || !req || !k->request || strcmp(req, k->request))
		return;
	/* the operations as this job wrote them; the rest is the build's */
	kernel_replace(k, n);
}

void run_kernel_set(struct run_kernel *k, bool *has, const struct kernel_info *ki)
{
	json_t *j = kernel_info_json(ki);

	run_kernel_release(k);
	*has = j != NULL;
	if (j)
		kernel_read(j, k);
	json_decref(j);
}

int run_kernel_load(const struct run_kernel *k, struct kernel_info *ki)
{
	json_t *j = kernel_json(k);
	int ret = kernel_info_from_json(j, ki);

	json_decref(j);
	return ret;
}

/* ---- variants ------------------------------------------------------------- */

static bool variant_read(const json_t *j, struct run_variant *v)
{
	json_t *k;

	memset(v, 0, sizeof(*v));
	if (!json_is_object(j))
		return false;
	v->rest = json_deep_copy(j);
	if (!take_str(v->rest, "name", &v->name)) {
		run_variant_release(v);
		return false;
	}
	k = json_object_get(v->rest, "kernel");
	if (json_is_object(k)) {
		kernel_read(k, &v->kernel);
		v->has_kernel = true;
		json_object_del(v->rest, "kernel");
	}
	return true;
}

static json_t *variant_json(const struct run_variant *v)
{
	json_t *j = rest_copy(v->rest);

	put_str(j, "name", v->name);
	if (v->has_kernel)
		json_object_set_new(j, "kernel", kernel_json(&v->kernel));
	return j;
}

/* ---- host ------------------------------------------------------------------ */

static void host_read(const json_t *j, struct run_host *h)
{
	long long cpus;

	h->rest = json_deep_copy(j);
	take_str(h->rest, "accel", &h->accel);
	take_str(h->rest, "accel_reason", &h->accel_reason);
	take_str(h->rest, "qemu", &h->qemu);
	take_str(h->rest, "libvirt", &h->libvirt);
	take_str(h->rest, "hostname", &h->hostname);
	take_str(h->rest, "cpu", &h->cpu);
	/* a 0 would not be written back: it stays in the rest */
	if (json_integer_value(json_object_get(h->rest, "cpus")) &&
	    take_int(h->rest, "cpus", LONG_MIN, LONG_MAX, &cpus))
		h->cpus = (long)cpus;
	take_str(h->rest, "kernel", &h->kernel);
	take_str(h->rest, "image", &h->image);
	take_str(h->rest, "disk_image", &h->disk_image);
}

static json_t *host_json(const struct run_host *h)
{
	json_t *j = rest_copy(h->rest);

	put_str(j, "accel", h->accel);
	put_str(j, "accel_reason", h->accel_reason);
	put_str(j, "qemu", h->qemu);
	put_str(j, "libvirt", h->libvirt);
	put_str(j, "hostname", h->hostname);
	put_str(j, "cpu", h->cpu);
	put_int(j, "cpus", h->cpus);
	put_str(j, "kernel", h->kernel);
	put_str(j, "image", h->image);
	put_str(j, "disk_image", h->disk_image);
	return j;
}

/* ---- boots ----------------------------------------------------------------- */

static bool boot_read(const json_t *j, struct run_boot *b)
{
	memset(b, 0, sizeof(*b));
	if (!json_is_object(j))
		return false;
	b->rest = json_deep_copy(j);
	if (take_str(b->rest, "variant", &b->variant) &&
	    take_uint(b->rest, "first", 0, &b->first) &&
	    take_uint(b->rest, "count", 0, &b->count)) {
		take_str(b->rest, "build", &b->build);
		return true;
	}
	run_boot_release(b);
	return false;
}

static json_t *boot_json(const struct run_boot *b)
{
	json_t *j = rest_copy(b->rest);

	put_str(j, "variant", b->variant);
	json_object_set_new(j, "first", json_integer(b->first));
	json_object_set_new(j, "count", json_integer(b->count));
	put_str(j, "build", b->build);
	return j;
}

/* ---- until_significant ------------------------------------------------------ */

static bool until_read(const json_t *j, struct run_until *u)
{
	json_t *stopped;

	u->rest = json_deep_copy(j);
	stopped = json_object_get(u->rest, "stopped");
	if (!json_is_null(stopped) && !take_str(u->rest, "stopped", &u->stopped))
		goto bad;
	json_object_del(u->rest, "stopped");
	if (!take_real(u->rest, "precision", &u->precision) ||
	    !take_uint(u->rest, "max_iterations", 0, &u->max_iterations) ||
	    !take_str(u->rest, "metrics", &u->metrics) ||
	    !take_real(u->rest, "confidence", &u->confidence) ||
	    !take_uint(u->rest, "iterations", 0, &u->iterations) ||
	    !take_uint(u->rest, "rounds", 0, &u->rounds) ||
	    !take_bool(u->rest, "reached", &u->reached) ||
	    !take_json(u->rest, "metrics_detail", JSON_ARRAY, &u->metrics_detail))
		goto bad;
	take_json(u->rest, "worst", JSON_OBJECT, &u->worst);
	u->present = true;
	return true;
bad:
	run_until_reset(u);
	return false;
}

static json_t *until_json(const struct run_until *u)
{
	json_t *j = rest_copy(u->rest);

	json_object_set_new(j, "precision", json_real(u->precision));
	json_object_set_new(j, "max_iterations", json_integer(u->max_iterations));
	json_object_set_new(j, "metrics", json_string(u->metrics ? u->metrics : ""));
	json_object_set_new(j, "confidence", json_real(u->confidence));
	json_object_set_new(j, "iterations", json_integer(u->iterations));
	json_object_set_new(j, "rounds", json_integer(u->rounds));
	json_object_set_new(j, "reached", json_boolean(u->reached));
	json_object_set_new(j, "stopped", u->stopped ? json_string(u->stopped) : json_null());
	json_object_set_new(j, "metrics_detail",
			    u->metrics_detail ? json_incref(u->metrics_detail) : json_array());
	put_json(j, "worst", u->worst);
	return j;
}

bool run_until_worst(const struct run_until *u, struct run_until_worst *w)
{
	const json_t *hw = json_object_get(u->worst, "halfwidth_rel");

	memset(w, 0, sizeof(*w));
	if (!u->worst)
		return false;
	w->metric = json_string_value(json_object_get(u->worst, "metric"));
	w->variant = json_string_value(json_object_get(u->worst, "variant"));
	w->finite = json_is_real(hw);
	w->halfwidth_rel = w->finite ? json_real_value(hw) : 0.0;
	w->n = json_integer_value(json_object_get(u->worst, "n"));
	return true;
}

/* ---- job_resolved: the job as it ran ------------------------------------------------ */

static json_t *kv_json(const struct kvlist *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

static json_t *collectors_json(const struct job *job)
{
	json_t *tp = json_array();

	for (size_t i = 0; i < job->collectors.tracepoints.n; i++)
		json_array_append_new(tp, json_string(job->collectors.tracepoints.v[i]));
	return json_pack("{s:b, s:o}", "enabled", !job->collectors.disabled, "tracepoints", tp);
}

static json_t *strlist_json(const struct strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/* a command workload's metrics: the patterns each extractor's unit and direction cover */
static json_t *own_metrics_json(const char *wl, const struct job_own *o)
{
	json_t *a = json_array();
	char *pat[OWN_PATTERNS_MAX];

	for (size_t i = 0; i < o->nmetrics; i++) {
		const struct own_metric *m = &o->metrics[i];
		size_t n = own_metric_patterns(wl, m, pat);

		for (size_t k = 0; k < n; k++) {
			json_array_append_new(
				a, json_pack("{s:s, s:s?, s:s, s:s, s:I}", "name", pat[k], "unit",
					     m->unit, "direction", own_dir_name(m->dir), "from",
					     own_from_name(m->from), "extractor", (json_int_t)i));
			free(pat[k]);
		}
	}
	return a;
}

/* the command workload's keys in job_resolved.workload */
static void own_json(json_t *wl, const struct job_workload *w)
{
	const struct job_own *o = w->own;
	json_t *files = json_array();

	for (size_t i = 0; i < o->nfiles; i++)
		json_array_append_new(files, json_string(o->files[i].dst));
	json_object_set_new(wl, "command", strlist_json(&o->argv));
	json_object_set_new(wl, "files", files);
	json_object_set_new(wl, "phase",
			    json_string(o->phase == OWN_PHASE_HANDSHAKE ? "handshake" : "whole"));
	json_object_set_new(wl, "timeout_s", json_integer(o->timeout_s));
	if (o->has_build)
		json_object_set_new(
			wl, "build",
			json_pack("{s:o, s:o, s:o, s:s}", "c", strlist_json(&o->build.sources),
				  "cflags", strlist_json(&o->build.cflags), "ldflags",
				  strlist_json(&o->build.ldflags), "output", o->build.output));
	if (o->has_module)
		json_object_set_new(wl, "module",
				    json_pack("{s:s, s:s}", "name", o->module.name, "params",
					      o->module.param_text));
	json_object_set_new(wl, "metrics", own_metrics_json(w->name, o));
}

/* a package variant's kernel as the job names it: the package or the file */
static const char *variant_pkg(const struct job_variant *v)
{
	return v->pkg_name ? v->pkg_name : v->pkg_deb ? v->pkg_deb : v->pkg_rpm;
}

static json_t *job_json(const struct job *job)
{
	json_t *vars = json_array(), *nodes = json_array(), *dist = json_array();
	const struct job_topology *t = &job->topo;

	for (size_t i = 0; i < job->nvariants; i++) {
		const struct job_variant *v = &job->variants[i];
		json_t *thp = json_object();

		if (v->thp_enabled)
			json_object_set_new(thp, "enabled", json_string(v->thp_enabled));
		if (v->thp_defrag)
			json_object_set_new(thp, "defrag", json_string(v->thp_defrag));
		json_array_append_new(vars,
				      json_pack("{s:s, s:s, s:s?, s:s?, s:o, s:o}", "name", v->name,
						"kernel",
						v->kernel_kind == KERNEL_DISTRO	 ? "distro" :
						v->kernel_kind == KERNEL_SOURCE	 ? "source" :
						v->kernel_kind == KERNEL_PACKAGE ? variant_pkg(v) :
										   v->kernel_path,
						"ref", v->ref, "cmdline", v->cmdline, "sysctl",
						kv_json(&v->sysctl), "thp", thp));
	}
	for (unsigned int i = 0; i < t->nnodes; i++) {
		json_t *row = json_array();

		json_array_append_new(nodes,
				      json_pack("{s:i, s:I}", "cpus", (int)t->nodes[i].cpus,
						"memory_kib", (json_int_t)t->nodes[i].memory_kib));
		for (unsigned int j = 0; j < t->nnodes; j++)
			json_array_append_new(row, json_integer(t->distances[i * t->nnodes + j]));
		json_array_append_new(dist, row);
	}
	return json_pack("{s:s, s:o, s:{s:o, s:o}, s:{s:s, s:o}, s:i, s:i, s:{s:i, s:i}, s:s, s:o}",
			 "name", job->name, "variants", vars, "topology", "nodes", nodes,
			 "distances", dist, "workload", "name", job->workload.name, "params",
			 kv_json(&job->workload.params), "iterations", (int)job->iterations,
			 "iterations_per_boot", (int)job->iterations_per_boot, "timeouts", "boot_s",
			 (int)job->timeouts.boot_s, "iteration_s", (int)job->timeouts.iteration_s,
			 "accel", accel_mode_name(job->accel), "collectors", collectors_json(job));
}

static json_t *job_json_all(const struct job *job)
{
	json_t *j = job_json(job);

	if (job->workload.own)
		own_json(json_object_get(j, "workload"), &job->workload);
	if (job->workload.mmtests) {
		const struct job_mmtests *m = job->workload.mmtests;

		json_object_set_new(json_object_get(j, "workload"), "mmtests",
				    json_pack("{s:s, s:s, s:o, s:o}", "dir", m->dir, "config",
					      m->config, "benchmarks", strlist_json(&m->benchmarks),
					      "packages", strlist_json(&m->packages)));
		if (m->mirror)
			json_object_set_new(json_object_get(json_object_get(j, "workload"),
							    "mmtests"),
					    "mirror", json_string(m->mirror));
	}
	return j;
}

static json_t *job_image_json(const struct job *job)
{
	json_t *pk = json_array(), *cf = json_array();

	if (job->image.kind != IMAGE_DEBOOTSTRAP)
		return json_pack("{s:s}", "kind", "initramfs");
	for (size_t i = 0; i < job->image.packages.n; i++)
		json_array_append_new(pk, json_string(job->image.packages.v[i]));
	for (size_t i = 0; i < job->collect_files.n; i++)
		json_array_append_new(cf, json_string(job->collect_files.v[i]));
	return json_pack("{s:s, s:s, s:o, s:I, s:o}", "kind", "debootstrap", "suite",
			 job->image.suite, "packages", pk, "size",
			 (json_int_t)job->image.size_bytes, "collect_files", cf);
}

void run_record_set_job(struct run_record *rec, const struct job *job)
{
	json_decref(rec->job_resolved);
	rec->job_resolved = job_json_all(job);
	json_object_set_new(rec->job_resolved, "image", job_image_json(job));
}

/* ---- the record ---------------------------------------------------------------- */

static bool variants_read(json_t *rest, struct run_record *rec)
{
	json_t *a = json_object_get(rest, "variants"), *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	rec->variants = xcalloc(json_array_size(a) + 1, sizeof(*rec->variants));
	json_array_foreach(a, i, e) {
		if (!variant_read(e, &rec->variants[i])) {
			while (i--)
				run_variant_release(&rec->variants[i]);
			free(rec->variants);
			rec->variants = NULL;
			return false;
		}
	}
	rec->nvariants = json_array_size(a);
	json_object_del(rest, "variants");
	return true;
}

static bool boots_read(json_t *rest, struct run_record *rec)
{
	json_t *a = json_object_get(rest, "boots"), *e;
	size_t i;

	if (!json_is_array(a))
		return false;
	rec->boots = xcalloc(json_array_size(a) + 1, sizeof(*rec->boots));
	json_array_foreach(a, i, e) {
		if (!boot_read(e, &rec->boots[i])) {
			while (i--)
				run_boot_release(&rec->boots[i]);
			free(rec->boots);
			rec->boots = NULL;
			return false;
		}
	}
	rec->nboots = json_array_size(a);
	json_object_del(rest, "boots");
	return true;
}

/* a sub-object read whole into its struct, or left in the rest */
static void take_object(json_t *rest, const char *key, bool (*read)(const json_t *, void *),
			void *out)
{
	json_t *o = json_object_get(rest, key);

	if (json_is_object(o) && read(o, out))
		json_object_del(rest, key);
}

static bool order_read_cb(const json_t *j, void *out)
{
	return order_read(j, out);
}

static bool until_read_cb(const json_t *j, void *out)
{
	return until_read(j, out);
}

static bool host_read_cb(const json_t *j, void *out)
{
	struct run_record *rec = out;

	host_read(j, &rec->host);
	rec->has_host = true;
	return true;
}

int run_record_from_json(const json_t *j, struct run_record *rec)
{
	json_t *r;
	long long pid;

	memset(rec, 0, sizeof(*rec));
	if (!json_is_object(j))
		return -1;
	r = rec->rest = json_deep_copy(j);
	take_str(r, "run", &rec->run);
	take_str(r, "job", &rec->job);
	take_str(r, "status", &rec->status);
	take_str(r, "created", &rec->created);
	take_str(r, "finished", &rec->finished);
	take_str(r, "job_file", &rec->job_file);
	take_str(r, "job_dir", &rec->job_dir);
	if (take_int(r, "pid", 1, LLONG_MAX, &pid))
		rec->pid = pid;
	take_str(r, "host_boot_id", &rec->host_boot_id);
	take_uint(r, "attempt", 1, &rec->attempt);
	take_true(r, "observer_check", &rec->observer_check);
	take_object(r, "order", order_read_cb, &rec->order);
	take_json(r, "job_resolved", JSON_OBJECT, &rec->job_resolved);
	variants_read(r, rec);
	take_object(r, "host", host_read_cb, rec);
	boots_read(r, rec);
	take_object(r, "until_significant", until_read_cb, &rec->until);
	take_json(r, "recipe", JSON_OBJECT, &rec->recipe);
	take_json(r, "repro", JSON_OBJECT, &rec->repro);
	return 0;
}

void run_record_add_iterations(json_t *j, json_t *iterations)
{
	json_t *vars = json_object_get(j, "variants"), *it;
	size_t i;

	json_array_foreach(iterations, i, it)
		if (json_is_object(json_array_get(vars, i)))
			json_object_set(json_array_get(vars, i), "iterations", it);
}

static json_t *boots_json(const struct run_record *rec)
{
	json_t *a = json_array();

	for (size_t i = 0; i < rec->nboots; i++)
		json_array_append_new(a, boot_json(&rec->boots[i]));
	return a;
}

json_t *run_record_to_json(const struct run_record *rec)
{
	json_t *j = rest_copy(rec->rest);

	put_str(j, "run", rec->run);
	put_str(j, "job", rec->job);
	put_str(j, "status", rec->status);
	put_str(j, "created", rec->created);
	put_str(j, "finished", rec->finished);
	put_str(j, "job_file", rec->job_file);
	put_str(j, "job_dir", rec->job_dir);
	put_int(j, "pid", rec->pid);
	put_str(j, "host_boot_id", rec->host_boot_id);
	put_int(j, "attempt", rec->attempt);
	put_true(j, "observer_check", rec->observer_check);
	if (rec->order.mode != RUN_ORDER_NONE)
		json_object_set_new(j, "order", order_json(&rec->order));
	put_json(j, "job_resolved", rec->job_resolved);
	if (rec->variants) {
		json_t *a = json_array();

		for (size_t i = 0; i < rec->nvariants; i++)
			json_array_append_new(a, variant_json(&rec->variants[i]));
		json_object_set_new(j, "variants", a);
	}
	if (rec->has_host)
		json_object_set_new(j, "host", host_json(&rec->host));
	if (rec->boots)
		json_object_set_new(j, "boots", boots_json(rec));
	if (rec->until.present)
		json_object_set_new(j, "until_significant", until_json(&rec->until));
	put_json(j, "recipe", rec->recipe);
	put_json(j, "repro", rec->repro);
	return j;
}

const char *run_record_workload(const struct run_record *rec)
{
	return json_string_value(
		json_object_get(json_object_get(rec->job_resolved, "workload"), "name"));
}

const char *run_record_mmtests_dir(const struct run_record *rec)
{
	return json_string_value(json_object_get(
		json_object_get(json_object_get(rec->job_resolved, "workload"), "mmtests"), "dir"));
}
