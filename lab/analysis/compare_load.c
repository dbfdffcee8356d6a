// SPDX-License-Identifier: GPL-2.0
/*
 * compare_load.c - the inputs of a comparison: the variants of a stored
 * run (samples of its ok iterations, what must match between variants,
 * the time series) and samples CSV files.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "lib/strbuf.h"
#include "mmtests/mmtests.h"

#define CSV_MAX_BYTES (64u << 20)

/* ---- loading runs ---- */

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

static json_t *job_variant(const json_t *run, const char *name)
{
	json_t *vars = json_object_get(json_object_get(run, "job_resolved"), "variants");
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
static void variant_config(struct cmp_variant *v, const json_t *run, const char *name)
{
	json_t *job = json_object_get(run, "job_resolved");
	json_t *jv = job_variant(run, name);
	json_t *host = json_object_get(run, "host");
	static const char *const job_keys[] = { "topology", "workload", "accel", "image" };
	const char *key;
	json_t *val;

	json_object_foreach(jv, key, val)
		if (strcmp(key, "name") && strcmp(key, "kernel"))
			flatten(&v->config, key, val);
	for (size_t i = 0; i < ARRAY_SIZE(job_keys); i++)
		if (json_object_get(job, job_keys[i]))
			flatten(&v->config, job_keys[i], json_object_get(job, job_keys[i]));
	json_object_foreach(host, key, val) {
		char *p = xasprintf("host.%s", key);

		if (strcmp(key, "accel_reason"))
			flatten(&v->config, p, val);
		free(p);
	}
}

/* keep an ok iteration's 1 Hz time series for the report (moved out of it) */
static void add_timeseries(struct cmp_variant *v, struct iteration_record *it)
{
	struct cmp_series *cs;

	if (!it->ts.present)
		return;
	v->ts = xrealloc(v->ts, (v->nts + 1) * sizeof(*v->ts));
	cs = &v->ts[v->nts++];
	cs->ts = it->ts;
	if (!(cs->ts.interval_s > 0))
		cs->ts.interval_s = 1.0;
	cs->elapsed_s = iteration_metric(it, "time.elapsed_s");
	memset(&it->ts, 0, sizeof(it->ts));
}

static int add_iteration(struct comparison *c, size_t vi, struct iteration_record *it,
			 const char *where)
{
	struct cmp_variant *v = &c->vars[vi];

	if (!it->has_metrics) {
		lab_err("%s: an ok iteration has no \"metrics\" object; "
			"check the run with `mmlab results show`",
			where);
		return -1;
	}
	for (size_t i = 0; i < it->nmetrics; i++) {
		struct cmp_metric *m = cmp_metric_get(c, it->metrics[i].name);

		if (!m) {
			cmp_full_err(c, where);
			return -1;
		}
		cmp_cell_set(&m->cells[vi], v->niter, it->metrics[i].value);
	}
	add_timeseries(v, it);
	v->niter++;
	return 0;
}

/*
 * One stored iteration of variant vi (the i-th): its samples when it is
 * ok, else counted in *bad; an mmtests import kept in imports for the
 * directions. 0, or -1 after a message.
 */
static int add_iteration_json(struct comparison *c, size_t vi, const json_t *it, size_t i,
			      const char *run_id, json_t *imports, size_t *bad)
{
	char *where = xasprintf("run %s variant %s iteration %zu", run_id, c->vars[vi].name, i);
	struct iteration_record rec;
	int rc = 0;

	if (!json_is_object(it)) {
		(*bad)++; /* not an iteration: not ok, as ever */
	} else if (iteration_record_from_json(it, &rec, where)) {
		rc = -1;
	} else {
		if (rec.mmtests)
			json_array_append(imports, (json_t *)rec.mmtests);
		if (!iteration_ok(&rec))
			(*bad)++;
		else
			rc = add_iteration(c, vi, &rec, where);
		iteration_record_release(&rec);
	}
	free(where);
	return rc;
}

static int add_variant_json(struct comparison *c, const json_t *run, const char *run_id,
			    const json_t *jv, json_t *imports)
{
	const char *name = json_string_value(json_object_get(jv, "name"));
	json_t *its = json_object_get(jv, "iterations");
	json_t *kernel = json_object_get(jv, "kernel");
	size_t vi, i, bad = 0;
	json_t *it;

	if (!name || !json_is_array(its)) {
		lab_err("run %s: a variant without \"name\" or \"iterations\"; "
			"the results file may be damaged",
			run_id);
		return -1;
	}
	vi = cmp_variant_add(c, name, run_id);
	if (vi == (size_t)-1) {
		char *where = xasprintf("run %s variant %s", run_id, name);

		cmp_full_err(c, where);
		free(where);
		return -1;
	}
	if (json_is_string(json_object_get(kernel, "release")))
		c->vars[vi].kernel = xstrdup(json_string_value(json_object_get(kernel, "release")));
	variant_config(&c->vars[vi], run, name);
	if (json_is_object(kernel))
		c->vars[vi].kinfo = json_deep_copy(kernel);
	if (job_variant(run, name))
		c->vars[vi].jvariant = json_deep_copy(job_variant(run, name));
	json_array_foreach(its, i, it)
		if (add_iteration_json(c, vi, it, i, run_id, imports, &bad))
			return -1;
	if (bad)
		strlist_pushf(&c->notes,
			      "variant %s: %zu of %zu iterations not ok "
			      "(crashed, timeout or failed) are left out",
			      c->vars[vi].name, bad, json_array_size(its));
	return 0;
}

/* what the report's header says about a run */
static json_t *run_facts(const json_t *run)
{
	static const char *const top[] = { "run",  "job",   "created",
					   "host", "order", "until_significant" };
	static const char *const job[] = { "topology",	"workload",   "image",
					   "accel",	"iterations", "iterations_per_boot",
					   "collectors" };
	json_t *jr = json_object_get(run, "job_resolved");
	json_t *o = json_object();

	for (size_t i = 0; i < ARRAY_SIZE(top); i++)
		if (json_object_get(run, top[i]))
			json_object_set_new(o, top[i],
					    json_deep_copy(json_object_get(run, top[i])));
	for (size_t i = 0; i < ARRAY_SIZE(job); i++)
		if (json_object_get(jr, job[i]))
			json_object_set_new(o, job[i], json_deep_copy(json_object_get(jr, job[i])));
	return o;
}

/*
 * A command workload's metrics have the direction its job gave them
 * (job_resolved.workload.metrics: fnmatch patterns of full names, in the
 * job's order; a later one wins). Neutral is every unknown metric's
 * direction already, so only lower and higher are applied.
 */
static void own_directions(struct comparison *c, const json_t *run)
{
	json_t *decl = json_object_get(
		json_object_get(json_object_get(run, "job_resolved"), "workload"), "metrics");
	enum metric_dir dir;
	size_t i;
	json_t *d;

	json_array_foreach(decl, i, d) {
		const char *pat = json_string_value(json_object_get(d, "name"));
		const char *ds = json_string_value(json_object_get(d, "direction"));

		if (!pat || !ds || metric_dir_parse(ds, &dir) || dir == DIR_NEUTRAL)
			continue;
		for (size_t k = 0; k < c->nmetrics; k++)
			if (!fnmatch(pat, c->metrics[k].name, 0))
				c->metrics[k].dir = dir;
	}
}

/* an mmtests workload's metrics: the direction mmtests prefers, stored with each import */
static void mmtests_directions(struct comparison *c, const json_t *imports)
{
	enum metric_dir dir;
	size_t i;
	json_t *imp;

	json_array_foreach(imports, i, imp) {
		for (size_t k = 0; k < c->nmetrics; k++) {
			const char *ds = mmtests_direction(imp, c->metrics[k].name);

			if (ds && !metric_dir_parse(ds, &dir))
				c->metrics[k].dir = dir;
		}
	}
}

int cmp_add_run(struct comparison *c, const json_t *run)
{
	const char *id = json_string_value(json_object_get(run, "run"));
	json_t *vars = json_object_get(run, "variants");
	json_t *imports;
	size_t i;
	json_t *jv;

	if (!id || !json_is_array(vars)) {
		lab_err("a run without \"run\" or \"variants\"; is this the "
			"output of `mmlab results show RUN --json`?");
		return -1;
	}
	strlist_push(&c->runs, id);
	if (!c->runinfo)
		c->runinfo = json_array();
	json_array_append_new(c->runinfo, run_facts(run));
	imports = json_array();
	json_array_foreach(vars, i, jv) {
		if (add_variant_json(c, run, id, jv, imports) < 0) {
			json_decref(imports);
			return -1;
		}
	}
	own_directions(c, run);
	mmtests_directions(c, imports);
	json_decref(imports);
	return 0;
}

/* ---- samples CSV ---- */

static int csv_split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line;;) {
		char *comma = strchr(p, ',');

		if (n == max)
			return -1;
		if (comma)
			*comma = 0;
		f[n++] = cmp_trim(p);
		if (!comma)
			return n;
		p = comma + 1;
	}
}

