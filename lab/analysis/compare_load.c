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

/* keep a copy of an ok iteration's 1 Hz time series for the report */
static void add_timeseries(struct cmp_variant *v, const struct iteration_record *it)
{
	const struct iter_timeseries *from = &it->ts;
	struct iter_timeseries *ts;
	struct cmp_series *cs;

	if (!from->present)
		return;
	v->ts = xrealloc(v->ts, (v->nts + 1) * sizeof(*v->ts));
	cs = &v->ts[v->nts++];
	ts = &cs->ts;
	*ts = *from;
	ts->series = xcalloc(from->nseries + 1, sizeof(*ts->series));
	for (size_t i = 0; i < from->nseries; i++) {
		ts->series[i].name = xstrdup(from->series[i].name);
		ts->series[i].n = from->series[i].n;
		ts->series[i].v = xcalloc(from->series[i].n + 1, sizeof(double));
		memcpy(ts->series[i].v, from->series[i].v, from->series[i].n * sizeof(double));
	}
	if (!(ts->interval_s > 0))
		ts->interval_s = 1.0;
	cs->elapsed_s = iteration_metric(it, "time.elapsed_s");
}

static int add_iteration(struct comparison *c, size_t vi, const struct iteration_record *it,
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
 * The stored iterations of variant vi: the samples of those ok, the
 * others counted in a note; an mmtests import kept in imports for the
 * directions. 0, or -1 after a message.
 */
static int add_iterations(struct comparison *c, size_t vi, const struct run_data_variant *rv,
			  const char *run_id, json_t *imports)
{
	size_t bad = 0;

	for (size_t i = 0; i < rv->n; i++) {
		const struct iteration_record *it = &rv->its[i];
		char *where;
		int rc;

		if (it->mmtests)
			json_array_append(imports, (json_t *)it->mmtests);
		if (!iteration_ok(it)) {
			bad++;
			continue;
		}
		where = xasprintf("run %s variant %s iteration %zu", run_id, c->vars[vi].name, i);
		rc = add_iteration(c, vi, it, where);
		free(where);
		if (rc)
			return -1;
	}
	if (bad)
		strlist_pushf(&c->notes,
			      "variant %s: %zu of %zu iterations not ok "
			      "(crashed, timeout or failed) are left out",
			      c->vars[vi].name, bad, rv->n);
	return 0;
}

static int add_variant(struct comparison *c, const struct run_data *run, size_t i, json_t *imports)
{
	const struct run_variant *rv = &run->rec.variants[i];
	const char *id = run->rec.run;
	size_t vi = cmp_variant_add(c, rv->name, id);

	if (vi == (size_t)-1) {
		char *where = xasprintf("run %s variant %s", id, rv->name);

		cmp_full_err(c, where);
		free(where);
		return -1;
	}
	if (rv->has_kernel && rv->kernel.release)
		c->vars[vi].kernel = xstrdup(rv->kernel.release);
	cmp_variant_read(&c->vars[vi], run, i);
	if (!run->vars)
		return 0;
	return add_iterations(c, vi, &run->vars[i], id, imports);
}

/* a command workload's metrics: the directions its job declared, a later one wins */
static void own_directions(struct comparison *c, const struct cmp_runinfo *ri)
{
	for (size_t i = 0; i < ri->ndirs; i++)
		for (size_t k = 0; k < c->nmetrics; k++)
			if (!fnmatch(ri->dirs[i].pattern, c->metrics[k].name, 0))
				c->metrics[k].dir = ri->dirs[i].dir;
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

int cmp_add_run(struct comparison *c, const struct run_data *run)
{
	struct cmp_runinfo *ri;
	json_t *imports;

	if (!run->rec.run) {
		lab_err("a run without \"run\" or \"variants\"; is this the "
			"output of `mmlab results show RUN --json`?");
		return -1;
	}
	strlist_push(&c->runs, run->rec.run);
	c->runinfo = xrealloc(c->runinfo, (c->nruninfo + 1) * sizeof(*c->runinfo));
	ri = &c->runinfo[c->nruninfo++];
	cmp_runinfo_read(ri, run);
	imports = json_array();
	for (size_t i = 0; i < run->rec.nvariants; i++) {
		if (add_variant(c, run, i, imports) < 0) {
			json_decref(imports);
			return -1;
		}
	}
	own_directions(c, ri);
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
