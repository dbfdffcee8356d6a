// SPDX-License-Identifier: GPL-2.0
/*
 * until.c - --until-significant (docs/compare.md, "Adding iterations until
 * precise"): after the job's iterations, check the stored ones, add a
 * round of one boot per variant, repeat until every target metric is
 * precise enough, or max_iterations. The state after every check goes to
 * run.json "until_significant", so an interrupted run resumes with its
 * extra iterations.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "analysis/precision.h"
#include "store/iteration.h"
#include "store/store.h"
#include "store/run_record.h"
#include "lib/util.h"
#include "run/run.h"

static void say_precision(const struct run_until *u, const struct precision_result *res)
{
	const struct precision_entry *w = res->worst < res->n ? &res->e[res->worst] : NULL;
	bool inf = w && isnan(w->halfwidth_rel);

	if (!w)
		return;
	lab_info("precision after %u iteration%s per variant: worst %s in %s "
		 "+-%s%.2f%% (target %.2f%%)",
		 u->iterations, u->iterations == 1 ? "" : "s", w->metric, w->variant,
		 inf ? "inf" : "", inf ? 0.0 : 100 * w->halfwidth_rel, 100 * u->precision);
}

/*
 * precision_check() over the variants of the stored run and their stored
 * iterations (a variant whose iterations cannot be read has none, after a
 * message); -1 when the run cannot be read
 */
static int check_stored(struct run *r, const struct precision_opts *po,
			struct precision_result *res)
{
	struct run_record rec;
	struct precision_var *pv;
	int rc;

	if (store_record_read(r->store, r->id, &rec))
		return -1;
	pv = xcalloc(rec.nvariants + 1, sizeof(*pv));
	for (size_t i = 0; i < rec.nvariants; i++) {
		struct iteration_record *its;

		pv[i].name = rec.variants[i].name;
		if (!store_variant_iterations(r->store, r->id, pv[i].name, &its, &pv[i].n))
			pv[i].its = its;
	}
	rc = precision_check(pv, rec.nvariants, po, res);
	for (size_t i = 0; i < rec.nvariants; i++)
		iteration_records_free((struct iteration_record *)pv[i].its, pv[i].n);
	free(pv);
	run_record_release(&rec);
	return rc;
}

/* check the stored iterations; 1 precise, 0 not yet, -1 no target metric */
static int check(struct run *r, const struct precision_opts *po, unsigned int round,
		 struct precision_result *res)
{
	struct run_until *u = &r->rec.until;
	int rc = check_stored(r, po, res);

	u->iterations = r->job->iterations;
	u->rounds = round;
	u->reached = rc == 1;
	json_decref(u->worst);
	u->worst = res->worst < res->n ? precision_entry_json(&res->e[res->worst]) : NULL;
	json_decref(u->metrics_detail);
	u->metrics_detail = precision_result_json(res);
	return rc;
}

int run_until_significant(struct run *r, const struct run_opts *o)
{
	struct run_until *u = &r->rec.until;
	struct precision_opts po = { .globs = o->metrics, .precision = o->precision, .conf = 0.95 };
	unsigned int round = 0;
	int rc;

	run_until_reset(u);
	*u = (struct run_until){ .present = true,
				 .precision = o->precision,
				 .max_iterations = o->max_iterations,
				 .confidence = po.conf,
				 .metrics = xstrdup(o->metrics ? o->metrics :
								 PRECISION_DEFAULT_METRICS) };
	for (;;) {
		struct precision_result res = { 0 };
		const char *stop = NULL;

		rc = check(r, &po, round, &res);
		if (rc < 0)
			stop = "no target metric in any ok iteration";
		else if (rc == 1)
			stop = "precision reached";
		else if (r->job->iterations >= o->max_iterations)
			stop = "max_iterations reached";
		else if (run_interrupted())
			stop = "interrupted";
		free(u->stopped);
		u->stopped = stop ? xstrdup(stop) : NULL;
		say_precision(u, &res);
		precision_result_release(&res);
		if (store_record_write(r->store, r->id, &r->rec))
			return -1;
		if (stop)
			break;
		run_add_round(r, ++round);
		if (run_boots(r))
			return -1;
	}
	if (rc < 0)
		lab_err("--until-significant: no metric matches '%s' in run %s; name "
			"metrics it has with --metrics (see 'mmlab results show %s')",
			u->metrics, r->id, r->id);
	return 0;
}