static int csv_row(struct comparison *c, const char *name, size_t lineno, char **f, int nf)
{
	enum metric_dir dir = DIR_NEUTRAL;
	struct cmp_metric *m;
	char *end;
	double v;
	size_t vi;

	if (nf < 3 || !*f[0] || !*f[1]) {
		lab_err("%s:%zu: expected variant,metric,value[,direction]", name, lineno);
		return -1;
	}
	v = strtod(f[2], &end);
	if (end == f[2] || *end) {
		lab_err("%s:%zu: value \"%s\" is not a number", name, lineno, f[2]);
		return -1;
	}
	if (nf == 4 && metric_dir_parse(f[3], &dir) < 0) {
		lab_err("%s:%zu: direction \"%s\": use lower, higher or neutral", name, lineno,
			f[3]);
		return -1;
	}
	vi = cmp_variant_find(c, f[0]);
	if (vi == (size_t)-1)
		vi = cmp_variant_add(c, f[0], NULL);
	m = vi == (size_t)-1 ? NULL : cmp_metric_get(c, f[1]);
	if (!m) {
		char *where = xasprintf("%s:%zu", name, lineno);

		cmp_full_err(c, where);
		free(where);
		return -1;
	}
	if (nf == 4)
		m->dir = dir;
	cmp_cell_set(&m->cells[vi], m->cells[vi].n, v);
	if (m->cells[vi].n > c->vars[vi].niter)
		c->vars[vi].niter = m->cells[vi].n;
	return 0;
}

