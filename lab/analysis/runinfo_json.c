// SPDX-License-Identifier: GPL-2.0
/*
 * runinfo_json.c - what a comparison takes from the JSON parts of a
 * stored run (struct run_data): the job as it ran (job_resolved: the
 * topology, the workload, the variants' settings, the metrics' declared
 * directions, the derived formulas), a kernel record's source and
 * operations, and the host's facts as run.json has them, into the typed
 * struct cmp_runinfo and struct cmp_setup (compare.h). The only place the
 * comparison reads a run's keys. The run may be untrusted (a run JSON
 * file): a value of another type than the one written is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "lib/strbuf.h"

static char *opt_str(const json_t *o, const char *key)
{
	return xstrdup_or_null(json_string_value(json_object_get(o, key)));
}

static json_t *opt_object(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_object(v) ? json_deep_copy(v) : NULL;
}

/* ---- the run's facts ---- */

static long long node_mib(const json_t *n)
{
	const json_t *kib = json_object_get(n, "memory_kib");
	const char *s = json_string_value(json_object_get(n, "memory"));

	if (json_is_integer(kib))
		return json_integer_value(kib) / 1024;
	if (s) {
		char *end;
		long long v = strtoll(s, &end, 10);

		return *end == 'G' ? v * 1024 : *end == 'K' ? v / 1024 : v;
	}
	return -1;
}

static void read_topology(struct cmp_runinfo *ri, const json_t *topo)
{
	json_t *nodes = json_object_get(topo, "nodes"), *dist = json_object_get(topo, "distances");
	json_t *n, *row, *d;
	size_t i, k;

	ri->nodes = xcalloc(json_array_size(nodes) + 1, sizeof(*ri->nodes));
	json_array_foreach(nodes, i, n) {
		ri->nodes[i].cpus = json_integer_value(json_object_get(n, "cpus"));
		ri->nodes[i].mib = node_mib(n);
	}
	ri->nnodes = json_array_size(nodes);
	ri->dist = xcalloc(json_array_size(dist) + 1, sizeof(*ri->dist));
	json_array_foreach(dist, i, row) {
		ri->dist[i].v = xcalloc(json_array_size(row) + 1, sizeof(*ri->dist[i].v));
		json_array_foreach(row, k, d)
			ri->dist[i].v[k] = json_integer_value(d);
		ri->dist[i].n = json_array_size(row);
	}
	ri->ndist = json_array_size(dist);
}

/*
 * A command workload's metrics have the direction its job gave them
 * (workload.metrics: fnmatch patterns of full names, in the job's order).
 * Neutral is every unknown metric's direction already: only lower and
 * higher are kept.
 */
static void read_directions(struct cmp_runinfo *ri, const json_t *decl)
{
	enum metric_dir dir;
	size_t i;
	json_t *d;

	ri->dirs = xcalloc(json_array_size(decl) + 1, sizeof(*ri->dirs));
	json_array_foreach(decl, i, d) {
		const char *pat = json_string_value(json_object_get(d, "name"));
		const char *ds = json_string_value(json_object_get(d, "direction"));

		if (!pat || !ds || metric_dir_parse(ds, &dir) || dir == DIR_NEUTRAL)
			continue;
		ri->dirs[ri->ndirs].pattern = xstrdup(pat);
		ri->dirs[ri->ndirs++].dir = dir;
	}
}

static void read_job(struct cmp_runinfo *ri, const json_t *jr)
{
	const json_t *wl = json_object_get(jr, "workload");
	const json_t *its = json_object_get(jr, "iterations");

	ri->job_accel = opt_str(jr, "accel");
	ri->workload = opt_str(wl, "name");
	ri->params = opt_object(wl, "params");
	ri->has_iterations = json_is_integer(its);
	ri->iterations = json_integer_value(its);
	ri->iterations_per_boot = json_integer_value(json_object_get(jr, "iterations_per_boot"));
	ri->image_kind = opt_str(json_object_get(jr, "image"), "kind");
	read_topology(ri, json_object_get(jr, "topology"));
	read_directions(ri, json_object_get(wl, "metrics"));
	ri->derived = opt_object(jr, "derived");
}

