// SPDX-License-Identifier: GPL-2.0
/*
 * run_summary.c - the per-variant statistics of `mmlab run`'s summary
 * (run_summary.h), over typed iteration records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_summary.h"

bool run_summary_metric(const char *name, const char *workload)
{
	static const char *const fixed[] = {
		"time.elapsed_s",
		"time.system_s",
		"time.user_s",
		"vmstat.pgfault",
		"vmstat.thp_fault_alloc",
		"vmstat.thp_fault_fallback",
		"vmstat.compact_stall",
		"vmstat.compact_migrate_scanned",
		"vmstat.pgmigrate_success",
		"vmstat.numa_hint_faults",
		"vmstat.numa_pages_migrated",
	};
	size_t wl = strlen(workload);

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(name, fixed[i]))
			return true;
	return !strncmp(name, workload, wl) && name[wl] == '.';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool listed(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* the headline metrics present in any ok iteration, sorted */
static void summary_names(const struct run_summary_in *in, size_t n, const char *wl,
			  struct strlist *out)
{
	for (size_t v = 0; v < n; v++)
		for (size_t k = 0; k < in[v].n; k++) {
			const struct iteration_record *it = &in[v].its[k];

			if (!iteration_ok(it))
				continue;
			for (size_t m = 0; m < it->nmetrics; m++)
				if (run_summary_metric(it->metrics[m].name, wl) &&
				    !listed(out, it->metrics[m].name))
					strlist_push(out, it->metrics[m].name);
		}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

/* the values of metric in the ok iterations of its[0..n), in x (n of them at most) */
static size_t samples(const struct iteration_record *its, size_t n, const char *metric, double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double v = iteration_ok(&its[i]) ? iteration_metric(&its[i], metric) : NAN;

		if (!isnan(v))
			x[k++] = v;
	}
	return k;
}

void run_summary_build(const struct run_summary_in *in, size_t n, const char *workload,
		       struct run_summary *out)
{
	memset(out, 0, sizeof(*out));
	summary_names(in, n, workload, &out->metrics);
	out->vars = xcalloc(n + 1, sizeof(*out->vars));
	out->nvars = n;
	for (size_t v = 0; v < n; v++) {
		struct run_summary_var *sv = &out->vars[v];
		double *x = xcalloc(in[v].n + 1, sizeof(*x));

		sv->name = in[v].name;
		sv->all = in[v].n;
		for (size_t k = 0; k < in[v].n; k++)
			sv->ok += iteration_ok(&in[v].its[k]);
		sv->cells = xcalloc(out->metrics.n + 1, sizeof(*sv->cells));
		for (size_t m = 0; m < out->metrics.n; m++) {
			size_t nx = samples(in[v].its, in[v].n, out->metrics.v[m], x);

			stats_summarize(x, nx, false, &sv->cells[m]);
		}
		free(x);
	}
}

void run_summary_release(struct run_summary *s)
{
	for (size_t v = 0; v < s->nvars; v++)
		free(s->vars[v].cells);
	free(s->vars);
	strlist_free(&s->metrics);
	memset(s, 0, sizeof(*s));
}

double run_summary_mean(const struct iteration_record *its, size_t n, const char *metric,
			size_t *nok)
{
	double *x = xcalloc(n + 1, sizeof(*x));
	struct stats_summary s;

	*nok = samples(its, n, metric, x);
	stats_summarize(x, *nok, false, &s);
	free(x);
	return *nok ? s.mean : NAN;
}