int cmp_add_samples_buf(struct comparison *c, const char *name, const char *buf)
{
	char *copy = xstrdup(buf), *save = NULL, *line;
	size_t lineno = 0, rows = 0;
	int rc = 0;

	strlist_pushf(&c->runs, "samples:%s", name);
	for (line = copy; line && !rc; line = save) {
		char *nl = strchr(line, '\n'), *f[4];
		int nf;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		lineno++;
		line = cmp_trim(line);
		if (!*line || *line == '#')
			continue;
		if (strchr(line, '"')) {
			lab_err("%s:%zu: quoted CSV fields are not supported; "
				"use plain variant,metric,value rows",
				name, lineno);
			rc = -1;
			break;
		}
		nf = csv_split(line, f, 4);
		if (nf < 0) {
			lab_err("%s:%zu: more than 4 fields", name, lineno);
			rc = -1;
		} else if (!rows++ && nf >= 3 && !strcmp(f[0], "variant")) {
			continue; /* the header: the first row after comments */
		} else {
			rc = csv_row(c, name, lineno, f, nf);
		}
	}
	free(copy);
	if (!rc && !c->nvars) {
		lab_err("%s: no samples; expected variant,metric,value rows", name);
		rc = -1;
	}
	return rc;
}

int cmp_add_samples_csv(struct comparison *c, const char *path)
{
	char *buf = read_file(path, NULL, CSV_MAX_BYTES);
	int rc;

	if (!buf)
		return -1;
	rc = cmp_add_samples_buf(c, path, buf);
	free(buf);
	return rc;
}