void cmp_runinfo_read(struct cmp_runinfo *ri, const struct run_data *run)
{
	const struct run_record *r = &run->rec;
	const struct run_host *h = &r->host;

	memset(ri, 0, sizeof(*ri));
	ri->run = xstrdup_or_null(r->run);
	ri->job = xstrdup_or_null(r->job);
	ri->created = xstrdup_or_null(r->created);
	ri->has_host = r->has_host;
	if (r->has_host) {
		ri->accel = xstrdup_or_null(h->accel);
		ri->accel_reason = xstrdup_or_null(h->accel_reason);
		ri->qemu = xstrdup_or_null(h->qemu);
		ri->libvirt = xstrdup_or_null(h->libvirt);
		ri->hostname = xstrdup_or_null(h->hostname);
		ri->cpu = xstrdup_or_null(h->cpu);
		ri->cpus = h->cpus;
	}
	if (r->order.mode != RUN_ORDER_NONE) {
		ri->order_mode =
			xstrdup(r->order.mode == RUN_ORDER_SEQUENTIAL ? "sequential" : "random");
		ri->seed = (long long)r->order.seed;
		for (size_t i = 0; r->order.has_sequence && i < r->order.sequence.n; i++)
			strlist_push(&ri->sequence, r->order.sequence.v[i]);
	}
	read_job(ri, r->job_resolved);
}

void cmp_runinfo_release(struct cmp_runinfo *ri)
{
	free(ri->run);
	free(ri->job);
	free(ri->created);
	free(ri->accel);
	free(ri->accel_reason);
	free(ri->qemu);
	free(ri->libvirt);
	free(ri->hostname);
	free(ri->cpu);
	free(ri->order_mode);
	strlist_free(&ri->sequence);
	free(ri->job_accel);
	free(ri->workload);
	json_decref(ri->params);
	free(ri->image_kind);
	free(ri->nodes);
	for (size_t i = 0; i < ri->ndist; i++)
		free(ri->dist[i].v);
	free(ri->dist);
	for (size_t i = 0; i < ri->ndirs; i++)
		free(ri->dirs[i].pattern);
	free(ri->dirs);
	json_decref(ri->derived);
	memset(ri, 0, sizeof(*ri));
}

/* ---- a variant ---- */

static void flatten(struct kvlist *kv, const char *prefix, json_t *val)
{
	const char *key;
	json_t *sub;
	char *s;

	if (json_is_object(val)) {
		json_object_foreach(val, key, sub) {
			char *p = *prefix ? xasprintf("%s.%s", prefix, key) : xstrdup(key);

			flatten(kv, p, sub);
			free(p);
		}
		return;
	}
	if (json_is_string(val)) {
		kvlist_set(kv, prefix, json_string_value(val));
		return;
	}
	s = json_dumps(val, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	kvlist_set(kv, prefix, s ? s : "?");
	free(s);
}

/* the job's variant called name, or NULL */
static json_t *job_variant(const json_t *jr, const char *name)
{
	json_t *vars = json_object_get(jr, "variants");
	size_t i;
	json_t *v;

	json_array_foreach(vars, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

/* what must be equal between variants, except the kernel itself */
static void variant_config(struct cmp_variant *v, const struct run_record *r, const json_t *jv)
{
	static const char *const job_keys[] = { "topology", "workload", "accel", "image" };
	json_t *rj = run_record_to_json(r), *host = json_object_get(rj, "host");
	const char *key;
	json_t *val;

	json_object_foreach((json_t *)jv, key, val)
		if (strcmp(key, "name") && strcmp(key, "kernel"))
			flatten(&v->config, key, val);
	for (size_t i = 0; i < ARRAY_SIZE(job_keys); i++)
		if (json_object_get(r->job_resolved, job_keys[i]))
			flatten(&v->config, job_keys[i],
				json_object_get(r->job_resolved, job_keys[i]));
	json_object_foreach(host, key, val) {
		char *p = xasprintf("host.%s", key);

		if (strcmp(key, "accel_reason"))
			flatten(&v->config, p, val);
		free(p);
	}
	json_decref(rj);
}

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

void cmp_variant_read(struct cmp_variant *v, const struct run_data *run, size_t i)
{
	const struct run_variant *rv = &run->rec.variants[i];
	const json_t *jv = job_variant(run->rec.job_resolved, rv->name);
	struct cmp_setup *s = &v->setup;
	size_t k;
	json_t *op;

	variant_config(v, &run->rec, jv);
	if (rv->has_kernel) {
		s->ksource = opt_str(rv->kernel.rest, "source");
		s->kbase = xstrdup_or_null(rv->kernel.base_commit);
		s->kpath = xstrdup_or_null(rv->kernel.path);
		json_array_foreach(rv->kernel.operations, k, op)
			strlist_pushf(&s->kops, "%s %s", str_or(op, "op", "?"),
				      str_or(op, "arg", "?"));
	}
	s->cmdline = opt_str(jv, "cmdline");
	s->thp = opt_object(jv, "thp");
	s->sysctl = opt_object(jv, "sysctl");
}

void cmp_setup_release(struct cmp_setup *s)
{
	free(s->ksource);
	free(s->kbase);
	free(s->kpath);
	strlist_free(&s->kops);
	free(s->cmdline);
	json_decref(s->thp);
	json_decref(s->sysctl);
	memset(s, 0, sizeof(*s));
}
